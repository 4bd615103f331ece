// Where a request goes next when it is redirected: fetch's method rule, the https: upgrade, and
// the headers that go on to the next hop.
import type { Persona } from '../personas/index.js';
import type { HttpHeaders } from '../types.js';

/** The schemes webRequest sees requests for. */
export const WEB_SCHEMES: ReadonlySet<string> = new Set(['http:', 'https:', 'ws:', 'wss:']);

/** Personas that tell a server redirect's onBeforeRedirect only once the client follows it (Firefox). */
export const toldWhenFollowed = (persona: Persona): boolean => persona.redirectNoticeWhenFollowed;

/** The https: (or wss:) URL for an http: (ws:) one; undefined when it is secure already. */
export function secureUrlOf(url: string): string | undefined {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'ws:') return undefined;
  parsed.protocol = parsed.protocol === 'http:' ? 'https:' : 'wss:';
  if (parsed.port === '80') parsed.port = '';
  return parsed.href;
}

/** fetch's rule: 303 makes everything but HEAD a GET; 301 and 302 make a POST a GET; 307 and 308 keep the method. */
export function redirectMethod(method: string, statusCode: number): string {
  if (statusCode === 303 && method !== 'HEAD') return 'GET';
  if ((statusCode === 301 || statusCode === 302) && method === 'POST') return 'GET';
  return method;
}

/** A method change drops the body and the headers that described it (fetch's redirect rules). */
export function withoutBodyHeaders(headers: HttpHeaders): HttpHeaders {
  return headers.filter((header) => !/^(content-(type|length|encoding|language|location)|transfer-encoding)$/i.test(header.name));
}

/** The next hop is sent to its own host. */
export function withHost(headers: HttpHeaders, host: string): HttpHeaders {
  return headers.map((header) => (/^host$/i.test(header.name) ? { name: header.name, value: host } : header));
}

/** Credentials meant for one origin are not sent to another. */
export function withoutCredentials(headers: HttpHeaders): HttpHeaders {
  return headers.filter((header) => !/^(authorization|cookie)$/i.test(header.name));
}
