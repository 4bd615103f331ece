// Everything a live wrtui session runs, built from the CLI's options: the engine, wrtui's CA, the
// proxy for cookie store "0" and the one for the incognito store "1". The TUI and headless mode
// both start one and subscribe to its journal.
import { resolve } from 'node:path';
import { CaptureProxy } from '../engine/capture/capture-proxy.js';
import { loadOrCreateCertificateAuthority, type CertificateAuthority } from '../engine/capture/certificate-authority.js';
import { HttpCache } from '../engine/capture/http-cache.js';
import { Engine } from '../engine/engine.js';
import { ExtensionHost } from '../engine/extensions/extension-host.js';
import { QuickRuleset } from '../engine/rules/quick-ruleset.js';
import { ensurePrivateDir } from '../engine/private-file.js';
import type { SessionRecorder } from '../engine/session/session-recorder.js';
import { captureConsole } from './console-capture.js';
import { startRecording } from './record-session.js';
import { HostMap, parseHostMapping } from '../engine/capture/host-map.js';
import { parseUpstreamProxy, proxyIsItself, redactProxyUrl } from '../engine/capture/upstream-proxy.js';

export interface SessionOptions {
  port: number;
  /** 0 turns the incognito port off. */
  incognitoPort: number;
  host: string;
  stateDir: string;
  dryRun: boolean;
  insecureUpstream: string[];
  /** --resolve: where to connect for some hostnames. */
  resolve?: string[];
  /** --upstream-proxy: the proxy URL as given (credentials included; never shown as given). */
  upstreamProxy?: string;
  maxBodySize: number;
  listenerTimeoutMs: number;
  /** An upstream connection silent this long fails its request (net::ERR_TIMED_OUT); absent: 60 s. */
  upstreamTimeoutMs?: number;
  /** An in-memory HTTP cache per store, flushed by handlerBehaviorChanged. */
  cache: boolean;
  /** The rules folder (--rules); loaded before the proxies serve anything. */
  rulesDir: string;
  /** Reload rules on save (--no-watch turns it off). */
  watchRules: boolean;
  /** Unpacked extension folders (--extension). */
  extensions?: string[];
  /** The heap cap of each rule's or extension's worker (MB). */
  workerHeapMb?: number;
  /** --persona: the browser rules and extensions see unless their manifest says. */
  persona?: 'spec' | 'chrome' | 'firefox';
  /** --cookies: 'observe' keeps the jar out of requests (it still learns and serves the cookies API). */
  cookieMode?: 'send' | 'observe';
  /** The TUI keeps bodies to show them: the proxy journals them even without --record. */
  showBodies?: boolean;
  /** --record: the session file to write (src/engine/session/README.md). */
  record?: string;
  /** --redact / --no-redact; undefined: <state-dir>/settings.json decides (default off). */
  redact?: boolean;
  /** `wrtui browser`: the browser wrtui starts is attached, and extensions hear its tabs and navigations. */
  attachedBrowser?: boolean;
}

export interface CaptureSession {
  engine: Engine;
  ca: CertificateAuthority;
  proxy: CaptureProxy;
  incognitoProxy: CaptureProxy | undefined;
  /** The rules and extensions, each in its own worker. */
  rules: ExtensionHost;
  /** The quick rules (`w`): the rules folder's quick-rules/ ruleset, in the DNR engine, no worker. */
  quickRules: QuickRuleset;
  /** Writing the session file, with --record. */
  recorder: SessionRecorder | undefined;
  /** Stops the proxies, writes the cookie store and finishes the session file. */
  close(): Promise<void>;
}

