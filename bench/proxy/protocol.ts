// Messages between bench/proxy.ts (the conductor) and its two kinds of child process:
//   runner.ts — one proxy (bare mockttp or wrtui's CaptureProxy with a listener set), alone in its process
//   load.ts   — the origin server and every client (small GETs, idle connections, slow stream, 1 GiB)
import type { ChildProcess } from 'node:child_process';

/** Which listeners a wrtui runner registers (see runner.ts for the exact set). */
export type ListenerSet = 'none' | 'mixed' | 'mixed-streaming' | 'completed' | 'blocking-headers' | 'mixed-workers' | 'mixed-workers-chrome' | 'mixed-workers-firefox' | 'examples' | 'stream-filter';
export type ProxyKind = 'mockttp' | 'wrtui' | 'mitmdump' | 'node-http' | 'wrtui-node-http' | 'http-mitm-proxy' | 'proxy-chain' | 'whistle';

// ── conductor ⇄ runner ──────────────────────────────────────────────────────
export type ToRunner = { type: 'usage' } | { type: 'stats' } | { type: 'stop' };
export type FromRunner =
  | { type: 'ready'; port: number; pid: number }
  /** cpuMicros: the proxy's process (for mitmdump, its own); threadCpuMicros: the proxy's main thread alone (wrtui's workers excluded). */
  | { type: 'usage'; cpuMicros: number; threadCpuMicros: number; gcMicros: number; rss: number; heapUsed: number }
  | { type: 'stats'; calls: Record<string, number>; journalWarnings: number; journalErrors: number; firstProblems: string[]; heapAfterGc: number; rss: number; costlySubscriptions: string[] }
  | { type: 'stopped' };

// ── conductor ⇄ load ────────────────────────────────────────────────────────
/** Through a proxy (its port) or straight to the origin (null). */
export type Via = number | null;

export type ToLoad =
  /** path: /small (2 B, default) or /kib (1 KiB). */
  | { type: 'run'; via: Via; warmupMs: number; ms: number; concurrency: number; requestsPerConnection: number; path?: string }
  | { type: 'open-idle'; via: Via; count: number }
  | { type: 'close-idle' }
  | { type: 'first-byte'; via: Via[] }
  | { type: 'download'; via: Via; bytes: number }
  | { type: 'usage' };

export interface RunResult {
  /** Requests answered in the measured window, by outcome. */
  ok: number;
  /** Answered "Passthrough loop detected" (a healthy request refused). */
  refusals: number;
  /** Any other non-2xx answer. */
  other: number;
  /** No answer: socket error or 10 s time-out. */
  errors: number;
  /** 2xx answers carrying the header wrtui's onHeadersReceived listener adds. */
  modifiedResponses: number;
  /** Requests the origin received in the window with the header onBeforeSendHeaders adds. */
  modifiedRequests: number;
  /** Requests the origin received in the window. */
  originRequests: number;
  ms: number;
  /** Latency of each answered request in the window, ms. */
  latencies: number[];
  firstError: string | undefined;
  /** Idle connections the far end closed before the window ended (they must stay open). */
  idleClosed: number;
  /** CPU the load process used during the window, µs (to tell whether the clients were the limit). */
  loadCpuMicros: number;
}

export interface FirstByteResult {
  via: Via;
  status: number;
  headersMs: number;
  firstByteMs: number;
  totalMs: number;
  bytes: number;
  error?: string;
}

export type FromLoad =
  | { type: 'ready'; originPort: number }
  | { type: 'measuring' }
  | { type: 'measured' }
  | ({ type: 'ran' } & RunResult)
  | { type: 'idle-open'; ok: number; refusals: number; failed: number; firstError: string | undefined }
  | { type: 'idle-closed' }
  | { type: 'first-byte'; results: FirstByteResult[] }
  | { type: 'downloaded'; status: number; bytes: number; ms: number; error?: string }
  | { type: 'usage'; cpuMicros: number };

/** Send `message` (if any) and wait for the first reply of `type`. */
export function ask<M extends { type: string }, T extends M['type']>(
  proc: ChildProcess,
  message: object | null,
  type: T,
): Promise<Extract<M, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (reply: M) => {
      if (reply.type !== type) return;
      cleanup();
      resolve(reply as Extract<M, { type: T }>);
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(new Error(`child ${proc.pid} exited (${code ?? signal}) while waiting for "${type}"`));
    };
    const cleanup = () => {
      proc.off('message', onMessage);
      proc.off('exit', onExit);
    };
    proc.on('message', onMessage);
    proc.on('exit', onExit);
    if (message) proc.send(message);
  });
}
