// HTTP authentication for onAuthRequired: reading a challenge (scheme, realm) and answering it
// with the credentials a listener supplied. Basic and Digest are answered; other schemes
// (NTLM, Negotiate) need a connection-bound handshake a proxy cannot replay, so they are reported.
import { createHash, randomBytes } from 'node:crypto';
import type { AuthCredentials } from '../types.js';

export interface AuthChallenge {
  scheme: string;
  params: Record<string, string>;
}

/** The first challenge of a WWW-Authenticate / Proxy-Authenticate value. */
export function parseChallenge(value: string): AuthChallenge | undefined {
  const match = /^\s*([!#$%&'*+\-.^_`|~0-9A-Za-z]+)(?:\s+(.*))?$/s.exec(value);
  if (!match) return undefined;
  const params: Record<string, string> = {};
  const rest = match[2] ?? '';
  const param = /([!#$%&'*+\-.^_`|~0-9A-Za-z]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g;
  for (let m = param.exec(rest); m; m = param.exec(rest)) {
    params[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!;
  }
  return { scheme: match[1]!, params };
}

let nonceCount = 0;

/** The Authorization header answering `challenge`, or undefined for schemes wrtui cannot answer. */
export function authorizationFor(
  challenge: AuthChallenge,
  credentials: AuthCredentials,
  request: { method: string; url: string },
): string | undefined {
  const scheme = challenge.scheme.toLowerCase();
  if (scheme === 'basic') {
    return `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`, 'utf8').toString('base64')}`;
  }
  if (scheme === 'digest') return digestAuthorization(challenge.params, credentials, request);
  return undefined;
}

// RFC 7616 with qop=auth (or the RFC 2069 form when the server offers no qop).
function digestAuthorization(
  params: Record<string, string>,
  { username, password }: AuthCredentials,
  { method, url }: { method: string; url: string },
): string | undefined {
  const algorithm = (params.algorithm ?? 'MD5').toUpperCase();
  const hashName = algorithm.startsWith('SHA-256') ? 'sha256' : algorithm.startsWith('MD5') ? 'md5' : undefined;
  if (!hashName || params.nonce === undefined) return undefined;
  const hash = (text: string) => createHash(hashName).update(text, 'utf8').digest('hex');
  const { pathname, search } = new URL(url);
  const uri = pathname + search;
  const realm = params.realm ?? '';
  const cnonce = randomBytes(8).toString('hex');
  let ha1 = hash(`${username}:${realm}:${password}`);
  if (algorithm.endsWith('-SESS')) ha1 = hash(`${ha1}:${params.nonce}:${cnonce}`);
  const ha2 = hash(`${method}:${uri}`);
  const qop = params.qop?.split(',').map((q) => q.trim()).includes('auth') ? 'auth' : undefined;
  const nc = (++nonceCount).toString(16).padStart(8, '0');
  const response = qop ? hash(`${ha1}:${params.nonce}:${nc}:${cnonce}:${qop}:${ha2}`) : hash(`${ha1}:${params.nonce}:${ha2}`);
  const fields = [
    `username="${username.replace(/(["\\])/g, '\\$1')}"`,
    `realm="${realm}"`,
    `nonce="${params.nonce}"`,
    `uri="${uri}"`,
    `algorithm=${algorithm}`,
    `response="${response}"`,
    ...(qop ? [`qop=${qop}`, `nc=${nc}`, `cnonce="${cnonce}"`] : []),
    ...(params.opaque !== undefined ? [`opaque="${params.opaque}"`] : []),
  ];
  return `Digest ${fields.join(', ')}`;
}
