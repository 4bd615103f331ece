// End to end with a real browser: Debian's Chromium, driven by playwright-core, browses a test page
// through wrtui's CaptureProxy, and the engine's journal must tell the same story an extension's
// chrome.webRequest would: one request per resource (the WebSocket included), each with the type
// Chrome reports, each reaching onCompleted; a blocking listener that cancels images really leaves
// the page without them; and the same holds over HTTPS, which Chromium speaks to the proxy as HTTP/2.
//
// Setup (FACTS.md "Tests on Node 20"):
// - The origin is node:http/https on 127.0.0.1 (test/e2e/origin.ts, pages in fixtures/e2e/).
//   Pages are loaded by http://127.0.0.1:<port>, not by a made-up host: CaptureProxy has no host
//   mapping (mockttp resolves upstream names through DNS, so app.test would fail), and Chromium
//   sends no Sec-Fetch-* on plain http:// to a host that is not potentially trustworthy, so a
//   made-up host would also test the weaker type hints instead of Chromium's real destinations.
//   Playwright forces loopback through the proxy (`--proxy-bypass-list=<-loopback>`) as long as
//   `proxy.bypass` names no loopback host.
// - HTTPS: the origin's certificate comes from wrtui's own CA, which the proxy (as upstream
//   client) does not trust: `insecureUpstreamHosts: ['127.0.0.1']`. Chromium trusts the proxy's
//   interception certificates by the CA's SPKI hash (`--ignore-certificate-errors-spki-list`).
// - Chromium's own background requests (update, accounts, autofill) also go through the proxy: a
//   blocking listener cancels every request that is not to 127.0.0.1, so the suite never reaches
//   the internet, and assertions only look at URLs under the test's own run prefix.
// - Without /usr/bin/chromium the suite is skipped with a message, except in CI (`CI` set), where
//   it fails: .ci/run installs chromium (and fonts-dejavu-core: with no font at all Chromium dies
//   before the page loads).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCA } from 'mockttp/dist/util/certificates';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CaptureProxy } from '../../src/engine/capture/capture-proxy.js';
import { loadOrCreateCertificateAuthority, type CertificateAuthority } from '../../src/engine/capture/certificate-authority.js';
import { Engine, type ExtensionApi } from '../../src/engine/engine.js';
import type { WebRequestEntry } from '../../src/engine/journal.js';
import { createTrustedOwner } from '../../src/engine/owner.js';
import type { ResourceType } from '../../src/engine/types.js';
import { startOrigin, type Origin } from './origin.js';

const CHROMIUM = '/usr/bin/chromium';
const IN_CI = Boolean(process.env.CI);
const SKIP = !existsSync(CHROMIUM) && !IN_CI;
if (SKIP) {
  console.warn(`test/e2e/browser.test.ts: SKIPPED, ${CHROMIUM} is not installed (apt-get install -y chromium fonts-dejavu-core; in CI a missing browser fails the suite instead).`);
}

// Every wait is bounded; together they stay under the test timeout. Chromium's first start on a
// loaded 2-core CI machine once took over 30 s (the suite's other workers were busy): 60 s.
const LAUNCH_TIMEOUT_MS = 60_000;
const NAVIGATION_TIMEOUT_MS = 15_000;
const ACTION_TIMEOUT_MS = 10_000;
const JOURNAL_TIMEOUT_MS = 10_000;
const TEST_TIMEOUT_MS = 45_000;


const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The requests the test page makes, by their path under the run's prefix, with the type Chrome
 * reports for each. The WebSocket's URL is ws:// (wss:// over HTTPS), as Chrome reports it.
 */
const EXPECTED_REQUESTS: readonly { method: string; file: string; type: ResourceType; status: number }[] = [
  { method: 'GET', file: 'index.html', type: 'main_frame', status: 200 },
  { method: 'GET', file: 'style.css', type: 'stylesheet', status: 200 },
  { method: 'GET', file: 'app.js', type: 'script', status: 200 },
  { method: 'GET', file: 'image.png', type: 'image', status: 200 },
  { method: 'GET', file: 'data.json', type: 'xmlhttprequest', status: 200 }, // fetch()
  { method: 'GET', file: 'font.ttf', type: 'font', status: 200 },
  { method: 'GET', file: 'frame.html', type: 'sub_frame', status: 200 },
  { method: 'GET', file: 'ws', type: 'websocket', status: 101 },
  { method: 'POST', file: 'submit', type: 'sub_frame', status: 200 }, // the iframe's form
];
const PAGE_LOAD_FILES = EXPECTED_REQUESTS.filter((request) => request.method === 'GET').map((request) => request.file);
const ALL_FILES = EXPECTED_REQUESTS.map((request) => request.file);
const FORM_DATA = { greeting: ['hello wrtui'], answer: ['42', '43'] };

