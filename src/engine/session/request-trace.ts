// A journal cut into requests: each request's webRequest entries, and the cookie changes its
// responses caused. Built the same way from a recorded journal and from a replay's, so the two
// can be compared request by request.
//
// Which request caused a cookie change: the lifecycle stores a response's Set-Cookie headers
// between the request's onHeadersReceived entry and its next entry, synchronously. So a change
// belongs to a request whose latest entry is onHeadersReceived and whose (final) response headers
// have a Set-Cookie of that name; the oldest such request when several do. An eviction follows the
// change that caused it. Anything else (a rule's cookies.set, an expiry) belongs to no request.
import { getHeaderValues } from '../headers.js';
import type { DnrEntry, JournalEntry, WebRequestEntry } from '../journal.js';
import type { CookieChangeInfo, HttpHeaders, OnHeadersReceivedDetails } from '../types.js';

export interface RequestTrace {
  requestId: string;
  entries: WebRequestEntry[];
  /** What declarativeNetRequest rules did to it. */
  dnr: DnrEntry[];
  cookieChanges: CookieChangeInfo[];
  /** "1" when a cookie change it caused was in the incognito store, else undefined. */
  storeId: string | undefined;
}

export interface JournalTrace {
  /** By requestId, in the order requests first appear. */
  requests: Map<string, RequestTrace>;
  unattributedCookieChanges: CookieChangeInfo[];
}

interface OpenResponse {
  /** Set-Cookie names of the response not yet matched by a change, with how many of each. */
  names: Map<string, number>;
}

/**
 * The cut, made entry by entry as a journal grows (or is read): a request's trace can be taken
 * (and forgotten) once the request has ended, so a long replay need not keep every entry.
 */
export class JournalTracer {
  readonly #requests = new Map<string, RequestTrace>();
  readonly #unattributed: CookieChangeInfo[] = [];
  readonly #open = new Map<string, OpenResponse>();
  #previousCookieOwner: string | undefined;

  add(entry: JournalEntry): void {
    const requests = this.#requests;
    if (entry.kind === 'webRequest') {
      this.#previousCookieOwner = undefined;
      const { requestId } = entry.details;
      let trace = requests.get(requestId);
      if (!trace) requests.set(requestId, (trace = { requestId, entries: [], dnr: [], cookieChanges: [], storeId: undefined }));
      trace.entries.push(entry);
      this.#open.delete(requestId);
      if (entry.event === 'onHeadersReceived') {
        const names = setCookieNames(finalResponseHeaders(entry));
        if (names) this.#open.set(requestId, { names });
      }
      return;
    }
    if (entry.kind === 'dnr') {
      // Between a response's headers and its cookie changes: it leaves the response open.
      requests.get(entry.requestId)?.dnr.push(entry);
      return;
    }
    if (entry.kind !== 'cookieChanged') {
      this.#previousCookieOwner = undefined;
      return;
    }
    const change = entry.changeInfo;
    const owner = ownerOf(change, this.#open) ?? this.#previousCookieOwner;
    const trace = owner === undefined ? undefined : requests.get(owner);
    if (!trace) {
      this.#unattributed.push(change);
      this.#previousCookieOwner = undefined;
      return;
    }
    trace.cookieChanges.push(change);
    if (change.cookie.storeId !== '0') trace.storeId = change.cookie.storeId;
    this.#previousCookieOwner = owner;
  }

  /**
   * The trace of a request that has ended (its onCompleted or onErrorOccurred is in): nothing
   * later can join it, since a cookie change joins only a request whose latest entry is its
   * onHeadersReceived. The tracer forgets it.
   */
  take(requestId: string): RequestTrace | undefined {
    const trace = this.#requests.get(requestId);
    this.#requests.delete(requestId);
    this.#open.delete(requestId);
    if (this.#previousCookieOwner === requestId) this.#previousCookieOwner = undefined;
    return trace;
  }

  /** What it holds: the requests not taken, and the cookie changes no request caused. */
  trace(): JournalTrace {
    return { requests: this.#requests, unattributedCookieChanges: this.#unattributed };
  }
}

function ownerOf(change: CookieChangeInfo, open: Map<string, OpenResponse>): string | undefined {
  const name = change.cookie.name;
  for (const [requestId, response] of open) {
    const left = response.names.get(name) ?? 0;
    if (left === 0) continue;
    // A Set-Cookie yields one stored (or expired_overwrite) change; an overwrite's removal comes with it.
    if (!change.removed || change.cause === 'expired_overwrite') response.names.set(name, left - 1);
    return requestId;
  }
  return undefined;
}

/** The response headers the lifecycle went on with: a listener's replacement, or the ones received. */
export function finalResponseHeaders(entry: WebRequestEntry): HttpHeaders {
  for (const outcome of entry.outcomes) {
    if (outcome.status === 'applied' && outcome.response?.responseHeaders) return outcome.response.responseHeaders;
  }
  return (entry.details as OnHeadersReceivedDetails).responseHeaders ?? [];
}

/** The Set-Cookie names with how many of each; undefined without any (most responses: no Map made for them). */
function setCookieNames(headers: HttpHeaders): Map<string, number> | undefined {
  if (!headers.some((header) => header.name.length === 10 && header.name.toLowerCase() === 'set-cookie')) return undefined;
  const names = new Map<string, number>();
  for (const value of getHeaderValues(headers, 'set-cookie')) {
    const pair = value.split(';', 1)[0]!;
    const index = pair.indexOf('=');
    const name = (index === -1 ? '' : pair.slice(0, index)).trim();
    names.set(name, (names.get(name) ?? 0) + 1);
  }
  return names;
}
