// cookies.set details → the cookie Chrome would create (spec §4.3 defaults; where the spec is
// silent, Chrome's CanonicalCookie::CreateSanitizedCookie). Pure.
//
// Defaults and rules:
//   name, value      "" (spec). Chrome refuses a cookie whose name AND value are both empty, and
//                    names/values with control characters, ';', a name with '=', or
//                    leading/trailing whitespace.
//   domain           omitted → host-only cookie for the url's host (spec). Given → a domain cookie
//                    (leading dot optional) that the url's host must domain-match, within the same
//                    registrable domain; on a host without one (IP, localhost, intranet name) only
//                    the host itself is allowed and the cookie stays host-only (Chrome).
//   path             omitted → the spec says "path portion of url"; Chrome (and RFC 6265 §5.1.4)
//                    use its directory: http://h/a/b.html → /a, http://h/a/ → /a, http://h/x → /.
//                    wrtui follows Chrome. A given path must start with '/'.
//   expirationDate   omitted → session cookie (spec); seconds since the epoch, 0 meaning the
//                    epoch itself (already expired); capped at 400 days from now (Chrome).
//   secure, httpOnly false (spec).
//   sameSite         Chrome's extra field: no_restriction | lax | strict | unspecified (default).
import { Cookie as ToughCookie, canonicalDomain, defaultPath, getPublicSuffix } from 'tough-cookie';
import type { SameSiteStatus } from '../types.js';
import { hostHasNoRegistrableDomain } from './chrome-cookie-rules.js';
import type { RequestTarget } from './cookie-match.js';
import { MAX_COOKIE_LIFETIME_MS } from './expiry.js';

export { SAME_SITE_STATUSES, type SameSiteStatus } from '../types.js';

/** spec §4.3 (plus Chrome's sameSite). */
export type { CookieSetDetails } from '../extension-api-types.js';
import type { CookieSetDetails } from '../extension-api-types.js';

export type BuiltCookie = { ok: true; cookie: ToughCookie } | { ok: false; reason: string };

/** ParsedCookie::kMaxCookieAttributeValueSize */
const MAX_ATTRIBUTE_LENGTH = 1024;
const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;
const EDGE_WHITESPACE = /^[ \t]|[ \t]$/;

export function cookieFromSetDetails(details: CookieSetDetails, target: RequestTarget, now: number): BuiltCookie {
  const name = details.name ?? '';
  const value = details.value ?? '';
  if (CONTROL_CHARACTER.test(name) || /[;=]/.test(name) || EDGE_WHITESPACE.test(name)) {
    return refuse('the name has a character a cookie name cannot hold');
  }
  if (CONTROL_CHARACTER.test(value) || value.includes(';') || EDGE_WHITESPACE.test(value)) {
    return refuse('the value has a character a cookie value cannot hold');
  }
  if (name === '' && value === '') return refuse('a cookie needs a name or a value');

  const domain = resolveDomain(details.domain, target);
  if (!domain.ok) return domain;

  let path: string;
  if (details.path === undefined || details.path === '') {
    path = defaultPath(target.path);
  } else if (!details.path.startsWith('/') || /[;\r\n\0]/.test(details.path) || EDGE_WHITESPACE.test(details.path)) {
    return refuse(`the path ${JSON.stringify(details.path)} is not a cookie path`);
  } else if (details.path.length > MAX_ATTRIBUTE_LENGTH) {
    return refuse(`the path is longer than ${MAX_ATTRIBUTE_LENGTH} characters`);
  } else {
    path = details.path;
  }

  let expires: Date | 'Infinity' = 'Infinity';
  if (details.expirationDate !== undefined) {
    if (Number.isNaN(details.expirationDate)) return refuse('expirationDate is not a number');
    expires = new Date(Math.min(details.expirationDate * 1000, now + MAX_COOKIE_LIFETIME_MS));
  }

  const cookie = new ToughCookie({
    key: name,
    value,
    // Host-only cookies get their domain from the url when stored (tough-cookie sets hostOnly).
    domain: domain.hostOnly ? null : domain.domain,
    hostOnly: domain.hostOnly ? null : false,
    path,
    // Chosen explicitly (a __Host- cookie set with the default path "/" is valid in Chrome).
    pathIsDefault: false,
    secure: details.secure ?? false,
    httpOnly: details.httpOnly ?? false,
    expires,
    sameSite: sameSiteOf(details.sameSite),
  });
  return { ok: true, cookie };
}

type ResolvedDomain = { ok: true; hostOnly: true } | { ok: true; hostOnly: false; domain: string } | { ok: false; reason: string };

/** cookie_util::GetCookieDomainWithString */
function resolveDomain(attribute: string | undefined, target: RequestTarget): ResolvedDomain {
  if (attribute === undefined || attribute === '') return { ok: true, hostOnly: true };
  if (/[;\r\n\0]/.test(attribute) || EDGE_WHITESPACE.test(attribute) || attribute.length > MAX_ATTRIBUTE_LENGTH) {
    return refuse(`the domain ${JSON.stringify(attribute)} is not a cookie domain`);
  }
  const domain = canonicalDomain(attribute);
  if (!domain) return refuse(`the domain ${JSON.stringify(attribute)} is not a cookie domain`);
  if (hostHasNoRegistrableDomain(target)) {
    // IP addresses, localhost, intranet names: only the host itself, and then it is a host cookie.
    return domain === target.host ? { ok: true, hostOnly: true } : refuse(`${target.host} cannot set cookies for ${domain}`);
  }
  const hostMatches = target.host === domain || target.host.endsWith(`.${domain}`);
  const sameRegistrableDomain =
    getPublicSuffix(domain, { ignoreError: true }) === getPublicSuffix(target.host, { ignoreError: true });
  if (!hostMatches || !sameRegistrableDomain) return refuse(`${target.host} cannot set cookies for ${domain}`);
  return { ok: true, hostOnly: false, domain };
}

function sameSiteOf(status: SameSiteStatus | undefined): 'none' | 'lax' | 'strict' | undefined {
  if (status === 'no_restriction') return 'none';
  if (status === 'lax' || status === 'strict') return status;
  return undefined;
}

function refuse(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}
