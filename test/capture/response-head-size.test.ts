// How much head wrtui reads. From an upstream, as much as Chromium does (256 KiB,
// net/http/http_stream_parser.h kMaxHeaderBufSize), not Node's default 16 KiB: a page whose
// server sends many or long Set-Cookie or CSP headers loads in a browser and must load through
// wrtui; past Chromium's limit it fails as Chromium fails it. From a client, up to 64 KiB (more is
// answered 431: test/capture/robustness.test.ts), so that a big Cookie header goes on to the origin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnErrorOccurredDetails, OnHeadersReceivedDetails } from '../../src/engine/types.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { finished, requestIdOf, startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

let origin: Origin;
let h: ProxyHarness;

beforeAll(async () => {
  origin = await startOrigin((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const kib = Number(url.searchParams.get('kib'));
    // Set-Cookie headers of ~1 KiB each, `kib` of them; for this path alone, so that the jar does not
    // send them all back to the next test's request (the origin, Node, refuses a 40 KiB Cookie: 431).
    res.setHeader('Set-Cookie', Array.from({ length: kib }, (_, index) => `c${index}=${'v'.repeat(1000)}; Path=${url.pathname}`));
    res.end('served');
  });
  h = await startProxyHarness();
});
afterAll(async () => {
  await h.close();
  await origin.close();
});

describe('the response head wrtui reads from an upstream', () => {
  it('40 KiB of Set-Cookie headers (over Node\'s 16 KiB default, under Chromium\'s 256 KiB): served, every header seen by onHeadersReceived', async () => {
    const url = `${origin.url}/forty?kib=40`;
    const { stdout } = await h.curl(['-s', '-w', ' %{http_code}', url]);
    expect(stdout).toBe('served 200');
    const id = requestIdOf(h, url);
    await finished(h, id);
    const headers = (h.webRequestEntries((entry) => entry.details.requestId === id && entry.event === 'onHeadersReceived')[0]!.details as OnHeadersReceivedDetails).responseHeaders!;
    expect(headers.filter((header) => header.name.toLowerCase() === 'set-cookie')).toHaveLength(40);
  });

  it('a head over 256 KiB fails as in Chromium: net::ERR_RESPONSE_HEADERS_TOO_BIG, and the client is told so', async () => {
    const url = `${origin.url}/three-hundred?kib=300`;
    const { stdout } = await h.curl(['-s', '-o', '/dev/null', '-w', '%{http_code}', url]);
    expect(stdout).toBe('502');
    const end = await finished(h, requestIdOf(h, url));
    expect(end.kind === 'webRequest' && (end.details as OnErrorOccurredDetails).error).toBe('net::ERR_RESPONSE_HEADERS_TOO_BIG');
  });
});

describe('the request head wrtui reads from a client', () => {
  it('a 40 KiB Cookie header (over Node\'s 16 KiB default) goes on to an origin that takes it, not answered 431 by wrtui', async () => {
    const { createServer } = await import('node:http');
    const big = createServer({ maxHeaderSize: 1024 * 1024 }, (req, res) => res.end(`cookie ${req.headers.cookie?.length ?? 0}`));
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(big.address() as { port: number }).port}/big-cookie`;
      const cookie = `big=${'x'.repeat(40 * 1024)}`;
      const { stdout } = await h.curl(['-s', '-w', ' %{http_code}', '-H', `Cookie: ${cookie}`, url]);
      expect(stdout).toBe(`cookie ${cookie.length} 200`);
    } finally {
      await new Promise((resolve) => big.close(resolve));
    }
  });
});
