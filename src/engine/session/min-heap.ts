// A binary min-heap: what a stream reader needs to put things back in order with a bounded window
// (HAR entries by start, timeline points by time) without sorting everything it has seen.

export class MinHeap<T> {
  readonly #items: T[] = [];
  readonly #before: (a: T, b: T) => number;

  /** `before(a, b)` < 0 when `a` comes out first. */
  constructor(before: (a: T, b: T) => number) {
    this.#before = before;
  }

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const items = this.#items;
    let i = items.push(item) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.#before(items[parent]!, item) <= 0) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = item;
  }

  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && this.#before(items[right]!, items[left]!) < 0 ? right : left;
      if (this.#before(last, items[child]!) <= 0) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = last;
    return top;
  }
}
