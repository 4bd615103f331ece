// Rules Chrome applies when it stores a cookie that tough-cookie does not, shared by Set-Cookie
// headers and cookies.set so both refuse the same cookies (net/cookies/canonical_cookie.cc,
// parsed_cookie.cc, cookie_util.cc).
import { getPublicSuffix, type Cookie as ToughCookie } from 'tough-cookie';
import type { RequestTarget } from './cookie-match.js';

/** ParsedCookie::kMaxCookieNamePlusValueSize */
export const MAX_NAME_PLUS_VALUE_LENGTH = 4096;

/** True when the host has no registrable domain (eTLD+1): an IP address, `localhost`, an intranet name, a public suffix. */
export function hostHasNoRegistrableDomain(target: RequestTarget): boolean {
  return target.isIpAddress || getPublicSuffix(target.host, { ignoreError: true }) === undefined;
}

/**
 * Chrome treats a Domain attribute equal to a host that has no registrable domain (an IP address,
 * `localhost`, an intranet name) as no Domain attribute at all: the cookie becomes host-only
 * (cookie_util::GetCookieDomainWithString, "We match IE/Firefox"). tough-cookie would store a
 * domain cookie, or refuse it as a public suffix. Returns true when the Domain should be dropped.
 */
export function domainAttributeMeansHostOnly(canonicalDomainAttribute: string, target: RequestTarget): boolean {
  return canonicalDomainAttribute === target.host && hostHasNoRegistrableDomain(target);
}

export interface CookieBeingSet {
  readonly cookie: ToughCookie;
  /** The cookie had a Domain attribute (is not host-only). */
  readonly hasDomain: boolean;
}

/** Why Chrome would refuse to store the cookie from `target`, beyond tough-cookie's own checks; undefined when it would not. */
export function chromeRefusalReason({ cookie, hasDomain }: CookieBeingSet, target: RequestTarget): string | undefined {
  const { key: name, value } = cookie;
  if (name.length + value.length > MAX_NAME_PLUS_VALUE_LENGTH) {
    return `Cookie name and value together exceed ${MAX_NAME_PLUS_VALUE_LENGTH} characters`;
  }
  // Cookie prefixes (RFC 6265bis §4.1.3), matched case-insensitively as current Chrome does.
  const lowerName = name.toLowerCase();
  if (lowerName.startsWith('__secure-') && !(cookie.secure && target.secure)) {
    return 'Cookie has the __Secure- prefix but is not Secure or not set from a secure origin';
  }
  if (lowerName.startsWith('__host-') && !(cookie.secure && target.secure && !hasDomain && cookie.path === '/')) {
    return "Cookie has the __Host- prefix but is not Secure, has a Domain, or its Path is not '/'";
  }
  if (name === '' && /^__(secure|host)-/i.test(value)) {
    return 'A nameless cookie may not have a value that looks like a prefixed name';
  }
  if (cookie.sameSite === 'none' && !cookie.secure) {
    return 'Cookie has SameSite=None but is not Secure';
  }
  return undefined;
}
