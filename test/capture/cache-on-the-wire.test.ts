// --cache through the proxy: fromCache means a response really came from wrtui's cache, and
// handlerBehaviorChanged really flushes it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpCache } from '../../src/engine/capture/http-cache.js';
import type { OnCompletedDetails } from '../../src/engine/types.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { finished, startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

let origin: Origin;
let h: ProxyHarness;
let cache: HttpCache;

beforeAll(async () => {
  origin = await startOrigin((req, res) => {
    if (req.url === '/etag') {
      if (req.headers['if-none-match'] === '"v1"') {
        res.writeHead(304, { ETag: '"v1"', 'Cache-Control': 'max-age=0' });
        return res.end();
      }
      res.writeHead(200, { ETag: '"v1"', 'Cache-Control': 'max-age=0', 'Content-Type': 'text/plain' });
      return res.end('validated body');
    }
    res.writeHead(200, { 'Cache-Control': 'max-age=600', 'Content-Type': 'text/plain' });
    res.end(`fresh ${req.url}`);
  });
  cache = new HttpCache();
  h = await startProxyHarness({ proxy: { cache } });
  h.engine.onFlush(() => cache.clear());
});
afterAll(async () => {
  await h.close();
  await origin.close();
});

function completedOf(url: string): OnCompletedDetails[] {
  return h.webRequestEntries((e) => e.event === 'onCompleted' && e.details.url === url).map((e) => e.details as OnCompletedDetails);
}

describe('fromCache: "fetched from disk cache"', () => {
  it('a fresh cached response is served by wrtui with every event and fromCache: true; the origin sees one request', async () => {
    const url = `${origin.url}/cached`;
    expect((await h.curl([url])).stdout).toBe('fresh /cached');
    expect((await h.curl([url])).stdout).toBe('fresh /cached');
    const ids = h.webRequestEntries((e) => e.event === 'onBeforeRequest' && e.details.url === url).map((e) => e.details.requestId);
    await finished(h, ids[1]!);
    expect(origin.received.filter((r) => r.url === '/cached')).toHaveLength(1);
    expect(h.events(ids[1]!)).toEqual(['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onResponseStarted', 'onCompleted']);
    expect(completedOf(url).map((d) => d.fromCache)).toEqual([false, true]);
  });

  it('handlerBehaviorChanged flushes the cache: the next request goes to the origin', async () => {
    const url = `${origin.url}/flushed`;
    await h.curl([url]);
    await h.curl([url]);
    await h.api('reloader').browser.webRequest!.handlerBehaviorChanged();
    await h.curl([url]);
    expect(origin.received.filter((r) => r.url === '/flushed')).toHaveLength(2);
    await finished(h, h.webRequestEntries((e) => e.event === 'onBeforeRequest' && e.details.url === url).at(-1)!.details.requestId);
    expect(completedOf(url).map((d) => d.fromCache)).toEqual([false, true, false]);
  });

  it('a stale entry is revalidated upstream; a 304 serves the stored body, fromCache: true', async () => {
    const url = `${origin.url}/etag`;
    expect((await h.curl([url])).stdout).toBe('validated body');
    expect((await h.curl([url])).stdout).toBe('validated body');
    const revalidation = origin.received.filter((r) => r.url === '/etag')[1]!;
    expect(revalidation.rawHeaders.join('\n')).toMatch(/if-none-match\n"v1"/i);
    await finished(h, h.webRequestEntries((e) => e.event === 'onBeforeRequest' && e.details.url === url).at(-1)!.details.requestId);
    expect(completedOf(url).map((d) => [d.statusCode, d.fromCache])).toEqual([[200, false], [200, true]]);
  });
});
