// MinHeap hands things back smallest first, whatever order they went in: the HAR reader's reorder
// window and its timeline rely on it.
import { describe, expect, it } from 'vitest';
import { MinHeap } from '../../src/engine/session/min-heap.js';

describe('MinHeap', () => {
  it('pops in ascending order, with pushes between pops, for any input order', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 50; round++) {
      const heap = new MinHeap<number>((a, b) => a - b);
      /** What the heap holds, kept sorted the slow way: each pop must be its smallest. */
      const held: number[] = [];
      const popSmallest = () => {
        const expected = held.shift();
        expect(heap.pop()).toBe(expected);
      };
      for (let i = 0; i < 200; i++) {
        const value = Math.floor(random() * 50);
        heap.push(value);
        held.push(value);
        held.sort((a, b) => a - b);
        if (random() < 0.3) popSmallest();
      }
      while (held.length > 0) popSmallest();
      expect(heap.size).toBe(0);
      expect(heap.pop()).toBeUndefined();
    }
  });

  it('with nothing popped between, hands back exactly the sorted input', () => {
    const heap = new MinHeap<[number, string]>((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
    for (const item of [[3, 'c'], [1, 'z'], [3, 'a'], [0, 'q'], [1, 'a']] as [number, string][]) heap.push(item);
    expect(heap.peek()).toEqual([0, 'q']);
    const out: string[] = [];
    while (heap.size > 0) out.push(heap.pop()!.join(''));
    expect(out).toEqual(['0q', '1a', '1z', '3a', '3c']);
  });
});
