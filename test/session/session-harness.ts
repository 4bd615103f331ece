// Recording sessions for the tests: a real proxy (CaptureProxy with journalBodies), rules loaded
// from a folder by ExtensionHost, the SessionRecorder on the engine's journal, and an origin with the
// routes the tests need. Everything lives in one temporary folder, removed by cleanup().
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { JournalEntry } from '../../src/engine/journal.js';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { SessionRecorder } from '../../src/engine/session/session-recorder.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

export const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

/** The origin of the session tests. */
export function startTestOrigin(): Promise<Origin> {
  return startOrigin((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://origin');
    const path = url.pathname;
    if (path === '/page') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Set-Cookie': 'session=abc123; Path=/' });
      return res.end('<!doctype html><p>page</p>');
    }
    if (path === '/r') {
      res.writeHead(302, { Location: '/page', 'Content-Type': 'text/plain' });
      return res.end('moved');
    }
    if (path.startsWith('/img/')) {
      res.writeHead(200, { 'Content-Type': 'image/png' });
      return res.end(PNG);
    }
    if (path === '/form') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      return res.end(`got ${body.toString('utf8')}`);
    }
    if (path === '/api') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ cookie: req.headers.cookie ?? null }));
    }
    if (path === '/auth') {
      if (req.headers.authorization !== `Basic ${Buffer.from('tester:s3cret-pass').toString('base64')}`) {
        res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="test"', 'Content-Type': 'text/plain' });
        return res.end('who are you');
      }
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      return res.end('welcome');
    }
    if (path === '/gzip') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Encoding': 'gzip' });
      return res.end(gzipSync('compressed hello'));
    }
    if (path === '/slow-cookie') {
      setTimeout(() => {
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Set-Cookie': 'late=1; Path=/' });
        res.end('slow');
      }, Number(url.searchParams.get('ms') ?? 150));
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found');
  });
}

/** A rule file: a manifest and a background body (`chrome` is in scope). */
export function rule(name: string, body: string, manifest: Record<string, unknown> = {}): string {
  return `export const manifest = ${JSON.stringify({ name, permissions: ['webRequest', 'webRequestBlocking', 'cookies'], host_permissions: ['<all_urls>'], ...manifest })};
export default function background({ chrome }: any) {
${body}
}
`;
}

/** The rules the recordings run with: one per kind of verdict. */
export const BASE_RULES: Record<string, string> = {
  'add-header.ts': rule('add-header', `  chrome.webRequest.onBeforeSendHeaders.addListener((d: any) => ({ requestHeaders: [...d.requestHeaders, { name: 'X-Rule', value: 'yes' }] }), { urls: ['<all_urls>'] }, ['blocking', 'requestHeaders']);`),
  'block-tracker.ts': rule('block-tracker', `  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['*://*/tracker/*'] }, ['blocking']);`),
  'stamp-response.ts': rule('stamp-response', `  chrome.webRequest.onHeadersReceived.addListener((d: any) => ({ responseHeaders: [...d.responseHeaders, { name: 'X-Seen-By', value: 'wrtui' }] }), { urls: ['*://*/api*'] }, ['blocking', 'responseHeaders']);`),
  'login.ts': rule('login', `  chrome.webRequest.onAuthRequired.addListener(() => ({ authCredentials: { username: 'tester', password: 's3cret-pass' } }), { urls: ['*://*/auth*'] }, ['blocking']);`),
  'would-block-api.ts': rule('would-block-api', `  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['*://*/api*'] }, ['blocking']);`, { dryRun: true }),
};

export const NO_IMAGES_RULE = rule('no-images', `  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['<all_urls>'], types: ['image'] }, ['blocking']);`);

export interface Recording {
  dir: string;
  rulesDir: string;
  file: string;
  /** The live journal, as the harness saw it. */
  live: JournalEntry[];
  origin: Origin;
  /** A copy of the rules folder with files added (or replaced), for replays under edited rules. */
  editedRules(files: Record<string, string>): Promise<string>;
  cleanup(): Promise<void>;
}

export interface RecordOptions {
  rules?: Record<string, string>;
  redact?: boolean;
  stateDir?: string;
  /** The file's name in its folder (default session.ndjson; *.gz records compressed). */
  fileName?: string;
  /** --listener-timeout while it records (the engine's default otherwise); the recording keeps it. */
  listenerTimeoutMs?: number;
  traffic: (harness: ProxyHarness, origin: Origin) => Promise<void>;
}

/** Records `traffic` through a real proxy into `<dir>/session.ndjson` (or `fileName`). */
export async function recordSession(options: RecordOptions): Promise<Recording> {
  const dir = await mkdtemp(join(tmpdir(), 'wrtui-session-test-'));
  const rulesDir = join(dir, 'rules');
  await writeRules(rulesDir, options.rules ?? BASE_RULES);
  const origin = await startTestOrigin();
  const harness = await startProxyHarness({
    proxy: { journalBodies: true, followUpTimeoutMs: 300 },
    ...(options.listenerTimeoutMs !== undefined && { engine: { listenerTimeoutMs: options.listenerTimeoutMs } }),
  });
  const file = join(dir, options.fileName ?? 'session.ndjson');
  let host: ExtensionHost | undefined;
  try {
    host = await ExtensionHost.start(harness.engine, { rulesDir, watch: false, typeCheck: false });
    const recorder = await SessionRecorder.start(harness.engine, { file, redact: options.redact ?? false, maxBodySize: 1024 * 1024, ...(options.stateDir && { stateDir: options.stateDir }) });
    await options.traffic(harness, origin);
    // The last requests' trailing notices (onCompleted after the body) have landed.
    await settle(harness);
    await recorder.close();
  } finally {
    await host?.close();
    await harness.close();
  }
  let edits = 0;
  return {
    dir,
    rulesDir,
    file,
    live: harness.entries,
    origin,
    async editedRules(files) {
      const edited = join(dir, `rules-edited-${++edits}`);
      await cp(rulesDir, edited, { recursive: true });
      await writeRules(edited, files);
      return edited;
    },
    async cleanup() {
      await origin.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function writeRules(dir: string, files: Record<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, source] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true }); // an extension's files sit in its sub-folder
    await writeFile(join(dir, name), source);
  }
}

/** Waits until every request the harness saw has ended (onCompleted or onErrorOccurred). */
export async function settle(harness: ProxyHarness, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const started = new Set(harness.webRequestEntries((e) => e.event === 'onBeforeRequest').map((e) => e.details.requestId));
    const ended = new Set(harness.webRequestEntries((e) => e.event === 'onCompleted' || e.event === 'onErrorOccurred').map((e) => e.details.requestId));
    if ([...started].every((id) => ended.has(id))) return;
    if (Date.now() > deadline) throw new Error(`requests still open after ${timeoutMs} ms: ${[...started].filter((id) => !ended.has(id)).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
