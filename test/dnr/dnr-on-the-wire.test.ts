// Each declarativeNetRequest action on real traffic: curl and undici through wrtui's proxy to a
// real origin on 127.0.0.1, with a listener beside the rules to see what webRequest shows, in
// the order Chromium 156 shows it (checked with a probe extension: see src/engine/dnr/dnr-engine.ts).
import { afterEach, describe, expect, it } from 'vitest';
import type { DnrEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

let harness: ProxyHarness | undefined;
let origin: Origin | undefined;
const received: { url: string; headers: Record<string, string | string[] | undefined> }[] = [];

afterEach(async () => {
  await harness?.close();
  await origin?.close();
  harness = origin = undefined;
  received.length = 0;
});

async function start(rules: unknown[], options: { dryRun?: boolean } = {}) {
  origin = await startOrigin((req, res) => {
    received.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'text/plain', 'x-origin': 'yes', 'set-cookie': 'a=1' }).end(`served ${req.url}`);
  });
  harness = await startProxyHarness({ engine: { dryRun: options.dryRun ?? false } });
  const { warnings } = await harness.engine.dnr.addExtension({ extensionId: 'abcdefghijklmnopabcdefghijklmnop', name: 'blocker', baseUrl: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/', rulesets: [{ id: 'main', path: 'rules.json', enabled: true, rules }] });
  expect(warnings).toEqual([]);
  return { origin, harness };
}

const eventsOf = (h: ProxyHarness, path: string) =>
  h.webRequestEntries((entry: WebRequestEntry) => new URL(entry.details.url).pathname.startsWith(path)).map((entry) => `${entry.event}${entry.event === 'onErrorOccurred' ? ` ${(entry.details as { error: string }).error}` : ''}`);
const dnrEntries = (h: ProxyHarness) => h.entries.filter((entry): entry is DnrEntry & { seq: number; time: number } => entry.kind === 'dnr');

describe('declarativeNetRequest actions on the wire', () => {
  it('block: the origin never sees the request; onBeforeRequest fires, then onErrorOccurred net::ERR_BLOCKED_BY_CLIENT', async () => {
    const { harness: h, origin: o } = await start([{ id: 1, action: { type: 'block' }, condition: { urlFilter: '/ads/', resourceTypes: ['script'] } }]);
    const { code } = await h.curl(['-s', '-o', '/dev/null', '-w', '%{http_code}', `${o.url}/ads/banner.js`]);
    expect(code).not.toBe(0); // the client sees a failed request, as for a listener's cancel
    expect(received.map((r) => r.url)).not.toContain('/ads/banner.js');
    expect(eventsOf(h, '/ads/')).toEqual(['onBeforeRequest', 'onErrorOccurred net::ERR_BLOCKED_BY_CLIENT']);
    expect(dnrEntries(h)).toMatchObject([{ stage: 'onBeforeRequest', effect: 'block', matches: [{ extension: 'blocker', rulesetId: 'main', ruleId: 1, priority: 1, action: 'block', status: 'applied' }] }]);
  });

  it('block beside a blocking listener that answers later: onBeforeRequest is journaled at once with an outcomes list; the listener\'s late failure is a log line', async () => {
    const { harness: h, origin: o } = await start([{ id: 1, action: { type: 'block' }, condition: { urlFilter: '/ads/', resourceTypes: ['other'] } }]);
    let rejectLater!: (error: Error) => void;
    h.api().chrome.webRequest!.onBeforeRequest.addListener(() => new Promise((_resolve, reject) => (rejectLater = reject)), { urls: ['<all_urls>'] }, ['blocking']);
    await h.curl(['-s', '-o', '/dev/null', `${o.url}/ads/x`]);
    const before = h.webRequestEntries((entry) => entry.event === 'onBeforeRequest')[0]!;
    expect(before.outcomes).toEqual([]);
    expect(eventsOf(h, '/ads/')).toEqual(['onBeforeRequest', 'onErrorOccurred net::ERR_BLOCKED_BY_CLIENT']);
    rejectLater(new Error('too late'));
    await h.waitFor((entry) => entry.kind === 'log' && entry.source === 'test-rule' && entry.message.includes('too late'));
  });

  it('redirect (transform): an internal 307, then the new URL\'s events; the client gets the new resource', async () => {
    const { harness: h, origin: o } = await start([{ id: 2, action: { type: 'redirect', redirect: { transform: { path: '/new', queryTransform: { addOrReplaceParams: [{ key: 'via', value: 'dnr' }] } } } }, condition: { urlFilter: '|http://*/old|', resourceTypes: ['other'] } }]);
    const { stdout } = await h.curl(['-s', '-L', `${o.url}/old`]);
    expect(stdout).toBe('served /new?via=dnr');
    expect(received.map((r) => r.url)).toEqual(['/new?via=dnr']);
    expect(eventsOf(h, '/old')).toEqual(['onBeforeRequest', 'onBeforeRedirect']);
    const redirect = h.webRequestEntries((entry) => entry.event === 'onBeforeRedirect')[0]!.details as { statusCode: number; statusLine: string; redirectUrl: string };
    expect(redirect).toMatchObject({ statusCode: 307, statusLine: 'HTTP/1.1 307 Internal Redirect', redirectUrl: `${o.url}/new?via=dnr` });
  });

  it('redirect (regexSubstitution): \\1 is the first group', async () => {
    const { harness: h, origin: o } = await start([{ id: 3, action: { type: 'redirect', redirect: { regexSubstitution: `${'http://127.0.0.1:'}\\1/mirror/\\2` } }, condition: { regexFilter: '^http://127\\.0\\.0\\.1:(\\d+)/cdn/(.*)$' } }]);
    const { stdout } = await h.curl(['-s', '-L', `${o.url}/cdn/lib.js`]);
    expect(stdout).toBe('served /mirror/lib.js');
  });

  it('modifyHeaders on the request: the origin gets the change; onBeforeSendHeaders shows the headers before it, onSendHeaders after', async () => {
    const { harness: h, origin: o } = await start([{ id: 4, action: { type: 'modifyHeaders', requestHeaders: [{ header: 'x-dnr', operation: 'set', value: 'set-by-dnr' }, { header: 'user-agent', operation: 'remove' }] }, condition: { urlFilter: '/headers', resourceTypes: ['other'] } }]);
    await h.curl(['-s', '-o', '/dev/null', `${o.url}/headers`]);
    expect(received[0]!.headers['x-dnr']).toBe('set-by-dnr');
    expect(received[0]!.headers['user-agent']).toBeUndefined();
    const shown = (event: string) => (h.webRequestEntries((entry) => entry.event === event)[0]!.details as { requestHeaders: { name: string }[] }).requestHeaders.map((header) => header.name.toLowerCase());
    expect(shown('onBeforeSendHeaders')).toContain('user-agent');
    expect(shown('onBeforeSendHeaders')).not.toContain('x-dnr');
    expect(shown('onSendHeaders')).toContain('x-dnr');
    expect(shown('onSendHeaders')).not.toContain('user-agent');
    expect(dnrEntries(h)).toMatchObject([{ stage: 'onBeforeSendHeaders', effect: 'modifyHeaders', headerChanges: [{ header: 'x-dnr', operation: 'set', value: 'set-by-dnr', ruleId: 4 }, { header: 'user-agent', operation: 'remove', ruleId: 4 }] }]);
  });

  it('modifyHeaders on the response: the client gets the change; onHeadersReceived shows the origin\'s headers, onCompleted the changed ones', async () => {
    const { harness: h, origin: o } = await start([{ id: 5, action: { type: 'modifyHeaders', responseHeaders: [{ header: 'x-dnr-resp', operation: 'set', value: '1' }, { header: 'x-origin', operation: 'remove' }, { header: 'set-cookie', operation: 'append', value: 'b=2' }] }, condition: { urlFilter: '/resp', resourceTypes: ['other'] } }]);
    const { stdout } = await h.curl(['-s', '-D', '-', '-o', '/dev/null', `${o.url}/resp`]);
    expect(stdout.toLowerCase()).toContain('x-dnr-resp: 1');
    expect(stdout.toLowerCase()).not.toContain('x-origin');
    expect(stdout.toLowerCase()).toContain('set-cookie: a=1');
    expect(stdout.toLowerCase()).toContain('set-cookie: b=2');
    const shown = (event: string) => (h.webRequestEntries((entry) => entry.event === event)[0]!.details as { responseHeaders: { name: string }[] }).responseHeaders.map((header) => header.name.toLowerCase());
    expect(shown('onHeadersReceived')).toContain('x-origin');
    expect(shown('onCompleted')).toContain('x-dnr-resp');
    expect(shown('onCompleted')).not.toContain('x-origin');
  });

  it('allow outranks a lower-priority block; the allow is what matched', async () => {
    const { harness: h, origin: o } = await start([
      { id: 6, priority: 2, action: { type: 'allow' }, condition: { urlFilter: '/allowed', resourceTypes: ['other'] } },
      { id: 7, priority: 1, action: { type: 'block' }, condition: { urlFilter: '/allowed', resourceTypes: ['other'] } },
    ]);
    const { stdout } = await h.curl(['-s', `${o.url}/allowed`]);
    expect(stdout).toBe('served /allowed');
    expect(dnrEntries(h)).toMatchObject([{ effect: 'allow', matches: [{ ruleId: 6, action: 'allow' }] }]);
  });

  it('upgradeScheme sends an http request to https', async () => {
    const { harness: h } = await start([{ id: 8, action: { type: 'upgradeScheme' }, condition: { requestDomains: ['upgrade.test'], resourceTypes: ['other'] } }]);
    await h.curl(['-s', '-o', '/dev/null', 'http://upgrade.test/page']);
    const redirect = h.webRequestEntries((entry) => entry.event === 'onBeforeRedirect')[0]!.details as { redirectUrl: string };
    expect(redirect.redirectUrl).toBe('https://upgrade.test/page');
  });

  it('dry-run: the rule is journaled as it would act, and the request goes through untouched', async () => {
    const { harness: h, origin: o } = await start([{ id: 1, action: { type: 'block' }, condition: { urlFilter: '/ads/' } }], { dryRun: true });
    const { stdout } = await h.curl(['-s', `${o.url}/ads/x.js`]);
    expect(stdout).toBe('served /ads/x.js');
    expect(dnrEntries(h)).toMatchObject([{ effect: 'block', dryRun: true, matches: [{ ruleId: 1, status: 'dry-run' }] }]);
  });
});
