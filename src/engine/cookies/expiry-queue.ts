// A min-heap of (expiry time, item): the sweeper asks only "what expires next?", in O(log n) per
// change instead of scanning the jar. Entries are never removed early; the owner checks, when an
// entry comes out, whether it still stands (the cookie may have been overwritten or deleted), and
// rebuilds the heap when stale entries pile up.

export interface ExpiryEntry<T> {
  readonly at: number;
  readonly item: T;
}

export class ExpiryQueue<T> {
  #heap: ExpiryEntry<T>[] = [];

  get size(): number {
    return this.#heap.length;
  }

  push(at: number, item: T): void {
    const heap = this.#heap;
    heap.push({ at, item });
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (heap[parent]!.at <= heap[index]!.at) break;
      [heap[parent], heap[index]] = [heap[index]!, heap[parent]!];
      index = parent;
    }
  }

  peek(): ExpiryEntry<T> | undefined {
    return this.#heap[0];
  }

  pop(): ExpiryEntry<T> | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    heap[0] = last;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let smallest = index;
      if (left < heap.length && heap[left]!.at < heap[smallest]!.at) smallest = left;
      if (right < heap.length && heap[right]!.at < heap[smallest]!.at) smallest = right;
      if (smallest === index) break;
      [heap[smallest], heap[index]] = [heap[index]!, heap[smallest]!];
      index = smallest;
    }
    return top;
  }

  /** Replaces the contents (used to drop stale entries in one O(n log n) pass). */
  rebuild(entries: Iterable<ExpiryEntry<T>>): void {
    this.#heap = [];
    for (const entry of entries) this.push(entry.at, entry.item);
  }
}
