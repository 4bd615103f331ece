// A fixed-capacity FIFO: pushing past the capacity forgets the oldest item. Bounds the UI's log
// and cookie-change history however long wrtui runs.
export class RingBuffer<T> {
  readonly capacity: number;
  readonly #items: (T | undefined)[];
  #start = 0;
  #length = 0;

  constructor(capacity: number) {
    this.capacity = Math.max(1, capacity);
    this.#items = new Array<T | undefined>(this.capacity);
  }

  get length(): number {
    return this.#length;
  }

  push(item: T): void {
    if (this.#length < this.capacity) {
      this.#items[(this.#start + this.#length) % this.capacity] = item;
      this.#length++;
    } else {
      this.#items[this.#start] = item;
      this.#start = (this.#start + 1) % this.capacity;
    }
  }

  /** The i-th item, oldest first. */
  at(index: number): T | undefined {
    if (index < 0 || index >= this.#length) return undefined;
    return this.#items[(this.#start + index) % this.capacity];
  }

  /** Items [from, to), oldest first. */
  slice(from = 0, to = this.#length): T[] {
    const out: T[] = [];
    for (let index = Math.max(0, from); index < Math.min(to, this.#length); index++) out.push(this.at(index)!);
    return out;
  }

  toArray(): T[] {
    return this.slice();
  }

  clear(): void {
    this.#items.fill(undefined);
    this.#start = 0;
    this.#length = 0;
  }
}
