// Real extensions nobody here wrote, as Debian installs them (the webext-* packages), run in wrtui
// unchanged while a real browser browses a news page through the proxy. The page's first party and
// the trackers it pulls from are made-up hostnames that wrtui sends to one local origin
// (--resolve *.test and the tracker domains → 127.0.0.1); a request an extension blocks never
// reaches it. What each extension did is read from the journal and from the origin's log.
import { existsSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { issueCertificate } from '../../src/engine/capture/ip-certificate.js';
import { chromium } from 'playwright-core';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { HostMap, parseHostMapping, type HostMapping } from '../../src/engine/capture/host-map.js';
import type { JournalEntry, WebRequestEntry } from '../../src/engine/journal.js';
import type { PersonaName } from '../../src/engine/personas/index.js';
import { CHROMIUM } from './chromium-probe.js';
import type { Origin } from './origin.js';
import { startProxyHarness, type ProxyHarness } from './proxy-harness.js';

/** Where Debian's packages put each extension's unpacked folder (`dpkg -L <package> | grep manifest.json`). */
export const INSTALLED = {
  'webext-ublock-origin-chromium': '/usr/share/chromium/extensions/ublock-origin',
  'webext-ublock-origin-firefox': '/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/uBlock0@raymondhill.net',
  'webext-privacy-badger': '/usr/share/webext/privacy-badger',
  'webext-lightbeam': '/usr/share/webext/lightbeam',
  'webext-bulk-media-downloader': '/usr/share/webext/bulk-media-downloader',
  'webext-foxyproxy': '/usr/share/webext/foxyproxy',
  'webext-proxy-switcher': '/usr/share/webext/proxy-switcher',
  'webext-keepassxc-browser': '/usr/share/webext/keepassxc-browser',
  'webext-browserpass': '/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/browserpass@maximbaz.com',
} as const;
export type CorpusPackage = keyof typeof INSTALLED;

/** Skipped (with a message) only where the package is missing and CI is not set: .ci/run installs them all. */
export function missing(pkg: CorpusPackage): boolean {
  const absent = !existsSync(`${INSTALLED[pkg]}/manifest.json`);
  if (absent && process.env.CI) throw new Error(`${INSTALLED[pkg]} is missing and CI is set (.ci/run installs ${pkg})`);
  if (absent) console.warn(`${pkg} is not installed (apt-get install -y ${pkg}): its corpus test is skipped`);
  return absent;
}

/** The trackers the news page pulls from, each a resource type, all on domains uBlock Origin's and Privacy Badger's bundled data block. */
export const TRACKERS = [
  { host: 'www.google-analytics.com', path: '/analytics.js', tag: 'script' },
  { host: 'stats.g.doubleclick.net', path: '/pixel.gif', tag: 'img' },
  { host: 'ad.doubleclick.net', path: '/ad.html', tag: 'iframe' },
  { host: 'b.scorecardresearch.com', path: '/beacon.js', tag: 'script' },
  { host: 'secure.adnxs.com', path: '/px', tag: 'img' },
] as const;

/** The first party: the page, its own script, image and a beacon to itself. */
export const FIRST_PARTY = 'www.news.test';

const MAPPINGS: HostMapping[] = ['*.test', ...new Set(TRACKERS.map((tracker) => tracker.host))].map((host) => parseHostMapping(`${host}:127.0.0.1`) as HostMapping);

function newsPage(port: number): string {
  const tags = TRACKERS.map(({ host, path, tag }) => (tag === 'script' ? `<script src="http://${host}:${port}${path}"></script>` : tag === 'img' ? `<img src="http://${host}:${port}${path}">` : `<iframe src="http://${host}:${port}${path}"></iframe>`)).join('\n');
  return `<!doctype html><title>news</title><h1>News</h1><img src="/own/logo.png"><script src="/own/app.js"></script>
${tags}
<script>addEventListener('load', () => { navigator.sendBeacon('/own/beacon', 'seen'); setTimeout(() => fetch('/own/done'), 300); });</script>`;
}

export interface CorpusRig {
  harness: ProxyHarness;
  host: ExtensionHost;
  origin: Origin;
  /** The request paths (host + path) the origin received. */
  received(): string[];
  /** Loads the news page in a headless Chromium browsing through wrtui, once; resolves when the page said it is done. */
  browse(): Promise<void>;
  /** The journal entries of the extension's own logs at error level, and failed loads. */
  problems(): string[];
  close(): Promise<void>;
}

/** wrtui with the installed extension `pkg` loaded unchanged under `persona`, a news origin, and --resolve for its hosts. */
export async function startCorpusRig(pkg: CorpusPackage, persona: PersonaName): Promise<CorpusRig> {
  let done: () => void = () => {};
  const received: string[] = [];
  const origin = await startDualOrigin((req, res) => {
    const where = `${String(req.headers.host ?? '').replace(/:\d+$/, '')}${req.url}`;
    received.push(where);
    if (req.url === '/own/done') done();
    if (req.url === '/') return res.writeHead(200, { 'Content-Type': 'text/html' }).end(newsPage(origin.port));
    if (req.url?.endsWith('.js')) return res.writeHead(200, { 'Content-Type': 'text/javascript' }).end('void 0;');
    if (req.url?.endsWith('.html')) return res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>ad</p>');
    res.writeHead(200, { 'Content-Type': 'image/gif' }).end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
  });
  const trackerHosts = [...new Set(TRACKERS.map((tracker) => tracker.host))];
  // Chromium upgrades the trackers' http:// to https:// (HSTS preload): the origin speaks both, with
  // a certificate wrtui (its upstream client) is told not to verify.
  const harness = await startProxyHarness({ proxy: { hostMap: new HostMap(MAPPINGS), insecureUpstreamHosts: [FIRST_PARTY, ...trackerHosts] } });
  origin.useCertificate(await issueCertificate(harness.ca, [FIRST_PARTY, ...trackerHosts]));
  const host = await ExtensionHost.start(harness.engine, { extensions: [INSTALLED[pkg]], watch: false, typeCheck: false, stateDir: harness.stateDir, persona });
  return {
    harness,
    host,
    origin,
    received: () => [...received],
    async browse() {
      const finished = new Promise<void>((resolve) => (done = resolve));
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        proxy: { server: harness.proxy.url, bypass: '<-loopback>' },
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--ignore-certificate-errors-spki-list=${harness.ca.spkiFingerprint}`],
        timeout: 60_000,
      });
      try {
        const page = await browser.newPage();
        await page.goto(`http://${FIRST_PARTY}:${origin.port}/`, { timeout: 30_000 });
        await Promise.race([finished, new Promise((_resolve, reject) => setTimeout(() => reject(new Error('the news page never said it was done')), 30_000))]);
      } finally {
        await browser.close();
      }
    },
    problems: () =>
      harness.entries
        .filter((entry) => (entry.kind === 'log' && entry.level === 'error') || (entry.kind === 'rule' && entry.action === 'failed') || (entry.kind === 'runtime' && /fault|gave up|stuck/i.test(JSON.stringify(entry))))
        .map((entry) => JSON.stringify(entry).slice(0, 400)),
    async close() {
      await host.close();
      await harness.close();
      await origin.close();
    },
  };
}

