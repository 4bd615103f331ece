// Everything a live wrtui session runs, built from the CLI's options: the engine, wrtui's CA, the
// proxy for cookie store "0" and the one for the incognito store "1". The TUI and headless mode
// both start one and subscribe to its journal.
import { resolve } from 'node:path';
import { CaptureProxy } from '../engine/capture/capture-proxy.js';
import { loadOrCreateCertificateAuthority, type CertificateAuthority } from '../engine/capture/certificate-authority.js';
import { HttpCache } from '../engine/capture/http-cache.js';
import { Engine } from '../engine/engine.js';
import { captureConsole } from './console-capture.js';

export interface SessionOptions {
  port: number;
  /** 0 turns the incognito port off. */
  incognitoPort: number;
  host: string;
  stateDir: string;
  dryRun: boolean;
  insecureUpstream: string[];
  maxBodySize: number;
  listenerTimeoutMs: number;
  /** An in-memory HTTP cache per store, flushed by handlerBehaviorChanged. */
  cache: boolean;
}

export interface CaptureSession {
  engine: Engine;
  ca: CertificateAuthority;
  proxy: CaptureProxy;
  incognitoProxy: CaptureProxy | undefined;
  /** Stops the proxies and writes the cookie store. */
  close(): Promise<void>;
}

export async function startCaptureSession(options: SessionOptions): Promise<CaptureSession> {
  const stateDir = resolve(options.stateDir);
  const engine = await Engine.open({ stateDir, dryRun: options.dryRun, listenerTimeoutMs: options.listenerTimeoutMs });
  const restoreConsole = captureConsole(engine.journal);
  const ca = await loadOrCreateCertificateAuthority(stateDir);
  for (const warning of ca.warnings) engine.journal.append({ kind: 'log', level: 'warn', source: 'ca', message: warning });

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
      ...(options.cache && { cache: cacheFor() }),
    });
  const proxy = proxyFor(options.port, '0');
  const incognitoProxy = options.incognitoPort > 0 ? proxyFor(options.incognitoPort, '1') : undefined;
  try {
    await proxy.start();
    await incognitoProxy?.start();
  } catch (error) {
    restoreConsole();
    await proxy.stop().catch(() => {});
    await engine.close();
    throw error;
  }

  let closed = false;
  return {
    engine,
    ca,
    proxy,
    incognitoProxy,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([proxy.stop(), incognitoProxy?.stop()]);
      await engine.close();
      restoreConsole();
    },
  };
}
