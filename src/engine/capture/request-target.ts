// The absolute URL an HTTP/1 request is for, worked out as mockttp's preprocessRequest does it
// (mockttp 4.6, util/request-utils.js), and nothing else of what that function does: wrtui reads the
// URL, Node's own headers and the client's address, so no request id (randomUUID), no header object
// rebuilt from pairs, no body reader, no property redefined (bench/proxy.ts, issue #37).
import { createRequire } from 'node:module';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

const requireFromHere = createRequire(import.meta.url);

/** The socket marks mockttp's connection handling leaves (util/socket-extensions.js). */
interface SocketMarks {
  LastTunnelAddress: symbol;
  LastHopEncrypted: symbol;
  TlsMetadata: symbol;
}

function socketMarks(): SocketMarks {
  const marks = requireFromHere('mockttp/dist/util/socket-extensions') as Partial<SocketMarks>;
  if (typeof marks.LastTunnelAddress !== 'symbol' || typeof marks.LastHopEncrypted !== 'symbol' || typeof marks.TlsMetadata !== 'symbol') {
    throw new Error("mockttp's socket marks have changed (util/socket-extensions: LastTunnelAddress, LastHopEncrypted, TlsMetadata); see request-target.ts");
  }
  return marks as SocketMarks;
}

const { LastTunnelAddress, LastHopEncrypted, TlsMetadata } = socketMarks();

type MarkedSocket = { [key: symbol]: unknown };

/** An absolute-form target (RFC 9112 §3.2.2), as mockttp's isAbsoluteUrl reads it. */
const ABSOLUTE = /^https?:\/\//i;

/**
 * The request's URL, absolute: an absolute-form target as sent; an origin-form one (a request inside
 * a tunnel, or sent to the proxy as to a server) on the tunnel's host, else the Host header's, else
 * the TLS server name, else the proxy itself, with the tunnel's port whatever Host says. Throws as
 * `new URL` does when these make no URL.
 */
export function absoluteUrl(request: Pick<IncomingMessage, 'url' | 'headers' | 'socket'>, serverPort: () => number): string {
  const target = request.url ?? '';
  if (ABSOLUTE.test(target)) return target;
  const socket = request.socket as unknown as MarkedSocket;
  const protocol = socket[LastHopEncrypted] ? 'https' : 'http';
  const tunnel = socket[LastTunnelAddress] as string | undefined;
  const tunnelDestination = tunnel ? destination(protocol, tunnel) : undefined;
  const host = request.headers.host;
  const sni = (socket[TlsMetadata] as { sniHostname?: string } | undefined)?.sniHostname;
  // A tunnel to a name is that name; a tunnel to an IP address is better named by the Host header.
  const named = tunnelDestination && isIP(tunnelDestination.hostname) ? host ?? sni ?? tunnel : tunnel ?? host ?? sni;
  const urlDestination = destination(protocol, named ?? `localhost:${serverPort()}`);
  // The port is the one really connected to, even if the Host header says another.
  const port = (tunnelDestination ?? urlDestination).port;
  const hostname = isIP(urlDestination.hostname) === 6 ? `[${urlDestination.hostname}]` : urlDestination.hostname;
  return new URL(`${protocol}://${port === defaultPort(protocol) ? hostname : `${hostname}:${port}`}${target}`).toString();
}

function defaultPort(protocol: string): number {
  return protocol === 'https' ? 443 : 80;
}

/** host[:port] (IPv6 in brackets) as hostname and port, as mockttp's getDestination splits it. */
function destination(protocol: string, host: string): { hostname: string; port: number } {
  const colon = host.lastIndexOf(':');
  let hostname = colon === -1 ? host : host.slice(0, colon);
  const portText = colon === -1 ? undefined : host.slice(colon + 1);
  if (hostname.startsWith('[') && hostname.endsWith(']')) hostname = hostname.slice(1, -1);
  const port = portText ? Number.parseInt(portText, 10) : defaultPort(protocol);
  if (Number.isNaN(port)) throw new Error(`Invalid port: ${portText}`);
  return { hostname, port };
}
