// The engine's side of StreamFilters (web-request/stream-filter.ts), driven by a scripted
// extension end: order of bytes through a disconnect, flow control, chaining, a client that leaves.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FilterChain, HIGH_WATER, ResponseFilter, type FilterEndpoint } from '../../src/engine/web-request/stream-filter.js';

/** An extension end that records what it was told; the test answers for it. */
function scriptedEnd(): FilterEndpoint & { told: string[]; chunks: Uint8Array[] } {
  const told: string[] = [];
  const chunks: Uint8Array[] = [];
  return {
    told,
    chunks,
    start: () => told.push('start'),
    data: (chunk) => {
      told.push(`data ${Buffer.from(chunk).toString()}`);
      chunks.push(chunk);
    },
    stop: () => told.push('stop'),
    error: (message) => told.push(`error ${message}`),
  };
}

function collector() {
  const parts: string[] = [];
  let ended = false;
  return {
    parts,
    get ended() {
      return ended;
    },
    write: (chunk: Uint8Array) => (parts.push(Buffer.from(chunk).toString()), true),
    end: () => void (ended = true),
    once: () => undefined,
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** One filter on a body that flows from `source` into `sink`. */
function oneFilterRunning() {
  const end = scriptedEnd();
  const filter = new ResponseFilter('ext', end);
  const source = new PassThrough();
  const sink = collector();
  const chain = new FilterChain([filter], source, sink);
  chain.start();
  return { end, filter, source, sink, chain };
}

describe('a response body through StreamFilters', () => {
  it('disconnect(): chunks the extension has not handed back yet still come before the rest of the body', async () => {
    const { end, filter, source, sink, chain } = oneFilterRunning();
    source.write('one');
    source.write('two');
    await tick();
    // The extension handled "one" and disconnects; "two" is still on its way to it.
    filter.written(Buffer.from('ONE'));
    filter.acknowledged(3);
    filter.disconnect();
    expect(filter.state).toBe('disconnecting');
    source.end('three');
    await tick();
    expect(sink.parts).toEqual(['ONE']); // "three" waits behind "two"
    // Its worker hands "two" back untouched (data for a disconnected filter) and acknowledges it.
    filter.written(Buffer.from('two'));
    filter.acknowledged(3);
    expect(filter.state).toBe('disconnected');
    expect(sink.parts).toEqual(['ONE', 'two', 'three']);
    await tick();
    expect(sink.ended).toBe(true);
    expect(await chain.done).toEqual({ kind: 'ended' });
  });

  it(`pauses the source while more than ${HIGH_WATER} bytes wait unacknowledged, and resumes it once they are handled`, async () => {
    const end = scriptedEnd();
    const filter = new ResponseFilter('ext', end);
    const source = new PassThrough({ highWaterMark: 16 });
    const chain = new FilterChain([filter], source, collector());
    chain.start();
    const chunk = Buffer.alloc(256 * 1024, 1);
    for (let i = 0; i < 8; i++) source.write(chunk);
    await tick();
    const given = end.chunks.reduce((sum, c) => sum + c.length, 0);
    expect(given).toBeGreaterThan(HIGH_WATER);
    expect(given).toBeLessThan(8 * chunk.length); // the rest waits in the source
    expect(source.isPaused()).toBe(true);
    filter.acknowledged(given);
    await tick();
    expect(end.chunks.reduce((sum, c) => sum + c.length, 0)).toBe(8 * chunk.length);
  });

  it('chains filters with the one made last nearest the source', async () => {
    const first = new ResponseFilter('first', scriptedEnd());
    const secondEnd = scriptedEnd();
    const second = new ResponseFilter('second', secondEnd);
    const source = new PassThrough();
    const sink = collector();
    new FilterChain([first, second], source, sink).start();
    source.end('x');
    await tick();
    expect(secondEnd.told).toEqual(['start', 'data x', 'stop']);
    second.written(Buffer.from('B(x)'));
    second.close();
    await tick();
    first.written(Buffer.from('A(B(x))'));
    first.close();
    expect(sink.parts).toEqual(['A(B(x))']);
    expect(sink.ended).toBe(true);
  });

  it('a client that leaves: each filter is told stop, and what it writes afterwards goes nowhere', async () => {
    const { end, filter, source, sink, chain } = oneFilterRunning();
    source.write('partial');
    await tick();
    chain.cancel();
    expect(end.told).toEqual(['start', 'data partial', 'stop']);
    filter.written(Buffer.from('late'));
    expect(sink.parts).toEqual([]);
    expect(await chain.done).toEqual({ kind: 'cancelled' });
  });

  it('a filter whose request ended before a body (cancelled, cached, replayed) is told start and stop', () => {
    const end = scriptedEnd();
    new ResponseFilter('ext', end).abandon();
    expect(end.told).toEqual(['start', 'stop']);
  });
});
