// Before a CONNECT is answered 200, its target is checked as a proxy should (mitmproxy's default
// "eager" connection strategy does the same): a malformed authority is a 400, a target that cannot
// be reached (refused, unresolvable, silent) a 502 naming the net::ERR_*. A target reached in the
// last minute is not checked again, so a browser's parallel tunnels to one site cost one probe.
import { lookup as systemLookup } from 'node:dns';
import { isIP, connect, type Socket } from 'node:net';
import type { HostMap } from './host-map.js';

export interface Authority {
  host: string;
  port: number;
}

/** `host:port` (IPv6 in brackets) as a CONNECT names it; undefined when it is not one. */
export function parseAuthority(target: string | undefined): Authority | undefined {
  if (!target) return undefined;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:/?#[\]@]+)):(\d{1,5})$/.exec(target);
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return undefined;
  const host = match[1] ?? match[2]!;
  if (match[1] !== undefined && isIP(host) !== 6) return undefined;
  // A name: letters, digits, hyphens, dots (and underscores, which real names carry).
  if (match[2] !== undefined && isIP(host) === 0 && !/^[a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*\.?$/.test(host)) return undefined;
  return { host, port };
}

export function authorityText({ host, port }: Authority): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

const REACHED_TTL_MS = 60_000;

/** How long a target that could not be reached is taken as such, for the request inside its tunnel. */
const FAILED_TTL_MS = 10_000;

/** The upstream proxy, for targets reached through it (upstream-transport.ts). */
export interface TunnelVia {
  proxies(hostname: string, port: number): boolean;
  tunnel(hostname: string, port: number, timeoutMs: number): Promise<Socket>;
}

export class TunnelCheck {
  readonly #timeoutMs: number;
  readonly #reached = new Map<string, number>();
  readonly #failed = new Map<string, { error: Error; at: number }>();

  readonly #hostMap: HostMap | undefined;
  readonly #via: TunnelVia | undefined;

  /** With `via`, a target the upstream proxy serves is checked by opening a tunnel through it. */
  constructor(options: { timeoutMs: number; hostMap?: HostMap; via?: TunnelVia }) {
    this.#timeoutMs = options.timeoutMs;
    this.#hostMap = options.hostMap;
    this.#via = options.via;
  }

  /** Resolves once a TCP connection to the target could be opened; rejects with the socket's error. */
  async reach(authority: Authority): Promise<void> {
    const key = authorityText(authority);
    const at = this.#reached.get(key);
    if (at !== undefined && performance.now() - at < REACHED_TTL_MS) return;
    if (this.#via?.proxies(authority.host, authority.port)) {
      const socket = await this.#via.tunnel(authority.host, authority.port, this.#timeoutMs).catch((error: Error) => {
        this.#remember(key, error);
        throw error;
      });
      socket.destroy();
      this.#reachedNow(key);
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const mapped = this.#hostMap?.find(authority.host, authority.port);
      const socket = connect({ host: authority.host, port: authority.port, ...(mapped && { lookup: this.#hostMap!.lookupFor(authority.port, systemLookup) }) });
      socket.setTimeout(this.#timeoutMs, () => socket.destroy(Object.assign(new Error(`connecting to ${key} timed out`), { code: 'ETIMEDOUT' })));
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', (error) => {
        this.#remember(key, error);
        reject(error);
      });
    });
    this.#reachedNow(key);
  }

  #remember(key: string, error: Error): void {
    if (this.#failed.size > 1000) this.#failed.clear();
    this.#failed.set(key, { error, at: performance.now() });
  }

  #reachedNow(key: string): void {
    if (this.#reached.size > 1000) this.#reached.clear();
    this.#reached.set(key, performance.now());
    this.#failed.delete(key);
  }

  /**
   * Why `host:port` could not be reached by a check in the last 10 s, if it could not: the request
   * inside a tunnel granted anyway fails with that at once, instead of waiting for it a second time.
   */
  recentFailure(host: string, port: number): Error | undefined {
    // Asked for every upstream request: nothing to build or look up while no check has failed.
    if (this.#failed.size === 0) return undefined;
    const key = authorityText({ host, port });
    const failed = this.#failed.get(key);
    if (failed && performance.now() - failed.at < FAILED_TTL_MS) return failed.error;
    if (failed) this.#failed.delete(key);
    return undefined;
  }
}
