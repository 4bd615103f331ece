// The headers an extension's own request goes out with, as the persona's browser sends them, in its
// order: Chromium 156's (checked in test/extensions/extension-network.test.ts and
// extension-cors.test.ts) or Firefox ESR 153.7's (test/personas/firefox-network.test.ts and
// firefox-cors.test.ts), for its own requests, requests across origins and CORS preflights.
// Pure functions of the request's facts.
import type { HttpHeaders } from '../types.js';
import type { FetchMode, ResponseTainting } from './extension-cors.js';

/** What a browser's fetch does not let a script set (the Fetch standard's forbidden request headers). */
const FORBIDDEN = new Set([
  'accept-charset', 'accept-encoding', 'access-control-request-headers', 'access-control-request-method', 'connection', 'content-length', 'cookie', 'cookie2',
  'date', 'dnt', 'expect', 'host', 'keep-alive', 'origin', 'referer', 'set-cookie', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'via',
]);
export const isForbidden = (name: string) => FORBIDDEN.has(name) || name.startsWith('proxy-') || name.startsWith('sec-');

/** Node cannot undo zstd: wrtui asks for the codings it can (Chromium 156 and Firefox ESR 153.7 add zstd). */
const ACCEPT_ENCODING = 'gzip, deflate, br';

export interface HeaderFacts {
  url: URL;
  method: string;
  /** The script's own headers (forbidden ones dropped), in its order. */
  given: [string, string][];
  /** The Origin header's value: the extension's origin, or "null" after a redirect across origins. */
  origin: string;
  userAgent: string | undefined;
  bodyLength: number;
  /** The request's mode (Sec-Fetch-Mode). */
  mode: FetchMode;
  /** "basic": a URL it has host permission for (its own request); else a cross-origin request from its origin. */
  tainting: ResponseTainting;
  /** Credentials go with it (the lifecycle adds the jar's cookies, last). */
  withCredentials: boolean;
  /** A hop after a redirect was followed (Firefox re-adds the script's headers then, in another place). */
  afterRedirect?: boolean;
}

const has = (facts: HeaderFacts, name: string) => facts.given.some(([given]) => given.toLowerCase() === name);
/** The script's own value of `name` where it set one, else the browser's (none when `fallback` is undefined). */
const valueOf = (facts: HeaderFacts, name: string, fallback: string | undefined): HttpHeaders => {
  const given = facts.given.find(([given]) => given.toLowerCase() === name.toLowerCase());
  if (given) return [{ name: given[0], value: given[1] }];
  return fallback === undefined ? [] : [{ name, value: fallback }];
};
const entries = (pairs: [string, string][]) => pairs.map(([name, value]) => ({ name, value }));

/** A request states its origin unless it is a GET or HEAD that needs no CORS check (Fetch, "append a request Origin header"). */
const sendsOrigin = (facts: HeaderFacts) => facts.tainting === 'cors' || (facts.method !== 'GET' && facts.method !== 'HEAD');

/** Chromium 156's preflight (OPTIONS), in its order: what the request will be, and from whom; no cookies. */
export function chromePreflightHeaders(facts: HeaderFacts, unsafeNames: readonly string[]): HttpHeaders {
  return [
    { name: 'Host', value: facts.url.host },
    { name: 'Connection', value: 'keep-alive' },
    { name: 'Accept', value: '*/*' },
    { name: 'Access-Control-Request-Method', value: facts.method },
    ...(unsafeNames.length > 0 ? [{ name: 'Access-Control-Request-Headers', value: unsafeNames.join(',') }] : []),
    { name: 'Origin', value: facts.origin },
    ...(facts.userAgent ? [{ name: 'User-Agent', value: facts.userAgent }] : []),
    { name: 'Sec-Fetch-Mode', value: 'cors' },
    { name: 'Sec-Fetch-Site', value: 'cross-site' },
    { name: 'Sec-Fetch-Dest', value: 'empty' },
    { name: 'Accept-Encoding', value: ACCEPT_ENCODING },
    { name: 'Accept-Language', value: 'en-US,en;q=0.9' },
  ];
}

