// `--upstream-proxy URL`: wrtui's own upstream connections go through another proxy, as a browser
// behind a corporate proxy does. An HTTP or HTTPS proxy (the proxy itself reached over TLS), with
// credentials as `user:password@` (sent as Basic Proxy-Authorization, never shown: every text
// that names the proxy uses `display`, which hides them). Plain http requests are sent to the
// proxy in absolute form; https, and WebSockets of either scheme, go through a CONNECT tunnel, as
// Chromium does. Hosts that NO_PROXY names are connected to directly. Parsing, NO_PROXY matching
// and opening a tunnel live here; upstream-transport.ts decides per request.
import { BlockList, connect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface UpstreamProxy {
  protocol: 'http:' | 'https:';
  /** The proxy's hostname or address (an IPv6 address without brackets). */
  host: string;
  port: number;
  /** `Basic …` for the Proxy-Authorization header, when the URL had credentials. */
  authorization?: string;
  /** The proxy's URL with any credentials replaced by `***`: for the journal, the status bar, errors. */
  display: string;
  /** Hosts reached directly (NO_PROXY). */
  bypass: NoProxy;
}

/** `text` with the credentials of a URL (`user:pass@`) replaced by `***@`. */
export function redactProxyUrl(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^@/?#]*@/i, (_, scheme: string | undefined) => `${scheme ?? ''}***@`);
}

/**
 * `--upstream-proxy`'s value, or what is wrong with it in words (never repeating the credentials).
 * A URL without a scheme is taken as http (`proxy.corp:3128`), as curl does; the port defaults to
 * the scheme's (80, 443), as Chromium's proxy settings do.
 */
export function parseUpstreamProxy(text: string, noProxy: string = process.env.NO_PROXY ?? process.env.no_proxy ?? ''): UpstreamProxy | string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return 'must be a proxy URL, e.g. http://proxy.corp:3128 or http://user:password@proxy.corp:3128';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `must be an http:// or https:// proxy (${url.protocol.slice(0, -1)} proxies are not supported)`;
  }
  if (url.hostname === '') return 'must name the proxy host, e.g. http://proxy.corp:3128';
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') return 'must be the proxy only (scheme, credentials, host, port), without a path';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  const credentials = url.username !== '' || url.password !== '';
  return {
    protocol: url.protocol,
    host,
    port,
    ...(credentials && { authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}` }),
    display: `${url.protocol}//${credentials ? '***@' : ''}${url.host}`,
    bypass: new NoProxy(noProxy),
  };
}

type Bypass = { kind: 'all' } | { kind: 'name'; name: string; port?: number } | { kind: 'ip'; block: BlockList; family: 'ipv4' | 'ipv6'; port?: number };

/**
 * NO_PROXY as curl and most tools read it: a comma- or space-separated list of `*` (every host),
 * host names (which cover their subdomains; a leading `.` or `*.` is the same), IP addresses and
 * CIDR ranges, each optionally with `:port`. Case and one trailing dot of a name are ignored.
 */
export class NoProxy {
  readonly #entries: Bypass[] = [];
  /** The list as given, for messages. */
  readonly text: string;

  constructor(text: string) {
    this.text = text.trim();
    for (const raw of text.split(/[\s,]+/)) {
      const entry = raw.trim().toLowerCase();
      if (entry === '') continue;
      const parsed = parseEntry(entry);
      if (parsed) this.#entries.push(parsed);
    }
  }

  get empty(): boolean {
    return this.#entries.length === 0;
  }

  /** Whether a connection to `hostname:port` goes direct (hostname lower case, IPv6 without brackets). */
  bypasses(hostname: string, port: number): boolean {
    if (this.#entries.length === 0) return false;
    const name = hostname.toLowerCase().replace(/\.$/, '');
    const family = isIP(name);
    for (const entry of this.#entries) {
      if (entry.kind === 'all') return true;
      if (entry.port !== undefined && entry.port !== port) continue;
      if (entry.kind === 'name') {
        if (family === 0 && (name === entry.name || name.endsWith(`.${entry.name}`))) return true;
      } else if (family !== 0 && entry.block.check(name, family === 6 ? 'ipv6' : 'ipv4')) return true;
    }
    return false;
  }
}

function parseEntry(entry: string): Bypass | undefined {
  if (entry === '*') return { kind: 'all' };
  let host = entry;
  let port: number | undefined;
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    host = bracketed[1]!;
    port = bracketed[2] === undefined ? undefined : Number(bracketed[2]);
  } else if ((entry.match(/:/g) ?? []).length === 1) {
    const [name, portText] = entry.split(':') as [string, string];
    if (!/^\d+$/.test(portText)) return undefined;
    host = name;
    port = Number(portText);
  }
  const withPort = <T extends object>(value: T) => (port === undefined ? value : { ...value, port });
  const cidr = /^(.+)\/(\d{1,3})$/.exec(host);
  const address = cidr ? cidr[1]! : host;
  const family = isIP(address);
  if (family !== 0) {
    const block = new BlockList();
    const type: 'ipv4' | 'ipv6' = family === 6 ? 'ipv6' : 'ipv4';
    if (cidr) block.addSubnet(address, Number(cidr[2]), type);
    else block.addAddress(address, type);
    return withPort({ kind: 'ip' as const, block, family: type });
  }
  if (cidr) return undefined;
  const name = host.replace(/^\*?\./, '').replace(/\.$/, '');
  return name === '' ? undefined : withPort({ kind: 'name' as const, name });
}

