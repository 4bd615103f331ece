// What "the same event" means when a replay is compared with its recording. Two journal entries
// of one request are the same when they agree on everything but:
// - requestId (a replay numbers its requests anew) and timeStamp (it runs at another time);
// - the order of differently named headers (a client's header order is not what a rule decides),
//   and the case of header names; values, and the order of repeated headers, count;
// - listener outcomes' durationMs and failure location (where the rule's file was loaded from).
// Everything else counts: the event, URL, method, type, tab and frame ids, status, status line,
// redirect URL, error, ip, fromCache, requestBody, auth details, and per outcome the owner, event,
// status, what the listener returned and the reason given.
import { headerText } from '../headers.js';
import type { ListenerOutcome, WebRequestEntry } from '../journal.js';
import type { BlockingResponse, HttpHeaders } from '../types.js';

/** A canonical string: equal strings mean the same event. */
export function eventSignature(entry: WebRequestEntry): string {
  const { requestId: _requestId, timeStamp: _timeStamp, ...details } = entry.details as unknown as Record<string, unknown>;
  for (const key of ['requestHeaders', 'responseHeaders'] as const) {
    if (Array.isArray(details[key])) details[key] = normalizeHeaders(details[key] as HttpHeaders);
  }
  return canonical({ event: entry.event, details, outcomes: entry.outcomes.map(outcomeFact) });
}

/**
 * Whether two entries are the same event (eventSignature's meaning), compared in place: no
 * signature strings are built, and the first difference ends the comparison. A replay compares
 * every event of every request, recorded and replayed; building both signatures was a sixth of its
 * main-thread time.
 */
export function sameEvent(a: WebRequestEntry, b: WebRequestEntry): boolean {
  if (a.event !== b.event || a.outcomes.length !== b.outcomes.length) return false;
  if (!sameDetails(a.details as unknown as Record<string, unknown>, b.details as unknown as Record<string, unknown>)) return false;
  for (let i = 0; i < a.outcomes.length; i++) {
    const x = a.outcomes[i]!;
    const y = b.outcomes[i]!;
    if (x.event !== y.event || x.owner !== y.owner || x.status !== y.status || x.reason !== y.reason) return false;
    if (!sameValue(x.response || undefined, y.response || undefined)) return false;
  }
  return true;
}

const IGNORED_DETAILS = new Set(['requestId', 'timeStamp']);

function sameDetails(x: Record<string, unknown>, y: Record<string, unknown>): boolean {
  let count = 0;
  for (const key in x) {
    const value = x[key];
    if (value === undefined || IGNORED_DETAILS.has(key)) continue;
    count++;
    const other = y[key];
    if ((key === 'requestHeaders' || key === 'responseHeaders') && Array.isArray(value) && Array.isArray(other)) {
      if (!sameHeaders(value as HttpHeaders, other as HttpHeaders)) return false;
    } else if (!sameValue(value, other)) return false;
  }
  for (const key in y) if (y[key] !== undefined && !IGNORED_DETAILS.has(key)) count--;
  return count === 0;
}

/**
 * Equal as normalizeHeaders() would make them. A replayed event's headers nearly always come in
 * the recorded order: compared pairwise first, they need no sorted copies (which were a tenth of
 * everything a replay's main thread allocated).
 */
function sameHeaders(a: HttpHeaders, b: HttpHeaders): boolean {
  if (a.length !== b.length) return false;
  let inOrder = true;
  for (let i = 0; i < a.length && inOrder; i++) {
    const x = a[i]!;
    const y = b[i]!;
    inOrder = (x.name === y.name || x.name.toLowerCase() === y.name.toLowerCase()) && headerText(x) === headerText(y);
  }
  return inOrder || sameValue(normalizeHeaders(a), normalizeHeaders(b));
}

/** Equal as canonical() would make them: key order aside, undefined keys absent, bytes by content. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return !Number.isFinite(a) && !Number.isFinite(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return canonical(a) === canonical(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  if (a instanceof ArrayBuffer || ArrayBuffer.isView(a) || b instanceof ArrayBuffer || ArrayBuffer.isView(b) || typeof (a as { toJSON?: unknown }).toJSON === 'function' || typeof (b as { toJSON?: unknown }).toJSON === 'function') {
    return canonical(a) === canonical(b);
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let count = 0;
  for (const key of Object.keys(x)) {
    const value = x[key];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    count++;
    if (!sameValue(value, y[key])) return false;
  }
  for (const key of Object.keys(y)) {
    const value = y[key];
    if (value !== undefined && typeof value !== 'function' && typeof value !== 'symbol') count--;
  }
  return count === 0;
}

export interface OutcomeFact {
  event: string;
  owner: string;
  status: string;
  response?: BlockingResponse;
  reason?: string;
}

export function outcomeFact(outcome: ListenerOutcome): OutcomeFact {
  return {
    event: outcome.event,
    owner: outcome.owner,
    status: outcome.status,
    ...(outcome.response && { response: outcome.response }),
    ...(outcome.reason !== undefined && { reason: outcome.reason }),
  };
}


/** Headers as compared: lower-case names, text values, sorted by name (stable within a name). */
export function normalizeHeaders(headers: HttpHeaders): [string, string][] {
  return headers
    .map((header, index) => ({ name: header.name.toLowerCase(), value: headerText(header), index }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.index - b.index))
    .map(({ name, value }) => [name, value]);
}

/** JSON with object keys sorted, bytes as base64: equal values give equal strings. */
export function canonical(value: unknown): string {
  // Written out directly: building sorted copies for JSON.stringify was a sixth of a replay's
  // main-thread time (a signature per event of every request, recorded and replayed).
  return canonicalText(value) ?? 'null';
}

/** undefined for what JSON leaves out of objects (undefined, functions, symbols). */
function canonicalText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i > 0 ? ',' : '') + (canonicalText(value[i]) ?? 'null');
    return `${text}]`;
  }
  if (value instanceof ArrayBuffer) return `{"base64":${JSON.stringify(Buffer.from(value).toString('base64'))}}`;
  if (ArrayBuffer.isView(value)) return `{"base64":${JSON.stringify(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64'))}}`;
  const toJSON = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof toJSON === 'function') return canonicalText(toJSON.call(value));
  const keys = Object.keys(value).sort();
  let text = '{';
  let first = true;
  for (const key of keys) {
    const item = canonicalText((value as Record<string, unknown>)[key]);
    if (item === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:${item}`;
    first = false;
  }
  return `${text}}`;
}
