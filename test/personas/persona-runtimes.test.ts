// Personas in real runtimes: an unpacked extension and a rule, each in its own worker, choosing
// or being given a persona, with traffic through the proxy.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import type { JournalEntry, LogEntry } from '../../src/engine/journal.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';
import { closeRig } from '../helpers/close-rig.js';
import { X509Certificate } from 'node:crypto';
import { generateCACertificate } from 'mockttp';
import { getCA } from 'mockttp/dist/util/certificates';

let harness: ProxyHarness | undefined;
let host: ExtensionHost | undefined;
let origin: Origin | undefined;
let work: string | undefined;
afterEach(async () => {
  await closeRig({ host, harness, origin, folder: work });
  host = harness = origin = work = undefined;
});

async function extension(name: string, manifest: Record<string, unknown>, code: string): Promise<string> {
  const dir = path.join(work!, name);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify({ name, version: '1', ...manifest }));
  await writeFile(path.join(dir, manifest.manifest_version === 2 ? 'bg.js' : 'sw.js'), code);
  return dir;
}

const MV3 = { manifest_version: 3, permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'], background: { service_worker: 'sw.js' } };
const logsOf = (entries: JournalEntry[], source: string) => entries.filter((e): e is LogEntry & JournalEntry => e.kind === 'log' && e.source === source).map((e) => e.message);

async function start(dirs: string[], options: { persona?: 'spec' | 'chrome' | 'firefox'; rulesDir?: string } = {}) {
  origin = await startOrigin((req, res) => res.end(`origin: ${req.url}`));
  harness = await startProxyHarness();
  host = await ExtensionHost.start(harness.engine, { extensions: dirs, watch: false, typeCheck: false, stateDir: harness.stateDir, ...options });
}

describe('an extension under the chrome persona', () => {
  it('feature-detects extraHeaders as Privacy Badger does, sees Chrome\'s throw for "beacon", and its extraHeaders listener sees the Cookie header', async () => {
    work = await mkdtemp(path.join(tmpdir(), 'wrtui-personas-'));
    const dir = await extension('Badger-like', MV3, `
      const wr = chrome.webRequest;
      const extra = wr.OnBeforeSendHeadersOptions && wr.OnBeforeSendHeadersOptions.hasOwnProperty('EXTRA_HEADERS');
      console.log('extraHeaders supported: ' + extra + ', max ' + wr.MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES + ', ping type ' + wr.ResourceType.PING);
      try { wr.onBeforeRequest.addListener(() => {}, { urls: ['<all_urls>'], types: ['beacon'] }); console.log('beacon accepted'); }
      catch (e) { console.log('beacon threw: ' + e.message); }
      const spec = ['requestHeaders'];
      if (extra) spec.push(wr.OnBeforeSendHeadersOptions.EXTRA_HEADERS);
      wr.onSendHeaders.addListener((d) => console.log('cookie seen: ' + d.requestHeaders.some((h) => h.name.toLowerCase() === 'cookie')), { urls: ['<all_urls>'] }, spec);
    `);
    await start([dir], { persona: 'chrome' });
    expect(host!.rules()[0]).toMatchObject({ name: 'Badger-like', persona: 'chrome', state: 'active' });
    await harness!.curl(['-H', 'Cookie: a=1', `${origin!.url}/x`]);
    await expect.poll(() => logsOf(harness!.entries, 'Badger-like')).toEqual([
      'extraHeaders supported: true, max 20, ping type ping',
      expect.stringMatching(/^beacon threw: Error at parameter 'filter': Error at property 'types': Error at index 0: Value must be one of csp_report, font, image/),
      'cookie seen: true',
    ]);
    const loaded = harness!.entries.find((e) => e.kind === 'rule' && e.action === 'loaded');
    expect(loaded).toMatchObject({ message: expect.stringContaining('chrome persona') });
  });

  it('onActionIgnored reaches the extension whose redirect lost, in its worker', async () => {
    work = await mkdtemp(path.join(tmpdir(), 'wrtui-personas-'));
    const redirect = (to: string) => `
      chrome.webRequest.onActionIgnored.addListener((d) => console.log('ignored ' + d.action + ' for ' + d.requestId));
      chrome.webRequest.onBeforeRequest.addListener((d) => d.url.includes('/start') ? { redirectUrl: '${to}' } : undefined, { urls: ['<all_urls>'] }, ['blocking']);
    `;
    const first = await extension('First', MV3, redirect('http://first.test/'));
    const second = await extension('Second', MV3, redirect('http://second.test/'));
    await start([first, second], { persona: 'chrome' });
    await harness!.curl(['-s', `${origin!.url}/start`]);
    const requestId = harness!.webRequestEntries((e) => e.event === 'onBeforeRequest')[0]!.details.requestId;
    // The extension installed last wins (Chrome's rule): the first is told.
    await expect.poll(() => logsOf(harness!.entries, 'First')).toEqual([`ignored redirect for ${requestId}`]);
    expect(logsOf(harness!.entries, 'Second')).toEqual([]);
  });
});

describe('choosing the persona', () => {
  it('an extension with browser_specific_settings.gecko is firefox unless --persona says otherwise; a rule\'s manifest key wins over --persona', async () => {
    work = await mkdtemp(path.join(tmpdir(), 'wrtui-personas-'));
    const gecko = await extension('Gecko', { manifest_version: 2, permissions: ['webRequest', '<all_urls>'], background: { scripts: ['bg.js'] }, browser_specific_settings: { gecko: { id: 'g@wrtui.test' } } }, `
      browser.webRequest.onBeforeRequest.addListener((d) => console.log(d.type + ' ' + d.cookieStoreId + ' ' + typeof browser.webRequest.OnBeforeRequestOptions.REQUESTBODY), { urls: ['<all_urls>'], types: ['beacon', 'xmlhttprequest', 'other'] });
    `);
    const plain = await extension('Plain', MV3, `console.log('ResourceType ' + typeof chrome.webRequest.ResourceType);`);
    const rules = path.join(work, 'rules');
    await mkdir(rules);
    await writeFile(path.join(rules, 'chrome-rule.ts'), `export const manifest = { name: 'chrome-rule', permissions: ['webRequest'], host_permissions: ['<all_urls>'], persona: 'chrome' } as const;
export default function background({ chrome }: any) { console.log('EXTRA ' + chrome.webRequest.OnSendHeadersOptions.EXTRA_HEADERS); }`);
    await start([gecko, plain], { rulesDir: rules });
    expect(Object.fromEntries(host!.rules().map((r) => [r.name, r.persona]))).toEqual({ 'chrome-rule': 'chrome', Gecko: 'firefox', Plain: 'spec' });
    await harness!.curl(['-s', '-X', 'POST', '-H', 'Sec-Fetch-Dest: empty', '-H', 'Sec-Fetch-Mode: no-cors', '-H', 'Origin: http://app.test', '-d', 'x', `${origin!.url}/beacon`]);
    await expect.poll(() => logsOf(harness!.entries, 'Gecko')).toEqual(['beacon firefox-default string']);
    expect(logsOf(harness!.entries, 'Plain')).toEqual([
      'chrome.webRequest.ResourceType is not in the spec persona (the seed interface); run with --persona chrome or firefox to see what that browser has',
      'ResourceType undefined',
    ]);
    expect(logsOf(harness!.entries, 'chrome-rule')).toEqual(['EXTRA extraHeaders']);
  });
});

describe('an extension under the firefox persona', () => {
  it('registers onErrorOccurred, the event Firefox gives no options, from its worker, and hears a refused connection', async () => {
    work = await mkdtemp(path.join(tmpdir(), 'wrtui-personas-'));
    const dir = await extension('Errors', { manifest_version: 2, permissions: ['webRequest', '<all_urls>'], background: { scripts: ['bg.js'] }, browser_specific_settings: { gecko: { id: 'errors@wrtui.test' } } }, `
      browser.webRequest.onErrorOccurred.addListener((d) => console.log('error ' + d.error + ' at ' + new URL(d.url).port), { urls: ['<all_urls>'] });
    `);
    await start([dir]);
    expect(host!.rules()[0]).toMatchObject({ name: 'Errors', persona: 'firefox', state: 'active' });
    await harness!.curl(['http://127.0.0.1:1/refused']);
    await expect.poll(() => logsOf(harness!.entries, 'Errors')).toEqual(['error net::ERR_CONNECTION_REFUSED at 1']);
    expect(harness!.entries.filter((entry) => entry.kind === 'log' && /refused by the engine/.test(entry.message))).toEqual([]);
  });
});

describe('a server redirect under the firefox persona (Firefox ESR 153.7)', () => {
  it('is told to the listeners once the client follows it; a client that does not ends the request with onCompleted and the 3xx, no onBeforeRedirect; a listener of another persona beside it sees Chrome\'s sequence', async () => {
    work = await mkdtemp(path.join(tmpdir(), 'wrtui-personas-'));
    const code = `
      const log = (event) => (d) => { if (new URL(d.url).pathname !== '/favicon.ico') console.log(event + ' ' + new URL(d.url).pathname + (d.statusCode ? ' ' + d.statusCode : '') + (d.error ? ' ' + d.error : '')); };
      for (const event of ['onBeforeRequest', 'onBeforeRedirect', 'onCompleted', 'onErrorOccurred']) chrome.webRequest[event].addListener(log(event), { urls: ['<all_urls>'] });
    `;
    const firefox = await extension('Fox', { manifest_version: 2, permissions: ['webRequest', '<all_urls>'], background: { scripts: ['bg.js'] }, browser_specific_settings: { gecko: { id: 'fox@wrtui.test' } } }, code);
    const chromeLike = await extension('Chromey', { ...MV3, persona: undefined }, code);
    origin = await startOrigin((req, res) => (req.url === '/moved' ? res.writeHead(302, { Location: '/there' }).end() : res.end('here')));
    harness = await startProxyHarness({ proxy: { followUpTimeoutMs: 300 } });
    host = await ExtensionHost.start(harness.engine, { extensions: [firefox, chromeLike], watch: false, typeCheck: false, stateDir: harness.stateDir });
    expect(host.rules().map((rule) => [rule.name, rule.persona])).toEqual([['Fox', 'firefox'], ['Chromey', 'spec']]);

    await harness.curl([`${origin.url}/moved`]); // curl without -L: the 302 is its answer
    await expect.poll(() => logsOf(harness!.entries, 'Fox')).toEqual(['onBeforeRequest /moved', 'onCompleted /moved 302']);
    await expect.poll(() => logsOf(harness!.entries, 'Chromey')).toEqual(['onBeforeRequest /moved', 'onBeforeRedirect /moved 302', 'onErrorOccurred /moved net::ERR_ABORTED']);

    await harness.curl(['-L', `${origin.url}/moved`]);
    await expect.poll(() => logsOf(harness!.entries, 'Fox').slice(2)).toEqual(['onBeforeRequest /moved', 'onBeforeRedirect /moved 302', 'onBeforeRequest /there', 'onCompleted /there 200']);
  });
});

describe("Firefox's webRequest.getSecurityInfo", () => {
  it('answers a blocking onHeadersReceived listener with the origin connection\'s TLS version, cipher and certificate, "insecure" for plain HTTP, and nothing to an extension without a blocking listener for the request', async () => {
    work = await mkdtemp(path.join(tmpdir(), 'wrtui-personas-'));
    const root = await generateCACertificate({ subject: { commonName: 'wrtui getSecurityInfo test root' } });
    const leaf = await (await getCA({ cert: root.cert, key: root.key })).generateCertificate('localhost');
    const secure = await startOrigin((_req, res) => res.end('secure'), { tls: { cert: leaf.cert, key: leaf.key, hostname: 'localhost' } });
    const MV2 = { manifest_version: 2, background: { scripts: ['bg.js'] }, browser_specific_settings: { gecko: { id: 'sec@wrtui.test' } } };
    const inspector = await extension('Inspector', { ...MV2, permissions: ['webRequest', 'webRequestBlocking', '<all_urls>'] }, `
      browser.webRequest.onHeadersReceived.addListener(async (d) => {
        const info = await browser.webRequest.getSecurityInfo(d.requestId, { certificateChain: true, rawDER: true });
        const cert = info.certificates && info.certificates[0];
        console.log(JSON.stringify({ url: d.url, state: info.state, protocolVersion: info.protocolVersion, cipherSuite: info.cipherSuite, secretKeyLength: info.secretKeyLength,
          isUntrusted: info.isUntrusted, subject: cert && cert.subject, sha256: cert && cert.fingerprint.sha256, der: cert && cert.rawDER.length, serial: cert && cert.serialNumber }));
        return {};
      }, { urls: ['<all_urls>'] }, ['blocking']);
    `);
    const bystander = await extension('Bystander', { ...MV2, browser_specific_settings: { gecko: { id: 'by@wrtui.test' } }, permissions: ['webRequest', '<all_urls>'] }, `
      browser.webRequest.onHeadersReceived.addListener((d) => {
        browser.webRequest.getSecurityInfo(d.requestId).then((info) => console.log('bystander got ' + JSON.stringify(info)));
      }, { urls: ['<all_urls>'] });
    `);
    origin = await startOrigin((req, res) => res.end(`origin: ${req.url}`));
    harness = await startProxyHarness({ proxy: { insecureUpstreamHosts: ['localhost'] } });
    try {
      host = await ExtensionHost.start(harness.engine, { extensions: [inspector, bystander], watch: false, typeCheck: false, stateDir: harness.stateDir });
      expect(host.rules().map((rule) => rule.persona)).toEqual(['firefox', 'firefox']);
      expect((await harness.curl([`${secure.url}/tls`])).stdout).toBe('secure');
      expect((await harness.curl([`${origin.url}/plain`])).code).toBe(0);
      const expected = new X509Certificate(leaf.cert);
      await expect.poll(() => logsOf(harness!.entries, 'Inspector').map((line) => JSON.parse(line))).toEqual([
        {
          url: `${secure.url}/tls`,
          state: 'secure',
          protocolVersion: 'TLSv1.3',
          cipherSuite: expect.stringMatching(/^TLS_(AES_(128|256)_GCM_SHA(256|384)|CHACHA20_POLY1305_SHA256)$/),
          secretKeyLength: expect.any(Number),
          // Not verified: the origin is an --insecure-upstream host, as a Firefox certificate exception shows it.
          isUntrusted: true,
          subject: 'CN=localhost,C=XX', // mockttp's certificates name the country XX; Firefox lists the most specific RDN first
          sha256: expected.fingerprint256,
          der: expected.raw.length,
          serial: expected.serialNumber.match(/../g)!.join(':'),
        },
        { url: `${origin.url}/plain`, state: 'insecure' },
      ]);
      await expect.poll(() => logsOf(harness!.entries, 'Bystander')).toEqual(['bystander got undefined', 'bystander got undefined']);
    } finally {
      await secure.close();
    }
  }, 30_000);

  it('is not there under the chrome persona (Chrome has no getSecurityInfo), and says so once', async () => {
    work = await mkdtemp(path.join(tmpdir(), 'wrtui-personas-'));
    const dir = await extension('Chromey', MV3, `console.log('getSecurityInfo is ' + typeof chrome.webRequest.getSecurityInfo);`);
    await start([dir], { persona: 'chrome' });
    // Said as what the browser APIs it used do here: in one debug entry, once its start-up's notes are gathered.
    await expect.poll(() => logsOf(harness!.entries, 'Chromey'), { timeout: 5000 }).toEqual([
      'getSecurityInfo is undefined',
      "what one browser API it used does here (wrtui is a proxy, not a browser; each said once):\n  chrome.webRequest.getSecurityInfo: undefined under the chrome persona: it is Firefox's, Chrome has none (--persona firefox has it)",
    ]);
  });
});

