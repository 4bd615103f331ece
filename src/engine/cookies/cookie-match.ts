// Which cookies a request to a URL carries (RFC 6265 §5.4, as Chrome applies it). Pure functions,
// shared by the Cookie header, cookies.get/getAll({url}) and cookies.remove so that "the cookies
// that would be sent to that URL" means the same thing everywhere.
import { pathMatch, type Cookie as ToughCookie } from 'tough-cookie';

/** Chrome keeps cookies only for these schemes ("cookieable schemes"). */
export const COOKIEABLE_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:', 'ws:', 'wss:']);

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

export interface RequestTarget {
  /** Canonical host, spelled as cookie domains are stored: lowercase, punycode, IPv6 without brackets. */
  readonly host: string;
  readonly isIpAddress: boolean;
  /** The URL path (no query), as Chrome's URL parser canonicalises it. */
  readonly path: string;
  /** https/wss, or a loopback host: Chrome lets http://localhost read and write Secure cookies. */
  readonly secure: boolean;
}

/** Undefined for unparseable URLs and schemes that carry no cookies. */
export function requestTargetOf(url: string | URL): RequestTarget | undefined {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return undefined;
  }
  if (!COOKIEABLE_PROTOCOLS.has(parsed.protocol)) return undefined;
  // The WHATWG parser already lowercases and punycodes the host (what tough-cookie's
  // canonicalDomain does when it stores a cookie); only IPv6 brackets remain to strip.
  const hostname = parsed.hostname;
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (!host) return undefined;
  const isIpAddress = host.includes(':') || (isDigit(host.charCodeAt(host.length - 1)) && IPV4.test(host));
  const secure = parsed.protocol === 'https:' || parsed.protocol === 'wss:' || isLoopbackHost(host);
  return { host, isIpAddress, path: canonicalPath(parsed.pathname), secure };
}

/**
 * Chrome's URL parser (unlike WHATWG's) decodes percent-escaped unreserved characters in the path,
 * so a request to /f%6Fo matches a cookie for /foo. Cookie paths themselves are compared as given.
 */
export function canonicalPath(pathname: string): string {
  if (!pathname.includes('%')) return pathname;
  return pathname.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return /^[A-Za-z0-9\-._~]$/.test(char) ? char : escape;
  });
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || (IPV4.test(host) && host.startsWith('127.'));
}

/** RFC 6265 §5.1.3 domain-match of a request host against a cookie domain (both canonical). */
export function domainMatches(target: RequestTarget, cookieDomain: string): boolean {
  if (target.host === cookieDomain) return true;
  return !target.isIpAddress && target.host.endsWith(cookieDomain) && target.host[target.host.length - cookieDomain.length - 1] === '.';
}

/** True when a request to `target` carries the cookie (httpOnly ones included: requests are HTTP). */
export function cookieAppliesTo(cookie: ToughCookie, target: RequestTarget): boolean {
  const domain = cookie.domain;
  if (!domain) return false;
  if (cookie.hostOnly ? domain !== target.host : !domainMatches(target, domain)) return false;
  if (cookie.path && !pathMatch(target.path, cookie.path)) return false;
  return !cookie.secure || target.secure;
}

/**
 * Sorts cookies into Cookie-header order, RFC 6265 §5.4 step 2 (tough-cookie's cookieCompare):
 * longer paths first, then earlier creation, then earlier creation index. The sort keys are read
 * once per cookie rather than once per comparison, which matters for hosts with many cookies.
 */
export function sortForCookieHeader(cookies: ToughCookie[]): ToughCookie[] {
  if (cookies.length < 2) return cookies;
  const keyed = cookies.map((cookie) => ({
    cookie,
    pathLength: cookie.path ? cookie.path.length : 0,
    created: cookie.creation instanceof Date ? cookie.creation.getTime() : MAX_TIME,
    index: cookie.creationIndex || 0,
  }));
  keyed.sort((a, b) => b.pathLength - a.pathLength || a.created - b.created || a.index - b.index);
  for (let i = 0; i < keyed.length; i++) cookies[i] = keyed[i]!.cookie;
  return cookies;
}

/** What tough-cookie's cookieCompare uses for a cookie without a creation date. */
const MAX_TIME = 2147483647000;

/**
 * Every domain a cookie sent to `target` can be stored under: the host and each parent domain
 * (a.b.example.com → a.b.example.com, b.example.com, example.com, com). Looking these up in the
 * store's index costs in proportion to the host's labels and its cookies, never the whole jar, and
 * needs no public-suffix lookup on the hot path (a store never holds a domain cookie for a suffix).
 */
export function domainCandidates(target: RequestTarget): string[] {
  if (target.isIpAddress) return [target.host];
  const candidates = [target.host];
  let dot = target.host.indexOf('.');
  while (dot !== -1 && dot < target.host.length - 1) {
    candidates.push(target.host.slice(dot + 1));
    dot = target.host.indexOf('.', dot + 1);
  }
  return candidates;
}

/**
 * The URL Chrome checks host permissions against for a stored cookie (cookies_helpers'
 * GetURLFromCanonicalCookie): https for Secure cookies, http otherwise, the domain without its dot.
 */
export function permissionUrlOf(cookie: { domain: string | null; secure: boolean }): string {
  const host = (cookie.domain ?? '').replace(/^\./, '');
  const hostInUrl = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${cookie.secure ? 'https' : 'http'}://${hostInUrl}/`;
}

/**
 * What a cookie without a SameSite attribute counts as across sites: Lax (Chrome; it stays home)
 * or None (Firefox, whose laxByDefault is off; it goes).
 */
export type CrossSite = { unsetIs: 'lax' | 'none' };

/** Whether a cookie goes with a cross-site request (and may be set by its response): SameSite=None, or unset where the browser counts that as None. */
export function goesCrossSite(cookie: ToughCookie, crossSite: CrossSite): boolean {
  return cookie.sameSite === 'none' || (cookie.sameSite === undefined && crossSite.unsetIs === 'none');
}
