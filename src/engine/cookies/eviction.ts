// Which cookies go when a store is over its limits (spec §3 "garbage collection", cause `evicted`).
//
// Chrome (net/cookies/cookie_monster.cc) keeps at most 180 cookies per registrable domain
// (eTLD+1) and 3300 in all, and evicts the least recently accessed first; within a domain it
// evicts non-Secure cookies before Secure ones. wrtui follows that order with two
// simplifications, written down in docs/semantics.md: the limits are configurable (defaults 180 and 3000),
// and only the excess is evicted, whereas Chrome purges in batches (180 → 150 per domain,
// 3300 → 3000 in all) and spares recently used cookies from the global purge.
import { getPublicSuffix, type Cookie as ToughCookie } from 'tough-cookie';

export interface CookieLimits {
  /** Cookies per registrable domain (eTLD+1). */
  perDomain: number;
  /** Cookies in one store. */
  total: number;
}

export const DEFAULT_COOKIE_LIMITS: Readonly<CookieLimits> = { perDomain: 180, total: 3000 };

/**
 * The registrable domain (eTLD+1) a cookie domain belongs to, the key Chrome counts per-domain
 * limits by. Hosts without one (IP addresses, `localhost`, single-label intranet names) count alone.
 */
export function registrableDomainOf(domain: string): string {
  // tough-cookie's getPublicSuffix returns the registrable domain despite its name.
  return getPublicSuffix(domain, { allowSpecialUseDomain: true, ignoreError: true }) ?? domain;
}

function timeOf(date: Date | 'Infinity' | null, fallback: number): number {
  return date instanceof Date ? date.getTime() : fallback;
}

/** Least recently accessed first, then oldest created (Chrome's LRA order). */
export function compareForEviction(a: ToughCookie, b: ToughCookie): number {
  const created = (cookie: ToughCookie) => timeOf(cookie.creation, 0);
  return (
    timeOf(a.lastAccessed, created(a)) - timeOf(b.lastAccessed, created(b)) ||
    created(a) - created(b) ||
    a.creationIndex - b.creationIndex
  );
}

/**
 * The `count` cookies to evict from `candidates`. With `nonSecureFirst` (the per-domain purge) all
 * non-Secure cookies go before any Secure one.
 */
export function pickEvictionVictims(candidates: Iterable<ToughCookie>, count: number, nonSecureFirst: boolean): ToughCookie[] {
  if (count <= 0) return [];
  const compare = (a: ToughCookie, b: ToughCookie) =>
    (nonSecureFirst ? Number(a.secure) - Number(b.secure) : 0) || compareForEviction(a, b);
  if (count === 1) {
    // The common case (one cookie over the limit): a linear scan, not a sort of the whole store.
    let victim: ToughCookie | undefined;
    for (const cookie of candidates) if (victim === undefined || compare(cookie, victim) < 0) victim = cookie;
    return victim === undefined ? [] : [victim];
  }
  return [...candidates].sort(compare).slice(0, count);
}