/** Firefox ESR 153.7's preflight, in its order. */
export function firefoxPreflightHeaders(facts: HeaderFacts, unsafeNames: readonly string[]): HttpHeaders {
  return [
    { name: 'Host', value: facts.url.host },
    ...(facts.userAgent ? [{ name: 'User-Agent', value: facts.userAgent }] : []),
    { name: 'Accept', value: '*/*' },
    { name: 'Accept-Language', value: 'en-US,en;q=0.9' },
    { name: 'Accept-Encoding', value: ACCEPT_ENCODING },
    { name: 'Access-Control-Request-Method', value: facts.method },
    ...(unsafeNames.length > 0 ? [{ name: 'Access-Control-Request-Headers', value: unsafeNames.join(',') }] : []),
    { name: 'Origin', value: facts.origin },
    { name: 'Connection', value: 'keep-alive' },
    { name: 'Sec-Fetch-Dest', value: 'empty' },
    { name: 'Sec-Fetch-Mode', value: 'cors' },
    { name: 'Sec-Fetch-Site', value: 'cross-site' },
    { name: 'Priority', value: 'u=4' },
  ];
}

/** Chromium 156's, in its order: the script's headers with Content-Type last among them. */
export function chromeHeaders(facts: HeaderFacts): HttpHeaders {
  const isContentType = ([name]: [string, string]) => name.toLowerCase() === 'content-type';
  return [
    { name: 'Host', value: facts.url.host },
    { name: 'Connection', value: 'keep-alive' },
    ...(facts.bodyLength > 0 ? [{ name: 'Content-Length', value: String(facts.bodyLength) }] : []),
    ...(has(facts, 'user-agent') || !facts.userAgent ? [] : [{ name: 'User-Agent', value: facts.userAgent }]),
    ...entries(facts.given.filter((header) => !isContentType(header))),
    ...entries(facts.given.filter(isContentType)),
    ...(has(facts, 'accept') ? [] : [{ name: 'Accept', value: '*/*' }]),
    ...(sendsOrigin(facts) ? [{ name: 'Origin', value: facts.origin }] : []),
    // Its own request comes from no site; any other from the extension's, another site.
    { name: 'Sec-Fetch-Site', value: facts.tainting === 'basic' ? 'none' : 'cross-site' },
    { name: 'Sec-Fetch-Mode', value: facts.mode },
    { name: 'Sec-Fetch-Dest', value: 'empty' },
    // Chromium 156 says so whenever credentials go with the request, cookies in the jar or not.
    ...(facts.withCredentials ? [{ name: 'Sec-Fetch-Storage-Access', value: 'active' }] : []),
    { name: 'Accept-Encoding', value: ACCEPT_ENCODING },
    ...(has(facts, 'accept-language') ? [] : [{ name: 'Accept-Language', value: 'en-US,en;q=0.9' }]),
  ];
}

/** Firefox ESR 153.7's, in its order (it puts the jar's Cookie after Connection; wrtui's jar adds it last). */
export function firefoxHeaders(facts: HeaderFacts): HttpHeaders {
  const scriptHeaders = facts.given.filter(([name]) => !['user-agent', 'accept', 'accept-language'].includes(name.toLowerCase()));
  const redirectedHeaders = scriptHeaders.filter(([name]) => name.toLowerCase() !== 'content-type');
  return [
    { name: 'Host', value: facts.url.host },
    ...valueOf(facts, 'User-Agent', facts.userAgent),
    ...valueOf(facts, 'Accept', '*/*'),
    ...valueOf(facts, 'Accept-Language', 'en-US,en;q=0.9'),
    { name: 'Accept-Encoding', value: ACCEPT_ENCODING },
    ...entries(scriptHeaders.filter(([name]) => !facts.afterRedirect || name.toLowerCase() === 'content-type')),
    ...(facts.bodyLength > 0 ? [{ name: 'Content-Length', value: String(facts.bodyLength) }] : []),
    // After a redirect Firefox ESR 153.7 sends the script's headers but Content-Type after
    // Content-Length: before Origin on its own request, after it on one across origins (seen on 307s).
    ...entries(facts.afterRedirect && facts.tainting === 'basic' ? redirectedHeaders : []),
    ...(sendsOrigin(facts) ? [{ name: 'Origin', value: facts.origin }] : []),
    ...entries(facts.afterRedirect && facts.tainting !== 'basic' ? redirectedHeaders : []),
    // Firefox ESR 153.7 says credentials go across sites without storage access.
    ...(facts.tainting !== 'basic' && facts.withCredentials ? [{ name: 'Sec-Fetch-Storage-Access', value: 'none' }] : []),
    { name: 'Connection', value: 'keep-alive' },
    { name: 'Sec-Fetch-Dest', value: 'empty' },
    { name: 'Sec-Fetch-Mode', value: facts.mode },
    { name: 'Sec-Fetch-Site', value: facts.tainting === 'basic' ? 'same-origin' : 'cross-site' },
    { name: 'Priority', value: 'u=4' },
  ];
}
