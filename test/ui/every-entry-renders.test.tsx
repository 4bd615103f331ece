// Every shape a journal entry takes draws in every view and every detail tab, live and replayed.
// The session is real traffic through wrtui's proxy: declarativeNetRequest block, redirect and
// header changes beside a blocking listener that answers later (the shape that crashed the TUI),
// listeners' cancel, redirects (to a URL, to data:, on the response), a listener that throws, a
// dry-run rule, auth answered by a listener, a refused connection, --cache hits, a breakpoint
// (answered, and one still paused), an extension's own request, a server redirect followed and
// not followed, a client that left, bodies, cookies, handlerBehaviorChanged, the extension host's
// rule and runtime entries.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpCache } from '../../src/engine/capture/http-cache.js';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { createTrustedOwner } from '../../src/engine/owner.js';
import type { BlockingResponse } from '../../src/engine/types.js';
import type { JournalEntry } from '../../src/engine/journal.js';
import { DETAIL_TAB_TITLES, detailTabsFor } from '../../src/ui/detail/detail-tabs.js';
import { createReplayBackend } from '../../src/ui/replay-backend.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { finished, startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';
import { startProxyScreen, type ProxyScreen } from './proxy-screen.js';
import { KEYS } from './ui-harness.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function originHandler(): Parameters<typeof startOrigin>[0] {
  return (req, res) => {
    const url = req.url ?? '/';
    if (url === '/auth') {
      if (req.headers.authorization) return res.end('welcome');
      return res.writeHead(401, { 'www-authenticate': 'Basic realm="wrtui"' }).end('who are you');
    }
    if (url === '/cached') return res.writeHead(200, { 'cache-control': 'max-age=600', etag: '"v1"', 'content-type': 'text/plain' }).end('cached body');
    if (url === '/cookie') return res.writeHead(200, { 'set-cookie': 'session=abc; Path=/' }).end('cookie set');
    if (url === '/server-redirect' || url === '/not-followed') return res.writeHead(302, { location: '/target' }).end();
    if (url === '/broken') return res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"broken"}');
    if (url === '/page') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><p>hi</p></body></html>');
    return res.writeHead(200, { 'content-type': 'text/plain', 'x-origin': 'yes' }).end(`origin ${url}`);
  };
}

