// cookies.getAll's filters over cookies in the spec's shape (spec §4.2), written as Chrome's
// cookies_helpers::MatchFilter applies them. The `url` filter and the store are applied before
// (they choose which cookies are looked at); this decides which of those are returned.
import type { Cookie } from '../types.js';

/** spec §4.2 (all optional). */
export type { CookieGetAllDetails } from '../extension-api-types.js';
import type { CookieGetAllDetails } from '../extension-api-types.js';

export function matchesGetAllFilter(cookie: Cookie, filter: CookieGetAllDetails): boolean {
  if (filter.name !== undefined && filter.name !== cookie.name) return false;
  if (filter.domain !== undefined && !domainIsWithin(cookie.domain, filter.domain)) return false;
  if (filter.path !== undefined && filter.path !== cookie.path) return false;
  if (filter.secure !== undefined && filter.secure !== cookie.secure) return false;
  if (filter.session !== undefined && filter.session !== cookie.session) return false;
  return true;
}

/**
 * "Cookies whose domain matches or is a subdomain of it": leading dots on either side are ignored,
 * and the comparison is by whole labels (`example.com` does not match `badexample.com`). Like
 * Chrome, the filter is compared as given, without lowercasing.
 */
export function domainIsWithin(cookieDomain: string, filterDomain: string): boolean {
  const wanted = filterDomain.startsWith('.') ? filterDomain : `.${filterDomain}`;
  let candidate = cookieDomain.startsWith('.') ? cookieDomain : `.${cookieDomain}`;
  while (candidate.length >= wanted.length) {
    if (candidate === wanted) return true;
    const nextDot = candidate.indexOf('.', 1);
    if (nextDot === -1) return false;
    candidate = candidate.slice(nextDot);
  }
  return false;
}
