// insertSorted keeps a list ascending; among equal keys, the value inserted last comes last (the
// transport's "latest answer recorded before the step" relies on it).
import { describe, expect, it } from 'vitest';
import { insertSorted } from '../../src/engine/session/sorted-insert.js';

describe('insertSorted', () => {
  it('keeps the list ascending whatever order values come in, and equal keys in the order they came', () => {
    const list: { key: number; name: string }[] = [];
    for (const [key, name] of [[5, 'a'], [1, 'b'], [9, 'c'], [5, 'd'], [0, 'e'], [9, 'f']] as const) insertSorted(list, { key, name }, (value) => value.key);
    expect(list.map((value) => `${value.key}${value.name}`)).toEqual(['0e', '1b', '5a', '5d', '9c', '9f']);
  });
});
