// A tough-cookie cookie in the shape extensions see (spec §2.1), spelled as Chrome reports it
// (chrome/browser/extensions/api/cookies/cookies_helpers.cc CreateCookie).
import type { Cookie as ToughCookie } from 'tough-cookie';
import type { Cookie } from '../types.js';
import { expiryTimeOf, isSessionCookie } from './expiry.js';

/**
 * - `domain`: with a leading dot for a domain cookie, the bare host for a host-only one (an IPv6
 *   address in brackets).
 * - `expirationDate`: seconds since the epoch, fractional when the expiry has milliseconds; only
 *   for persistent cookies (`session` false).
 * - Keys in Chrome's order (alphabetical), so JSON output reads like Chrome's.
 */
export function toSpecCookie(cookie: ToughCookie, storeId: string): Cookie {
  const hostOnly = cookie.hostOnly === true;
  // Chrome keeps an IPv6 host in brackets, as URLs write it.
  const bareDomain = cookie.domain?.includes(':') ? `[${cookie.domain}]` : (cookie.domain ?? '');
  const session = isSessionCookie(cookie);
  return {
    domain: hostOnly ? bareDomain : `.${bareDomain}`,
    ...(session ? {} : { expirationDate: expirationDateOf(cookie) }),
    hostOnly,
    httpOnly: cookie.httpOnly,
    name: cookie.key,
    path: cookie.path ?? '/',
    secure: cookie.secure,
    session,
    storeId,
    value: cookie.value,
  };
}

function expirationDateOf(cookie: ToughCookie): number {
  const expiresAt = expiryTimeOf(cookie);
  if (Number.isFinite(expiresAt)) return expiresAt / 1000;
  // Chrome reports an unrepresentable expiry as the largest double.
  return expiresAt > 0 ? Number.MAX_VALUE : 0;
}
