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
  // One walk that sorts keys and turns bytes into base64; JSON.stringify then needs no replacer.
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof ArrayBuffer) return { base64: Buffer.from(value).toString('base64') };
  if (ArrayBuffer.isView(value)) return { base64: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) sorted[key] = sortKeys(item);
  }
  return sorted;
}