export async function startCaptureSession(options: SessionOptions): Promise<CaptureSession> {
  const stateDir = resolve(options.stateDir);
  // The state dir holds the CA key and every cookie: a loose one (a 0755 .wrtui made by hand) is tightened, or named.
  const looseDir = await ensurePrivateDir(stateDir);
  const engine = await Engine.open({ stateDir, dryRun: options.dryRun, listenerTimeoutMs: options.listenerTimeoutMs, ...(options.cookieMode && { cookieMode: options.cookieMode }) });
  // First subscriber, so the session file has everything from start-up on.
  const recorder = await startRecording(engine, options, stateDir).catch(async (error: unknown) => {
    await engine.close();
    throw error;
  });
  if (looseDir) engine.journal.append({ kind: 'log', level: 'warn', source: 'state', message: looseDir });
  const restoreConsole = captureConsole(engine.journal);
  const ca = await loadOrCreateCertificateAuthority(stateDir);
  for (const warning of ca.warnings) engine.journal.append({ kind: 'log', level: 'warn', source: 'ca', message: warning });

  // --resolve, told once at start (each host it sends elsewhere is journaled when first used).
  const hostMap = new HostMap((options.resolve ?? []).map((text) => {
    const mapping = parseHostMapping(text);
    if (typeof mapping === 'string') throw new Error(`--resolve ${text}: ${mapping}`);
    return mapping;
  }));
  if (!hostMap.empty) engine.journal.append({ kind: 'log', level: 'info', source: 'capture', message: `--resolve: ${hostMap.mappings.map((mapping) => `${mapping.host}${mapping.port ? `:${mapping.port}` : ''} → ${mapping.address}`).join(', ')}` });

  // --upstream-proxy, told once at start; the journal never holds its credentials.
  const upstreamProxy = options.upstreamProxy === undefined ? undefined : parseUpstreamProxy(options.upstreamProxy);
  if (typeof upstreamProxy === 'string') throw new Error(`--upstream-proxy ${redactProxyUrl(options.upstreamProxy!)}: ${upstreamProxy}`);
  if (upstreamProxy) {
    const bypass = upstreamProxy.bypass.empty ? 'NO_PROXY is empty: every host goes through it' : `hosts in NO_PROXY go direct: ${upstreamProxy.bypass.text}`;
    engine.journal.append({ kind: 'log', level: 'info', source: 'capture', message: `upstream requests go through the proxy ${upstreamProxy.display} (${bypass}); names are resolved by that proxy, so --resolve applies only to hosts reached directly` });
  }

  const cacheFor = () => {
    if (!options.cache) return undefined;
    const cache = new HttpCache();
    engine.onFlush(() => cache.clear());
    return cache;
  };
  const proxyFor = (port: number, storeId: string) =>
    new CaptureProxy({
      lifecycle: engine.lifecycle,
      ca,
      port,
      host: options.host,
      storeId,
      maxBodySize: options.maxBodySize,
      insecureUpstreamHosts: options.insecureUpstream,
      ...(!hostMap.empty && { hostMap }),
      ...(upstreamProxy && { upstreamProxy }),
      ...(options.upstreamTimeoutMs !== undefined && { upstreamTimeoutMs: options.upstreamTimeoutMs }),
      ...(options.cache && { cache: cacheFor() }),
      // Bodies go into the journal for a recording, and for the TUI, which shows them.
      journalBodies: !!options.record || (options.showBodies ?? false),
    });
  // Made before the rules start (and started after them): an extension's own requests go out by the
  // default store's proxy transport, and one may fetch as soon as its top level runs.
  const proxy = proxyFor(options.port, '0');
  const incognitoProxy = options.incognitoPort > 0 ? proxyFor(options.incognitoPort, '1') : undefined;
  // Rules first, so the first request already meets them.
  const rules = await ExtensionHost.start(engine, {
    rulesDir: resolve(options.rulesDir),
    extensions: options.extensions ?? [],
    watch: options.watchRules,
    stateDir,
    ...(options.workerHeapMb !== undefined && { limits: { heapLimitMb: options.workerHeapMb } }),
    ...(options.persona && { persona: options.persona }),
    ...(options.attachedBrowser && { attachedBrowser: true }),
  });
  // Quick rules (w): declarative, no worker; after the host, whose extension-file lookup they join.
  const quickRules = await QuickRuleset.start(engine, {
    rulesDir: resolve(options.rulesDir),
    watch: options.watchRules,
    stateDir,
  });
  try {
    await proxy.start();
    await incognitoProxy?.start();
    const ports = [proxy.port, ...(incognitoProxy ? [incognitoProxy.port] : [])];
    if (upstreamProxy && proxyIsItself(upstreamProxy, options.host, ports)) {
      throw new Error(`--upstream-proxy ${upstreamProxy.display} is this wrtui itself: every request would come back to it; name the proxy wrtui should forward to`);
    }
  } catch (error) {
    restoreConsole();
    await proxy.stop().catch(() => {});
    await incognitoProxy?.stop().catch(() => {});
    await quickRules.close();
    await rules.close();
    await engine.close();
    await recorder?.close();
    throw error;
  }

  let closed = false;
  return {
    engine,
    ca,
    proxy,
    incognitoProxy,
    rules,
    quickRules,
    recorder,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([proxy.stop(), incognitoProxy?.stop()]);
      await quickRules.close();
      await rules.close();
      await engine.close();
      // Last: the requests the proxies' stop aborted are in the session file too.
      await recorder?.close();
      restoreConsole();
    },
  };
}

/** The journal's "listening" entry: the first line of headless --json, the TUI's status bar. */
export function announceListening(session: CaptureSession, options: Pick<SessionOptions, 'stateDir' | 'dryRun'>): void {
  if (session.proxy.everyInterface) {
    session.engine.journal.append({
      kind: 'log',
      level: 'warn',
      source: 'capture',
      message: `listening on every interface (--host ${session.proxy.addresses[0]}): anyone who can reach this machine can use wrtui as a proxy, with certificates from its CA`,
    });
  }
  session.engine.journal.append({
    kind: 'listening',
    url: session.proxy.url,
    addresses: session.proxy.addresses,
    ...(session.incognitoProxy && { incognitoUrl: session.incognitoProxy.url }),
    ca: session.ca.certPath,
    stateDir: options.stateDir,
    dryRun: options.dryRun,
  });
}
