// A real capture session for tests: an Engine, wrtui's CA in a temp dir, a CaptureProxy on
// 127.0.0.1, and clients (undici, curl) pointed at it. Everything is torn down by close(), which
// then checks the journal's invariants (journal-invariants.ts) and throws if one is broken.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ProxyAgent, request, type Dispatcher } from 'undici';
import { CaptureProxy, type CaptureProxyOptions } from '../../src/engine/capture/capture-proxy.js';
import { loadOrCreateCertificateAuthority, type CertificateAuthority } from '../../src/engine/capture/certificate-authority.js';
import { Engine, type EngineOptions } from '../../src/engine/engine.js';
import type { JournalEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { createTrustedOwner, type Owner } from '../../src/engine/owner.js';
import { assertJournalInvariants } from './journal-invariants.js';

const execFileAsync = promisify(execFile);

export type FetchOptions = { method?: Dispatcher.HttpMethod; headers?: Record<string, string | string[]>; body?: string | Buffer };

export interface ProxyHarness {
  engine: Engine;
  proxy: CaptureProxy;
  ca: CertificateAuthority;
  stateDir: string;
  entries: JournalEntry[];
  /** The chrome/browser namespaces of an owner with every permission. */
  api(owner?: Owner | string): ReturnType<Engine['extensionApi']>;
  /** undici through the proxy (plain http without CONNECT, https through CONNECT trusting wrtui's CA). */
  fetch(url: string, options?: FetchOptions): ReturnType<typeof request>;
  /** curl through the proxy; resolves with stdout, the exit code and stderr. */
  curl(args: string[]): Promise<{ stdout: string; stderr: string; code: number }>;
  webRequestEntries(filter?: (entry: WebRequestEntry) => boolean): WebRequestEntry[];
  /** The events of one request, in order. */
  events(requestId: string): string[];
  /** Resolves when an entry matching `test` has been journaled. */
  waitFor(test: (entry: JournalEntry) => boolean, timeoutMs?: number): Promise<JournalEntry>;
  close(): Promise<void>;
}

export async function startProxyHarness(
  options: { engine?: EngineOptions; proxy?: Partial<CaptureProxyOptions> } = {},
): Promise<ProxyHarness> {
  const stateDir = await mkdtemp(join(tmpdir(), 'wrtui-proxy-'));
  const engine = await Engine.open({ ...options.engine });
  const ca = await loadOrCreateCertificateAuthority(stateDir);
  const proxy = new CaptureProxy({ lifecycle: engine.lifecycle, ca, port: 0, ...options.proxy });
  await proxy.start();
  const entries: JournalEntry[] = [];
  const waiters = new Set<{ test: (entry: JournalEntry) => boolean; resolve: (entry: JournalEntry) => void }>();
  engine.journal.subscribe((entry) => {
    entries.push(entry);
    for (const waiter of waiters) {
      if (waiter.test(entry)) {
        waiters.delete(waiter);
        waiter.resolve(entry);
      }
    }
  });
  const plainAgent = new ProxyAgent({ uri: proxy.url, proxyTunnel: false });
  const tlsAgent = new ProxyAgent({ uri: proxy.url, requestTls: { ca: ca.cert } });

  const harness: ProxyHarness = {
    engine,
    proxy,
    ca,
    stateDir,
    entries,
    api: (owner = 'test-rule') => engine.extensionApi(typeof owner === 'string' ? createTrustedOwner(owner) : owner),
    fetch: (url, init = {}) => request(url, { ...init, dispatcher: url.startsWith('https:') ? tlsAgent : plainAgent } as Parameters<typeof request>[1]),
    async curl(args) {
      try {
        const { stdout, stderr } = await execFileAsync('curl', ['-sS', '--max-time', '10', '-x', proxy.url, '--cacert', ca.certPath, ...args], { encoding: 'utf8' });
        return { stdout, stderr, code: 0 };
      } catch (error) {
        const failure = error as { stdout: string; stderr: string; code: number };
        return { stdout: failure.stdout, stderr: failure.stderr, code: failure.code };
      }
    },
    webRequestEntries: (filter = () => true) =>
      entries.filter((entry): entry is WebRequestEntry & JournalEntry => entry.kind === 'webRequest' && filter(entry)),
    events: (requestId) => harness.webRequestEntries((entry) => entry.details.requestId === requestId).map((entry) => entry.event),
    waitFor(test, timeoutMs = 5000) {
      const found = entries.find(test);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = { test, resolve: (entry: JournalEntry) => (clearTimeout(timer), resolve(entry)) };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching journal entry within ${timeoutMs} ms; last entries:\n${entries.slice(-8).map((e) => JSON.stringify(e).slice(0, 300)).join('\n')}`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    async close() {
      await Promise.allSettled([plainAgent.close(), tlsAgent.close()]);
      await proxy.stop();
      await engine.close();
      await rm(stateDir, { recursive: true, force: true });
      // Whatever the test did, the journal it left must be sound (every request ended once, nothing after).
      assertJournalInvariants(entries);
    },
  };
  return harness;
}

/** The requestId of the first request journaled for a URL. */
export function requestIdOf(harness: ProxyHarness, url: string): string {
  const entry = harness.webRequestEntries((e) => e.event === 'onBeforeRequest' && e.details.url === url)[0];
  if (!entry) throw new Error(`no request for ${url}`);
  return entry.details.requestId;
}

/** Resolves when the request reached onCompleted or onErrorOccurred. */
export function finished(harness: ProxyHarness, requestId: string): Promise<JournalEntry> {
  return harness.waitFor((e) => e.kind === 'webRequest' && e.details.requestId === requestId && (e.event === 'onCompleted' || e.event === 'onErrorOccurred'));
}
