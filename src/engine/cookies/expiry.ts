// When a cookie expires, computed the way Chrome does. Pure functions over tough-cookie cookies.
//
// tough-cookie keeps Max-Age relative and measures it from `lastAccessed`, which it refreshes on
// every read: a Max-Age=60 cookie read every 30 s would never expire. Browsers turn Max-Age into
// an absolute expiry when the cookie is set (RFC 6265 §5.2.2), so the store normalises every
// cookie it accepts with `fixExpiry`.
import type { Cookie as ToughCookie } from 'tough-cookie';

/**
 * Chrome (since 104) and Firefox cap a cookie's lifetime at 400 days from when it is set
 * (RFC 6265bis §5.5 "Max-Age"/"Expires" limit). Applies to Set-Cookie and cookies.set alike.
 */
export const MAX_COOKIE_LIFETIME_MS = 400 * 24 * 60 * 60 * 1000;

/** Epoch ms when the cookie expires: Infinity for a session cookie, -Infinity for Max-Age <= 0. */
export function expiryTimeOf(cookie: ToughCookie): number {
  const { maxAge } = cookie;
  if (maxAge != null) {
    if (maxAge === 'Infinity') return Infinity;
    if (maxAge === '-Infinity' || maxAge <= 0) return -Infinity;
    const setAt = cookie.creation instanceof Date ? cookie.creation.getTime() : Date.now();
    return setAt + maxAge * 1000;
  }
  return cookie.expires instanceof Date ? cookie.expires.getTime() : Infinity;
}

/** A session cookie has neither Expires nor Max-Age (spec §2.1 `session`). */
export function isSessionCookie(cookie: ToughCookie): boolean {
  return cookie.maxAge == null && !(cookie.expires instanceof Date);
}

/** True when the cookie's expiry is at or before `now` (an unreadable expiry counts as expired). */
export function isExpiredAt(cookie: ToughCookie, now: number): boolean {
  return !(expiryTimeOf(cookie) > now);
}

/**
 * Makes the expiry absolute and capped, as a browser does when it stores a cookie at `now`:
 * Max-Age becomes `Expires = now + Max-Age` (Max-Age <= 0 becomes the epoch, already expired), and
 * any expiry beyond 400 days from now is brought back to 400 days. Session cookies stay session.
 */
export function fixExpiry(cookie: ToughCookie, now: number): void {
  const latest = now + MAX_COOKIE_LIFETIME_MS;
  const { maxAge } = cookie;
  if (maxAge != null) {
    cookie.maxAge = null;
    if (maxAge === '-Infinity' || (maxAge !== 'Infinity' && maxAge <= 0)) {
      cookie.expires = new Date(0);
      return;
    }
    const at = maxAge === 'Infinity' ? latest : now + maxAge * 1000;
    cookie.expires = new Date(Math.min(at, latest));
    return;
  }
  if (cookie.expires instanceof Date && !(cookie.expires.getTime() <= latest)) {
    // Later than the cap, or an Invalid Date (NaN) that fromJSON may produce: cap it.
    cookie.expires = Number.isNaN(cookie.expires.getTime()) ? new Date(0) : new Date(latest);
  }
}