/** What the page says about itself once its script settled (see fixtures/e2e/app.js). */
interface PageState {
  script?: string;
  fetch?: string;
  websocket?: string;
  font?: string;
  imageState?: string;
  imageNaturalWidth: number;
  bodyBackground: string;
  /** Width of "wrtui" in the test font: each glyph is one em (16px) wide, so 80 when it is used. */
  fontedWidth: number;
  /** The protocol Chromium spoke to the next hop (the proxy) for the document and for subresources. */
  documentProtocol: string;
  resourceProtocols: Record<string, string>;
}

// The page-side code runs in Chromium; the project's TypeScript has no DOM library, so it reaches
// the few browser globals it needs through this shape.
interface PageGlobals {
  e2e?: Record<string, unknown>;
  imageState?: string;
  document: { getElementById(id: string): { naturalWidth?: number; getBoundingClientRect(): { width: number } } | null; body: unknown };
  getComputedStyle(element: unknown): { backgroundColor: string };
  performance: { getEntriesByType(type: string): { name: string; nextHopProtocol: string }[] };
}

describe.skipIf(SKIP)(SKIP ? `browser end to end (SKIPPED: ${CHROMIUM} is not installed)` : 'browser end to end: Chromium through CaptureProxy', () => {
  let tempDir: string | undefined;
  let engine: Engine | undefined;
  let ca: CertificateAuthority;
  let origin: Origin | undefined;
  let proxy: CaptureProxy | undefined;
  let browser: Browser | undefined;
  let hermetic: ExtensionApi | undefined;
  const entries: WebRequestEntry[] = [];
  let runs = 0;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing and CI is set: the end-to-end suite must run in CI (.ci/run installs chromium with apt-get)`);
    }
    tempDir = mkdtempSync(join(tmpdir(), 'wrtui-e2e-'));
    engine = await Engine.open();
    engine.journal.subscribe((entry) => {
      if (entry.kind === 'webRequest') entries.push(entry);
    });
    ca = await loadOrCreateCertificateAuthority(tempDir);
    const leaf = await (await getCA({ cert: ca.cert, key: ca.key })).generateCertificate('127.0.0.1');
    origin = await startOrigin(leaf);
    proxy = new CaptureProxy({ lifecycle: engine.lifecycle, ca, port: 0, insecureUpstreamHosts: ['127.0.0.1'] });
    await proxy.start();

    // Keep Chromium's own traffic (component updates, accounts, autofill) off the internet.
    hermetic = engine.extensionApi(createTrustedOwner('e2e-hermetic'));
    hermetic.chrome.webRequest!.onBeforeRequest.addListener(
      (details) => (new URL(details.url).hostname === '127.0.0.1' ? undefined : { cancel: true }),
      { urls: ['<all_urls>'] },
      ['blocking'],
    );

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      timeout: LAUNCH_TIMEOUT_MS,
      proxy: { server: proxy.url },
      args: [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${ca.spkiFingerprint}`],
    });
  }, LAUNCH_TIMEOUT_MS + 15_000);

  afterAll(async () => {
    // Each step runs even when an earlier one (or beforeAll) failed: the browser is always closed.
    const steps: (() => Promise<unknown> | unknown)[] = [
      () => browser?.close(),
      () => hermetic?.dispose(),
      () => proxy?.stop(),
      () => origin?.close(),
      () => engine?.close(),
      () => tempDir && rmSync(tempDir, { recursive: true, force: true }),
    ];
    const failures: unknown[] = [];
    for (const step of steps) {
      try {
        await step();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  }, 30_000);

  /** A fresh URL prefix for one page load, so its requests are told apart from every other's. */
  function newRun(scheme: 'http' | 'https'): string {
    runs += 1;
    return `${scheme === 'http' ? origin!.httpUrl : origin!.httpsUrl}/run-${runs}/`;
  }

  /** The path of a URL under the run's prefix (http(s):// or its ws(s):// twin), or undefined. */
  function fileOf(base: string, url: string): string | undefined {
    const socketBase = base.replace(/^http/, 'ws');
    if (url.startsWith(base)) return url.slice(base.length);
    if (url.startsWith(socketBase)) return url.slice(socketBase.length);
    return undefined;
  }

  /** webRequest entries of this run's requests (URLs under its prefix), in journal order. */
  function entriesOf(base: string, event?: string): WebRequestEntry[] {
    return entries.filter((entry) => fileOf(base, entry.details.url) !== undefined && (event === undefined || entry.event === event));
  }

  function eventsOf(requestId: string): WebRequestEntry[] {
    return entries.filter((entry) => entry.details.requestId === requestId);
  }

  async function withPage<T>(use: (page: Page) => Promise<T>): Promise<T> {
    const context: BrowserContext = await browser!.newContext();
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(ACTION_TIMEOUT_MS);
      page.setDefaultNavigationTimeout(NAVIGATION_TIMEOUT_MS);
      return await use(page);
    } finally {
      await context.close();
    }
  }

  /** Loads the test page and waits until its script has settled everything it started. */
  async function loadTestPage(page: Page, base: string): Promise<PageState> {
    const response = await page.goto(`${base}index.html`);
    expect(response?.status()).toBe(200);
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).e2e?.settled === true);
    return page.evaluate((): PageState => {
      const w = globalThis as unknown as PageGlobals;
      const e2e = w.e2e ?? {};
      const text = (key: string): string | undefined => (typeof e2e[key] === 'string' ? (e2e[key] as string) : undefined);
      const resources: Record<string, string> = {};
      for (const entry of w.performance.getEntriesByType('resource')) resources[entry.name.slice(entry.name.lastIndexOf('/') + 1)] = entry.nextHopProtocol;
      return {
        script: text('script'),
        fetch: text('fetch'),
        websocket: text('websocket'),
        font: text('font'),
        imageState: w.imageState,
        imageNaturalWidth: w.document.getElementById('image')?.naturalWidth ?? -1,
        bodyBackground: w.getComputedStyle(w.document.body).backgroundColor,
        fontedWidth: w.document.getElementById('fonted')?.getBoundingClientRect().width ?? -1,
        documentProtocol: w.performance.getEntriesByType('navigation')[0]?.nextHopProtocol ?? '',
        resourceProtocols: resources,
      };
    });
  }

  /** Submits the iframe's form (a POST navigation of the subframe) and waits for the answer. */
  async function submitFrameForm(page: Page): Promise<void> {
    const frame = page.frameLocator('#frame');
    await frame.locator('#send').click();
    await frame.locator('#done').waitFor();
  }

  /** Waits until every expected request of the run has finished in the journal. */
  async function waitForJournal(base: string, files: readonly string[]): Promise<void> {
    await vi.waitFor(
      () => {
        const finished = new Set(
          entriesOf(base)
            .filter((entry) => entry.event === 'onCompleted' || entry.event === 'onErrorOccurred')
            .map((entry) => fileOf(base, entry.details.url)),
        );
        const missing = files.filter((file) => !finished.has(file));
        if (missing.length > 0) throw new Error(`no onCompleted/onErrorOccurred yet for ${missing.join(', ')}`);
      },
      { timeout: JOURNAL_TIMEOUT_MS, interval: 50 },
    );
  }

  /** Every request of the page journaled once with Chrome's type, each ending in onCompleted. */
  function expectEveryRequestJournaled(base: string): void {
    const before = entriesOf(base, 'onBeforeRequest');
    const seen = before.map((entry) => `${entry.details.method} ${fileOf(base, entry.details.url)} → ${entry.details.type}`).sort();
    expect(seen).toEqual(EXPECTED_REQUESTS.map(({ method, file, type }) => `${method} ${file} → ${type}`).sort());

    for (const entry of before) {
      const events = eventsOf(entry.details.requestId);
      expect(events.map((other) => other.event), `events of ${entry.details.url}`).toEqual(['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onResponseStarted', 'onCompleted']);
      const status = EXPECTED_REQUESTS.find((request) => request.file === fileOf(base, entry.details.url))!.status;
      expect(events.at(-1)!.details, `onCompleted of ${entry.details.url}`).toMatchObject({ statusCode: status, type: entry.details.type, url: entry.details.url });
    }

    const socket = before.find((entry) => entry.details.type === 'websocket');
    expect(socket?.details.url).toBe(`${base.replace(/^http/, 'ws')}ws`);

    const post = before.find((entry) => entry.details.method === 'POST');
    expect(post?.details).toMatchObject({ type: 'sub_frame', frameId: 1, parentFrameId: 0 });
    expect('requestBody' in post!.details && post!.details.requestBody).toEqual({ formData: FORM_DATA });
    const main = before.find((entry) => entry.details.type === 'main_frame');
    expect(main?.details).toMatchObject({ url: `${base}index.html`, frameId: 0, parentFrameId: -1 });
  }

  /** The page rendered everything it asked for. */
  function expectPageComplete(state: PageState, { image }: { image: boolean }): void {
    expect(state.script).toBe('ran');
    expect(state.bodyBackground).toBe('rgb(1, 2, 3)'); // style.css applied
    expect(state.fetch).toBe('hello from data.json');
    expect(state.font).toBe('loaded');
    expect(state.fontedWidth).toBeCloseTo(80, 0); // the text is really set in the test font
    expect(state.websocket).toBe('hello over websocket');
    if (image) {
      expect(state.imageState).toBe('loaded');
      expect(state.imageNaturalWidth).toBe(1);
    } else {
      expect(state.imageState).toBe('error');
      expect(state.imageNaturalWidth).toBe(0);
    }
  }

  it('journals every request of a page with the type Chrome reports, each reaching onCompleted (http)', async () => {
    const base = newRun('http');
    const state = await withPage(async (page) => {
      const loaded = await loadTestPage(page, base);
      await submitFrameForm(page);
      return loaded;
    });
    expectPageComplete(state, { image: true });
    expect(origin!.log.websockets.map((ws) => ws.url)).toContain(`/run-${runs}/ws`);
    expect(origin!.log.posts).toContainEqual({ url: `/run-${runs}/submit`, body: 'greeting=hello+wrtui&answer=42&answer=43' });

    await waitForJournal(base, ALL_FILES);
    expectEveryRequestJournaled(base);
  }, TEST_TIMEOUT_MS);

  it('a blocking listener cancelling images leaves the page without its image, and everything else loaded', async () => {
    const blocker = engine!.extensionApi(createTrustedOwner('e2e-block-images'));
    blocker.chrome.webRequest!.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['<all_urls>'], types: ['image'] }, ['blocking']);
    const base = newRun('http');
    let state: PageState;
    try {
      state = await withPage((page) => loadTestPage(page, base));
    } finally {
      blocker.dispose();
    }
    expectPageComplete(state, { image: false });

    await waitForJournal(base, PAGE_LOAD_FILES);
    // Chromium may retry a GET whose reused connection was reset: every attempt must be blocked.
    const imageRequests = entriesOf(base, 'onBeforeRequest').filter((entry) => entry.details.type === 'image');
    expect(imageRequests.length).toBeGreaterThanOrEqual(1);
    for (const request of imageRequests) {
      expect(request.details.url).toBe(`${base}image.png`);
      expect(request.outcomes).toContainEqual(expect.objectContaining({ owner: 'e2e-block-images', status: 'applied', response: { cancel: true } }));
      const events = eventsOf(request.details.requestId);
      expect(events.map((entry) => entry.event)).toEqual(['onBeforeRequest', 'onErrorOccurred']);
      expect(events[1]!.details).toMatchObject({ error: 'net::ERR_BLOCKED_BY_CLIENT', type: 'image' });
    }
    expect(origin!.log.requests.map((request) => request.url)).not.toContain(`/run-${runs}/image.png`);

    // Everything else completed as usual.
    const others = entriesOf(base, 'onBeforeRequest').filter((entry) => entry.details.type !== 'image');
    expect(others.map((entry) => entry.details.type).sort()).toEqual(['font', 'main_frame', 'script', 'stylesheet', 'sub_frame', 'websocket', 'xmlhttprequest']);
    for (const entry of others) {
      expect(eventsOf(entry.details.requestId).map((other) => other.event), `events of ${entry.details.url}`).toContain('onCompleted');
    }
  }, TEST_TIMEOUT_MS);

  it('over HTTPS (intercepted with wrtui’s CA, HTTP/2 to the proxy) the same page is journaled the same way', async () => {
    const base = newRun('https');
    const state = await withPage(async (page) => {
      const loaded = await loadTestPage(page, base);
      await submitFrameForm(page);
      return loaded;
    });
    expectPageComplete(state, { image: true });
    // mockttp offers h2 by ALPN and Chromium takes it (the WebSocket stays HTTP/1.1 in its own tunnel).
    expect(state.documentProtocol).toBe('h2');
    for (const file of ['style.css', 'app.js', 'image.png', 'data.json', 'font.ttf', 'frame.html']) {
      expect(state.resourceProtocols[file], file).toBe('h2');
    }

    await waitForJournal(base, ALL_FILES);
    expectEveryRequestJournaled(base);
    // The WebSocket's ip is checked by its own (skipped) test below.
    const ips = Object.fromEntries(entriesOf(base, 'onCompleted').filter((entry) => entry.details.type !== 'websocket').map((entry) => [fileOf(base, entry.details.url), 'ip' in entry.details ? entry.details.ip : undefined]));
    expect(ips).toEqual(Object.fromEntries(ALL_FILES.filter((file) => file !== 'ws').map((file) => [file, '127.0.0.1'])));
  }, TEST_TIMEOUT_MS);

  it('a WebSocket’s onCompleted carries the ip the proxy connected to, like every other request', async () => {
    const base = newRun('http');
    await withPage((page) => loadTestPage(page, base));
    await waitForJournal(base, ['ws']);
    const socket = entriesOf(base, 'onCompleted').find((entry) => entry.details.type === 'websocket');
    expect(socket?.details).toMatchObject({ statusCode: 101, ip: '127.0.0.1' });
  }, TEST_TIMEOUT_MS);
});