type DualOrigin = Origin & { useCertificate(certificate: { cert: string; key: string }): void };

/** An origin on 127.0.0.1 that speaks HTTP and HTTPS on one port (the first byte tells), as the news page's hosts need. */
async function startDualOrigin(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<DualOrigin> {
  const plain = http.createServer(handler);
  let secure: https.Server | undefined;
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    // Peeked in paused mode and put back, as httpolyglot does: TLS reads the socket from the start.
    socket.once('readable', () => {
      const first = socket.read() as Buffer | null;
      if (!first) return socket.destroy();
      socket.unshift(first);
      (first[0] === 0x16 && secure ? secure : plain).emit('connection', socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received: [],
    useCertificate: (certificate) => (secure = https.createServer(certificate, handler)),
    close: () =>
      new Promise<void>((resolve) => {
        plain.closeAllConnections();
        secure?.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The requests to `hostname` the journal ended, and how. */
export function endings(entries: JournalEntry[], hostname: string): { url: string; event: string; error?: string }[] {
  return entries
    .filter((entry): entry is WebRequestEntry & JournalEntry => entry.kind === 'webRequest' && (entry.event === 'onCompleted' || entry.event === 'onErrorOccurred'))
    .filter((entry) => new URL(entry.details.url).hostname === hostname)
    .map((entry) => ({ url: entry.details.url, event: entry.event, ...('error' in entry.details && { error: (entry.details as { error: string }).error }) }));
}
