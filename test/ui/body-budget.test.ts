// The TUI's bodies stay within their memory budget: the oldest are let go first and their
// records say so; a record that leaves the list gives its bytes back.
import { describe, expect, it } from 'vitest';
import { Journal, type JournalEntry } from '../../src/engine/journal.js';
import { TrafficStore } from '../../src/ui/store/traffic-store.js';

function request(journal: Journal, id: string, bodyBytes: number, complete = true): void {
  journal.append({
    kind: 'webRequest',
    event: 'onBeforeRequest',
    details: { requestId: id, url: `http://a.test/${id}`, method: 'GET', frameId: 0, parentFrameId: -1, tabId: -1, type: 'other', timeStamp: Date.now() } as never,
    outcomes: [],
  } as Omit<JournalEntry, 'seq' | 'time'> as never);
  journal.append({ kind: 'body', requestId: id, direction: 'response', url: `http://a.test/${id}`, bytes: new Uint8Array(bodyBytes), complete, size: complete ? bodyBytes : bodyBytes * 10 });
}

describe('the body budget', () => {
  it('lets the oldest bodies go first when a new one passes it; the record says it was dropped and keeps its size', () => {
    const journal = new Journal();
    const store = new TrafficStore({ flushIntervalMs: 0, maxBodyBytes: 100 });
    store.attach(journal);
    request(journal, '1', 40);
    request(journal, '2', 40);
    request(journal, '3', 40);
    store.flush();
    const [first, second, third] = store.all();
    expect(first!.responseBytes).toMatchObject({ dropped: true, size: 40, complete: false });
    expect(first!.responseBytes!.bytes.length).toBe(0);
    expect(second!.responseBytes).toMatchObject({ size: 40, complete: true });
    expect(third!.responseBytes!.bytes.length).toBe(40);
    expect(store.bodyBudget).toEqual({ bytes: 80, maxBytes: 100, dropped: 1 });
  });

  it('the body a StreamFilter gave the client counts like any other; let go, it still says whose filter wrote it', () => {
    const journal = new Journal();
    const store = new TrafficStore({ flushIntervalMs: 0, maxBodyBytes: 100 });
    store.attach(journal);
    request(journal, '1', 30);
    journal.append({ kind: 'body', requestId: '1', direction: 'response', filteredBy: ['Upper'], url: 'http://a.test/1', bytes: new Uint8Array(30), complete: true, size: 30, decoded: true });
    request(journal, '2', 75);
    store.flush();
    const [first] = store.all();
    expect(first!.responseBytes).toMatchObject({ dropped: true, size: 30 });
    expect(first!.deliveredBytes).toMatchObject({ dropped: true, size: 30, filteredBy: ['Upper'] });
    expect(store.bodyBudget).toEqual({ bytes: 75, maxBytes: 100, dropped: 2 });
  });

  it('a request dropped from the list gives its body bytes back; a cut body keeps its beginning and the size sent', () => {
    const journal = new Journal();
    const store = new TrafficStore({ flushIntervalMs: 0, maxRequests: 1, maxBodyBytes: 1000 });
    store.attach(journal);
    request(journal, '1', 300);
    request(journal, '2', 200, false);
    store.flush();
    expect(store.bodyBudget.bytes).toBe(200);
    expect(store.all()[0]!.responseBytes).toMatchObject({ size: 2000, complete: false });
    expect(store.all()[0]!.responseSize).toBe(2000);
  });
});
