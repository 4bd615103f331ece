// Which cookies of a recorded Cookie header came from wrtui's cookie store rather than from the
// client. The lifecycle merges the store's cookies into the client's Cookie header before
// onBeforeSendHeaders (the store wins on a shared name), and the journal only shows the merge. To
// replay a request with the client's own cookies (the store adds its own again, as it stands
// during replay), the recorded store is followed through the session: the cookies it held as
// recording started, then every cookieChanged entry. At a request, the names the store would have
// sent are the store's; the other pairs were the client's.
import { Cookie as ToughCookie, type SerializedCookie } from 'tough-cookie';
import { cookieAppliesTo, requestTargetOf } from '../cookies/cookie-match.js';
import { toSpecCookie } from '../cookies/spec-cookie.js';
import { getHeader, withHeader } from '../headers.js';
import type { Cookie, CookieChangeInfo, HttpHeaders } from '../types.js';

export class StoreCookieTimeline {
  readonly #cookies = new Map<string, Cookie>();

  constructor(seed: Record<string, SerializedCookie[]> = {}) {
    for (const [storeId, serialized] of Object.entries(seed)) {
      for (const json of serialized) {
        const cookie = ToughCookie.fromJSON(json);
        if (cookie?.domain && cookie.path) this.#put(toSpecCookie(cookie, storeId));
      }
    }
  }

  /** Follows one recorded cookieChanged entry. */
  apply(change: CookieChangeInfo): void {
    if (change.removed) this.#cookies.delete(keyOf(change.cookie));
    else this.#put(change.cookie);
  }

  /** The names of the cookies the store would have sent to `url` at `now` (epoch ms). */
  namesFor(url: string, storeId: string, now: number): Set<string> {
    const names = new Set<string>();
    const target = requestTargetOf(url);
    if (!target) return names;
    for (const cookie of this.#cookies.values()) {
      if (cookie.storeId !== storeId) continue;
      if (cookie.expirationDate !== undefined && cookie.expirationDate * 1000 <= now) continue;
      const domain = cookie.domain.replace(/^\./, '').replace(/^\[(.*)\]$/, '$1');
      // cookieAppliesTo reads only these fields of a tough-cookie Cookie.
      const probe = { domain, hostOnly: cookie.hostOnly, path: cookie.path, secure: cookie.secure } as ToughCookie;
      if (cookieAppliesTo(probe, target)) names.add(cookie.name);
    }
    return names;
  }

  /** The client's own headers: the recorded ones without the Cookie pairs the store contributed. */
  clientHeaders(recorded: HttpHeaders, url: string, storeId: string, now: number): HttpHeaders {
    const cookieHeader = getHeader(recorded, 'cookie');
    if (cookieHeader === undefined) return recorded;
    const fromStore = this.namesFor(url, storeId, now);
    if (fromStore.size === 0) return recorded;
    const clientPairs = cookieHeader
      .split(';')
      .map((pair) => pair.trim())
      .filter((pair) => pair !== '' && !fromStore.has(nameOf(pair)));
    return withHeader(recorded, 'Cookie', clientPairs.length > 0 ? clientPairs.join('; ') : undefined);
  }

  #put(cookie: Cookie): void {
    this.#cookies.set(keyOf(cookie), cookie);
  }
}

/** As the store keys cookies: a host-only and a domain cookie of the same host, path and name are one. */
function keyOf(cookie: Cookie): string {
  return `${cookie.storeId}\u0000${cookie.domain.replace(/^\./, '')}\u0000${cookie.path}\u0000${cookie.name}`;
}

function nameOf(pair: string): string {
  const index = pair.indexOf('=');
  return (index === -1 ? '' : pair.slice(0, index)).trim();
}
