// TraceSpill keeps a HAR's replay without rules on disk until each request's trace is taken: what
// comes back is what went in (bytes too), once, whether or not it had been written out yet.
import { describe, expect, it } from 'vitest';
import type { RequestTrace } from '../../src/engine/session/request-trace.js';
import { TraceSpill } from '../../src/engine/session/trace-spill.js';

function trace(index: number): RequestTrace {
  return {
    requestId: String(index),
    entries: [
      {
        kind: 'webRequest',
        event: 'onBeforeRequest',
        details: { requestId: String(index), url: `http://a.test/${index}?q=${'é'.repeat(index % 7)}`, method: 'POST', frameId: 0, parentFrameId: -1, tabId: 1, type: 'xmlhttprequest', timeStamp: 1_000 + index, requestBody: { raw: [{ bytes: new Uint8Array([index % 256, 1, 2]) }] } },
        outcomes: [],
        seq: index,
        time: 1_000 + index,
      },
    ],
    dnr: [],
    cookieChanges: [],
    storeId: undefined,
  } as unknown as RequestTrace;
}

describe('TraceSpill', () => {
  it('gives back each trace as it was put, in any order, across many writes out, and only once', async () => {
    const spill = await TraceSpill.create();
    try {
      const count = 3_000; // some 1 MB of lines: several writes, and past the first index table
      for (let index = 0; index < count; index++) spill.put(index, trace(index));
      const order = Array.from({ length: count }, (_, i) => (i * 7919) % count);
      for (const index of order) {
        expect(spill.take(index)).toEqual(trace(index));
        expect(spill.take(index)).toBeUndefined();
      }
    } finally {
      spill.close();
    }
  });

  it('a trace taken before its line was written out comes back all the same; an index never put is undefined', async () => {
    const spill = await TraceSpill.create();
    try {
      spill.put(5, trace(5));
      expect(spill.take(5)!.requestId).toBe('5');
      expect(spill.take(4)).toBeUndefined();
      expect(spill.take(1_000_000)).toBeUndefined();
    } finally {
      spill.close();
    }
  });
});