/**
 * Whether the proxy is a wrtui listening on `listenHost` at one of `ports`: forwarding to itself,
 * every request would come back, and every CONNECT's reachability check open another CONNECT.
 */
export function proxyIsItself(proxy: UpstreamProxy, listenHost: string, ports: readonly number[]): boolean {
  if (!ports.includes(proxy.port)) return false;
  const host = proxy.host.toLowerCase();
  const local = host === 'localhost' || host === listenHost.toLowerCase() || host === '0.0.0.0' || host === '::' || host === '::1' || /^(::ffff:)?127\./.test(host);
  return local;
}

/** A failure named as Chromium names it (net-error.ts takes a `net::ERR_*` code as it is). */
function proxyError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

const MAX_CONNECT_HEAD_BYTES = 64 * 1024;

/** `host:port` as a CONNECT request names it (IPv6 in brackets). */
export function connectAuthority(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

export interface TunnelOptions {
  /** The tunnel must be open within this long. */
  timeoutMs: number;
  /** Do not verify an https proxy's certificate (--insecure-upstream naming the proxy's host). */
  insecure?: boolean;
}

/** A connection to the proxy itself: TCP, or TLS for an https proxy. Errors are named as the proxy's. */
export function connectToProxy(proxy: UpstreamProxy, options: { insecure?: boolean } = {}): Socket {
  const socket =
    proxy.protocol === 'https:'
      ? tlsConnect({ host: proxy.host, port: proxy.port, ...(isIP(proxy.host) === 0 && { servername: proxy.host }), rejectUnauthorized: !options.insecure, ALPNProtocols: ['http/1.1'] })
      : connect({ host: proxy.host, port: proxy.port });
  return socket;
}

/**
 * A CONNECT tunnel to `host:port` through the proxy: resolves with the socket once the proxy
 * answered 2xx (the caller starts TLS on it for https). Rejects naming the failure as Chromium
 * does: the proxy cannot be reached (net::ERR_PROXY_CONNECTION_FAILED), it asks for credentials
 * (net::ERR_PROXY_AUTH_REQUESTED), it refuses the tunnel (net::ERR_TUNNEL_CONNECTION_FAILED).
 */
export function openTunnel(proxy: UpstreamProxy, host: string, port: number, options: TunnelOptions): Promise<Socket> {
  const authority = connectAuthority(host, port);
  return new Promise<Socket>((resolve, reject) => {
    const socket = connectToProxy(proxy, options);
    let head = Buffer.alloc(0);
    let connected = false;
    const fail = (error: Error) => {
      socket.off('data', onData);
      socket.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > MAX_CONNECT_HEAD_BYTES) fail(proxyError('net::ERR_TUNNEL_CONNECTION_FAILED', `the upstream proxy ${proxy.display} sent more than 64 KiB of answer to CONNECT ${authority}`));
        return;
      }
      const statusLine = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      if (status === 407) {
        const why = proxy.authorization ? 'the credentials in --upstream-proxy were refused' : 'it needs credentials: --upstream-proxy http://user:password@host:port';
        return fail(proxyError('net::ERR_PROXY_AUTH_REQUESTED', `the upstream proxy ${proxy.display} answered CONNECT ${authority} with "${statusLine}": ${why}`));
      }
      if (status < 200 || status > 299) return fail(proxyError('net::ERR_TUNNEL_CONNECTION_FAILED', `the upstream proxy ${proxy.display} answered CONNECT ${authority} with "${statusLine || 'no status line'}"`));
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('end', onEnd);
      socket.off('timeout', onTimeout);
      socket.setTimeout(0);
      // Whoever takes the socket listens for its errors; until then one must not end the process.
      socket.on('error', () => {});
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    const onError = (error: Error & { code?: string }) => {
      if (connected) return fail(proxyError('net::ERR_TUNNEL_CONNECTION_FAILED', `the upstream proxy ${proxy.display} closed the tunnel to ${authority}: ${error.message}`));
      // A TLS failure of an https proxy keeps its own name (its certificate is the proxy's).
      if (proxy.protocol === 'https:' && typeof error.code === 'string' && /^(ERR_TLS_|ERR_SSL_|EPROTO|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/.test(error.code)) {
        return fail(Object.assign(new Error(`the upstream proxy ${proxy.display}: ${error.message}`), { code: error.code }));
      }
      fail(proxyError('net::ERR_PROXY_CONNECTION_FAILED', `cannot connect to the upstream proxy ${proxy.display}: ${error.message}`));
    };
    const onEnd = () => fail(proxyError('net::ERR_TUNNEL_CONNECTION_FAILED', `the upstream proxy ${proxy.display} closed the connection before answering CONNECT ${authority}`));
    const onTimeout = () => fail(proxyError('net::ERR_TIMED_OUT', `the upstream proxy ${proxy.display} did not open a tunnel to ${authority} within ${options.timeoutMs} ms`));
    socket.setTimeout(options.timeoutMs, onTimeout);
    socket.on('data', onData);
    socket.once('error', onError);
    socket.once('end', onEnd);
    socket.once(proxy.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      connected = true;
      const authorization = proxy.authorization ? `Proxy-Authorization: ${proxy.authorization}\r\n` : '';
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${authorization}\r\n`);
    });
  });
}
