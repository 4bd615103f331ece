// The Response tab of a request a listener redirected and the client did not follow: the 307 the
// client got has no onHeadersReceived (no server answered), so its headers, Location first, come
// from onBeforeRedirect. Before, the tab said "Headers (0)" while the client had read a Location.
// Chromium 156 gives the same listener exactly these two headers (capture-proxy.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineText } from '../../src/ui/detail/styled-line.js';
import { responseLines } from '../../src/ui/detail/response-lines.js';
import { startStoreRig, type StoreRig } from '../helpers/store-rig.js';

let rig: StoreRig;
beforeAll(async () => {
  rig = await startStoreRig((_req, res) => res.end('origin'));
});
afterAll(() => rig.close());

describe('the Response tab of a redirect made by a listener', () => {
  it('shows the headers the client got with the 307 Internal Redirect: Location and Non-Authoritative-Reason', async () => {
    rig.h.api('mover').chrome.webRequest!.onBeforeRequest.addListener(
      (details) => (details.url.endsWith('/from') ? { redirectUrl: `${rig.origin.url}/to` } : undefined),
      { urls: ['<all_urls>'] },
      ['blocking'],
    );
    const record = await rig.record('/from', ['-s', '-o', '/dev/null']); // no -L: the client takes the 307
    const text = responseLines(record).map(lineText);
    expect(text).toContain('HTTP/1.1 307 Internal Redirect');
    expect(text).toContain('Headers (2)');
    expect(text).toContain(`  Location: ${rig.origin.url}/to`);
    expect(text).toContain('  Non-Authoritative-Reason: WebRequest API');
  });
});
