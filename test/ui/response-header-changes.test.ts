// The Response tab shows the headers as the client got them and what rules changed on the way:
// a listener's onHeadersReceived answer and declarativeNetRequest's modifyHeaders. Before, it
// showed the final headers only, and a Set-Cookie a rule removed was simply not there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineText } from '../../src/ui/detail/styled-line.js';
import { cookiesLines } from '../../src/ui/detail/cookies-lines.js';
import { responseLines } from '../../src/ui/detail/response-lines.js';
import { startStoreRig, type StoreRig } from '../helpers/store-rig.js';

let rig: StoreRig;
beforeAll(async () => {
  rig = await startStoreRig((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': 'sid=1', 'x-powered-by': 'origin' });
    res.end('origin');
  });
  await rig.h.engine.dnr.addExtension({
    extensionId: 'abcdefghijklmnopabcdefghijklmnop',
    name: 'Cookie Cutter',
    baseUrl: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/',
    rulesets: [{ id: 'main', path: 'rules.json', enabled: true, rules: [{ id: 1, action: { type: 'modifyHeaders', responseHeaders: [{ header: 'set-cookie', operation: 'remove' }] }, condition: { urlFilter: '/changed', resourceTypes: ['other'] } }] }],
  });
  rig.h.api('csp').chrome.webRequest!.onHeadersReceived.addListener(
    (details) => (details.url.endsWith('/changed') ? { responseHeaders: [...details.responseHeaders!.filter((header) => header.name.toLowerCase() !== 'x-powered-by'), { name: 'Content-Security-Policy', value: "default-src 'self'" }] } : undefined),
    { urls: ['<all_urls>'] },
    ['blocking', 'responseHeaders'],
  );
});
afterAll(() => rig.close());

describe('the Response tab of a response rules changed', () => {
  it('marks the header a listener added, lists the ones a listener and a DNR rule removed, and names who changed them', async () => {
    const text = responseLines(await rig.record('/changed')).map(lineText);
    expect(text).toContain('Headers (6): as the client got them, with what rules changed');
    expect(text).toContain("+ Content-Security-Policy: default-src 'self'");
    expect(text).toContain('- set-cookie: sid=1  removed');
    expect(text).toContain('- x-powered-by: origin  removed');
    expect(text).toContain('  changed by csp, DNR Cookie Cutter (onHeadersReceived)');
    expect(text.some((row) => /^\s+set-cookie/i.test(row))).toBe(false);
  });

  it('the Cookies tab says a Set-Cookie a rule removed never reached the jar, rather than "rejected"', async () => {
    const text = cookiesLines(await rig.record('/changed?cookies')).map(lineText);
    expect(text).toContain('  sid=1  removed by a rule: the jar never saw it');
    expect(text).toContain('  none (rules removed every Set-Cookie; the Response tab says which)');
  });

  it('a response no rule touched reads as before: its headers, no marks', async () => {
    const text = responseLines(await rig.record('/untouched')).map(lineText);
    expect(text.find((row) => row.startsWith('Headers ('))).toMatch(/^Headers \(\d+\)$/);
    expect(text).toContain('  set-cookie: sid=1');
    expect(text.some((row) => row.startsWith('+ ') || row.startsWith('- ') || row.includes('changed by'))).toBe(false);
  });
});
