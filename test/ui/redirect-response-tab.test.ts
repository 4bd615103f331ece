// The Response tab of a request a listener redirected and the client did not follow: the 307 the
// client got has no onHeadersReceived (no server answered), so its headers, Location first, come
// from onBeforeRedirect. Before, the tab said "Headers (0)" while the client had read a Location.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineText } from '../../src/ui/detail/styled-line.js';
import { responseLines } from '../../src/ui/detail/response-lines.js';
import { TrafficStore } from '../../src/ui/store/traffic-store.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { finished, requestIdOf, startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

let origin: Origin;
let h: ProxyHarness;
let store: TrafficStore;

beforeAll(async () => {
  origin = await startOrigin((_req, res) => res.end('origin'));
  h = await startProxyHarness();
  store = new TrafficStore({ maxRequests: 100, flushIntervalMs: 0 });
  store.attach(h.engine.journal);
});
afterAll(async () => {
  store.close();
  await h.close();
  await origin.close();
});

describe('the Response tab of a redirect made by a listener', () => {
  it('shows the headers the client got with the 307 Internal Redirect: Location and Non-Authoritative-Reason', async () => {
    h.api('mover').chrome.webRequest!.onBeforeRequest.addListener(
      (details) => (details.url.endsWith('/from') ? { redirectUrl: `${origin.url}/to` } : undefined),
      { urls: ['<all_urls>'] },
      ['blocking'],
    );
    const url = `${origin.url}/from`;
    const { stdout } = await h.curl(['-s', '-i', url]); // no -L: the client takes the 307
    expect(stdout).toMatch(/^HTTP\/1\.1 307 Internal Redirect/);
    await finished(h, requestIdOf(h, url));
    store.flush();
    const record = store.all().find((candidate) => candidate.firstUrl === url)!;
    const text = responseLines(record).map(lineText);
    expect(text).toContain('HTTP/1.1 307 Internal Redirect');
    expect(text).toContain('Headers (2)');
    expect(text).toContain(`  Location: ${origin.url}/to`);
    expect(text).toContain('  Non-Authoritative-Reason: WebRequest API');
  });
});