/** A closed port on loopback: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The session: every kind of request and entry, made through the real proxy while `screen` draws it. */
async function makeSession(h: ProxyHarness, origin: Origin, screen: ProxyScreen): Promise<{ releasePaused: () => Promise<void> }> {
  const at = (p: string) => `${origin.url}${p}`;
  const curl = (p: string, args: string[] = []) => h.curl(['-s', '-o', '/dev/null', ...args, at(p)]);

  await h.engine.dnr.addExtension({
    extensionId: 'abcdefghijklmnopabcdefghijklmnop',
    name: 'DNR Rules',
    baseUrl: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/',
    rulesets: [{ id: 'main', path: 'rules.json', enabled: true, rules: [
      { id: 1, action: { type: 'block' }, condition: { urlFilter: '/dnr/block' } },
      { id: 2, action: { type: 'redirect', redirect: { transform: { path: '/dnr/target' } } }, condition: { urlFilter: '/dnr/moved' } },
      { id: 3, action: { type: 'modifyHeaders', requestHeaders: [{ header: 'x-dnr', operation: 'set', value: '1' }], responseHeaders: [{ header: 'x-origin', operation: 'remove' }] }, condition: { urlFilter: '/dnr/headers' } },
    ] }],
  });
  const all = { urls: ['<all_urls>'] };
  // A blocking listener that answers through a Promise, beside the rules: what the crash needed.
  h.api('beside-dnr').chrome.webRequest!.onBeforeRequest.addListener(async () => undefined, all, ['blocking']);
  const rules = h.api('rules').chrome.webRequest!;
  rules.onBeforeRequest.addListener((details) => {
    const { pathname } = new URL(details.url);
    if (pathname === '/cancel') return { cancel: true };
    if (pathname === '/moved') return { redirectUrl: at('/target') };
    if (pathname === '/to-data') return { redirectUrl: 'data:text/plain;base64,aGk=' };
    if (pathname === '/throws') throw new Error('a rule that throws');
    return undefined;
  }, all, ['blocking']);
  rules.onHeadersReceived.addListener((details) => (new URL(details.url).pathname === '/on-response' ? { redirectUrl: at('/target') } : undefined), all, ['blocking']);
  rules.onAuthRequired.addListener(() => ({ authCredentials: { username: 'user', password: 'secret' } }), all, ['blocking']);
  h.engine.extensionApi(createTrustedOwner('dry', { dryRun: true })).chrome.webRequest!.onBeforeRequest.addListener((details) => (details.url.endsWith('/dry') ? { cancel: true } : undefined), all, ['blocking']);
  await rules.handlerBehaviorChanged();
  h.engine.journal.append({ kind: 'listening', url: h.proxy.url });

  for (const p of ['/dnr/block', '/dnr/moved', '/dnr/headers', '/cancel', '/moved', '/to-data', '/on-response', '/throws', '/dry', '/auth', '/cookie', '/broken', '/page']) await curl(p, ['-L']);
  await curl('/cached');
  await curl('/cached'); // fresh in the cache: fromCache
  await curl('/server-redirect', ['-L']);
  await curl('/not-followed'); // the client takes the 302: the request ends unfollowed
  await h.waitFor((entry) => entry.kind === 'webRequest' && entry.ending === 'redirect-not-followed');
  await curl('/form', ['-d', 'a=1&b=two']);
  await h.curl(['-s', '-o', '/dev/null', `http://127.0.0.1:${await closedPort()}/refused`]);

  // A client that leaves while a listener thinks.
  let answerSlow!: (response: BlockingResponse) => void;
  const slowAsked = new Promise<void>((asked) => {
    h.api('slow').chrome.webRequest!.onBeforeRequest.addListener((details) => {
      if (!details.url.endsWith('/left')) return undefined;
      asked();
      return new Promise<BlockingResponse>((resolve) => (answerSlow = resolve));
    }, all, ['blocking']);
  });
  const socket = net.connect(h.proxy.port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(`GET ${at('/left')} HTTP/1.1\r\nHost: ${new URL(origin.url).host}\r\n\r\n`);
  await slowAsked;
  socket.destroy();
  await h.waitFor((entry) => entry.kind === 'webRequest' && entry.event === 'onErrorOccurred' && entry.details.url === at('/left'));
  answerSlow({ redirectUrl: at('/target') });

  // Breakpoints: one answered (cancelled), one still paused while the screen is drawn.
  const breakpoints = screen.backend.breakpoints!;
  breakpoints.set({ stage: 'onBeforeRequest', description: 'path:/paused', matches: (details) => details.url.includes('/paused') });
  const cancelled = curl('/paused-cancel');
  await expect.poll(() => breakpoints.paused().length).toBe(1);
  breakpoints.answer(breakpoints.paused()[0]!.requestId, { cancel: true });
  await cancelled;
  const stillPaused = curl('/paused');
  await expect.poll(() => breakpoints.paused().length).toBe(1);
  await screen.waitFor('PAUSED');
  return {
    async releasePaused() {
      breakpoints.releaseAll();
      await stillPaused;
    },
  };
}

/** Visits every request's every tab, then every view; returns what did not draw as it should. */
async function drawEverything(screen: ProxyScreen, tabs: readonly string[]): Promise<{ visited: number; problems: string[] }> {
  const problems: string[] = [];
  const check = (what: string, frame: string, expected: (string | RegExp)[]) => {
    if (frame.includes('failed to draw')) problems.push(`${what}: a pane failed to draw:\n${frame}`);
    for (const text of expected) if (!(typeof text === 'string' ? frame.includes(text) : text.test(frame))) problems.push(`${what}: ${String(text)} is not drawn:\n${frame}`);
  };
  const records = screen.store.visible();
  await screen.press('g', KEYS.enter);
  let visited = 0;
  for (const [index, record] of records.entries()) {
    for (const tab of tabs) {
      const shown = new RegExp(`\\[${tab}\\].*#${record.requestId}(?!\\d)`);
      const frame = await screen.waitFor((text) => shown.test(text) || text.includes('failed to draw') || !text.includes(' Requests '), 2000).catch((error: Error) => error.message);
      check(`request #${record.requestId} (${record.firstUrl}) ${tab}`, frame, [shown]);
      visited++;
      await screen.press(KEYS.tab);
    }
    if (index < records.length - 1) await screen.press('n');
  }
  await screen.press(KEYS.escape);
  for (const [key, title] of [['2', ' Cookies '], ['3', ' Rules '], ['4', ' Log '], ['?', 'wrtui']] as const) {
    await screen.press(key);
    check(`view ${key}`, await screen.waitFor(title).catch((error: Error) => error.message), [title]);
    if (key === '?') await screen.press('?');
  }
  await screen.press('1');
  check('requests view', await screen.waitFor(' Requests ').catch((error: Error) => error.message), [' Requests ']);
  return { visited, problems };
}

describe('every journal entry shape draws in every view and tab', () => {
  it('a live session of every kind of request, then the same journal replayed (with its Diff tab)', { timeout: 120_000 }, async () => {
    const origin = await startOrigin(originHandler());
    cleanups.push(() => origin.close());
    const h = await startProxyHarness({ proxy: { cache: new HttpCache(), journalBodies: true, followUpTimeoutMs: 300 } });
    cleanups.push(() => h.close());

    // An extension that fetches at start-up: its own request, and the host's rule and runtime entries.
    const folder = await mkdtemp(path.join(tmpdir(), 'wrtui-every-entry-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    await writeFile(path.join(folder, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'Beacon Maker', version: '1', host_permissions: ['<all_urls>'], background: { service_worker: 'sw.js' } }));
    await writeFile(path.join(folder, 'sw.js'), `fetch(${JSON.stringify(`${origin.url}/beacon`)});`);
    const host = await ExtensionHost.start(h.engine, { extensions: [folder], watch: false, typeCheck: false, stateDir: h.stateDir });
    cleanups.push(() => host.close());
    const beacon = await h.waitFor((entry) => entry.kind === 'webRequest' && entry.details.url === `${origin.url}/beacon`);
    await finished(h, (beacon as JournalEntry & { details: { requestId: string } }).details.requestId);

    const rules = { list: () => host.rules(), onChange: (listener: () => void) => host.onChange(listener), reload: (name: string) => host.reload(name), setDryRun: (name: string, on: boolean) => host.setDryRun(name, on) };
    const live = await startProxyScreen({ harness: h, backend: (backend) => ({ ...backend, rules }) });
    cleanups.push(() => live.close());
    const { releasePaused } = await makeSession(h, origin, live);
    cleanups.push(releasePaused);
    const kinds = new Set(h.entries.map((entry) => entry.kind));
    expect([...kinds].sort()).toEqual(['body', 'cookieChanged', 'dnr', 'handlerBehaviorChanged', 'listening', 'log', 'rule', 'runtime', 'webRequest']);
    expect(live.store.visible()).toHaveLength(23); // a redirect's hops are one request

    const liveTabs = detailTabsFor('live').map((tab) => DETAIL_TAB_TITLES[tab]);
    const drawn = await drawEverything(live, liveTabs);
    expect(drawn.problems).toEqual([]);
    expect(drawn.visited).toBe(live.store.visible().length * liveTabs.length);

    const replay = await startProxyScreen({
      harness: h,
      backend: () =>
        createReplayBackend({
          file: 'session.ndjson',
          entries: () => h.entries,
          stateDir: h.stateDir,
          writeToTerminal: () => {},
          requests: live.store.visible().length,
          running: () => false,
          run: () => undefined,
          onRunChange: () => () => {},
          rerun: async () => {},
          dryRun: { get: () => false, set: () => {}, setFor: () => {} },
        }),
    });
    cleanups.push(() => replay.close());
    const replayTabs = detailTabsFor('replay').map((tab) => DETAIL_TAB_TITLES[tab]);
    const replayed = await drawEverything(replay, replayTabs);
    expect(replayed.problems).toEqual([]);
    expect(replayed.visited).toBe(replay.store.visible().length * replayTabs.length);
  });
});
