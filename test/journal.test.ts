// The journal: one ordered stream; a consumer that subscribes late still gets every entry from seq 1.
import { describe, expect, it } from 'vitest';
import { Journal, type JournalEntry } from '../src/engine/journal.js';

const log = (message: string) => ({ kind: 'log' as const, level: 'info' as const, source: 'test', message });

describe('every consumer sees every entry from seq 1, in order, whenever it subscribed', () => {
  it('fromStart: what was appended before comes first, then what is appended after', () => {
    const journal = new Journal();
    journal.append(log('one'));
    journal.append(log('two'));
    const seen: JournalEntry[] = [];
    journal.subscribe((entry) => seen.push(entry), { fromStart: true });
    journal.append(log('three'));
    expect(seen.map((entry) => [entry.seq, (entry as { message: string }).message])).toEqual([[1, 'one'], [2, 'two'], [3, 'three']]);
  });

  it('without fromStart: only what comes after', () => {
    const journal = new Journal();
    journal.append(log('before'));
    const seen: number[] = [];
    journal.subscribe((entry) => seen.push(entry.seq));
    journal.append(log('after'));
    expect(seen).toEqual([2]);
  });

  it('memory is bounded: past `keep` entries a late subscriber starts later (its first seq says where); body entries are never kept', () => {
    const journal = new Journal({ keep: 3 });
    journal.append({ kind: 'body', requestId: '1', direction: 'response', url: 'http://x/', bytes: new Uint8Array(10), complete: true });
    for (const word of ['a', 'b', 'c', 'd']) journal.append(log(word));
    const seen: number[] = [];
    journal.subscribe((entry) => seen.push(entry.seq), { fromStart: true });
    expect(seen).toEqual([3, 4, 5]);
  });
});
