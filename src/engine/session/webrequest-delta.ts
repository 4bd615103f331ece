// Session format 2 does not repeat per event what a request's earlier events said: a webRequest
// entry's details are written as what changed since the same request's previous event in the
// file (its URL, method, type, tab and frame ids and often its headers are the same in its five to
// seven events), a listener outcome leaves out its event (the entry's), and `outcomes` is left out
// when empty. A small GET's recording shrinks by a fifth to a quarter. The reader rebuilds every
// entry exactly (same keys, same order), so nothing after it knows; format 1 files read as before.
//
// On a line, `delta` takes the place of `details`. The details are rebuilt as the previous
// event's keys in their order, less those `gone` lists, each with the value `delta` gives or else
// the previous one, followed by `delta`'s other keys in their order. So `delta` holds requestId,
// the carried keys whose value changed, and the keys that come after (new ones, and any the
// previous event had in another order). A request's first event (and any event whose request is
// not open) is written whole.
import type { JournalEntry, WebRequestEntry } from '../journal.js';
import { encodeLine } from './session-json.js';

/** After these a request has no further events: its state is let go. */
const LAST_EVENTS: ReadonlySet<string> = new Set(['onCompleted', 'onErrorOccurred']);

/**
 * A request's last event as written: its details' keys in order and their values, a primitive as
 * itself and an object (headers, requestBody, …) as its JSON text, a snapshot (the entry's objects
 * may change after they were journaled).
 */
interface WrittenDetails {
  keys: string[];
  values: unknown[];
  /** The JSON text of each object value; undefined for a primitive, written only if it changed. */
  texts: (string | undefined)[];
}

/** Writes journal entries as format 2 lines. One per session file: it follows the requests in flight. */
export class DeltaEncoder {
  readonly #open = new Map<string, WrittenDetails>();

  line(entry: JournalEntry): string {
    if (entry.kind !== 'webRequest') return encodeLine(entry);
    const written: WrittenDetails = { keys: [], values: [], texts: [] };
    const details = entry.details as unknown as Record<string, unknown>;
    for (const key of Object.keys(details)) {
      const value = details[key];
      // What JSON.stringify leaves out of an object.
      if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
      written.keys.push(key);
      const isObject = typeof value === 'object' && value !== null;
      written.values.push(isObject ? undefined : value);
      written.texts.push(isObject ? objectText(key, value) : undefined);
    }
    const requestId = entry.details.requestId;
    const previous = this.#open.get(requestId);
    if (LAST_EVENTS.has(entry.event)) this.#open.delete(requestId);
    else this.#open.set(requestId, written);

    const outcomes = outcomesPart(entry);
    const carried = previous && carriedPositions(previous.keys, written.keys);
    if (!carried) return lineWith(entry, `"details":{${membersText(written, () => true)}}`, outcomes);
    const same = (i: number, position: number) =>
      written.texts[i] === undefined ? previous.texts[position] === undefined && previous.values[position] === written.values[i] : previous.texts[position] === written.texts[i];
    const changed = membersText(written, (i) => i === 0 || i >= carried.length || !same(i, carried[i]!));
    const gone = previous.keys.filter((_, position) => !carried.includes(position));
    return lineWith(entry, `"delta":{${changed}}${gone.length > 0 ? `,"gone":${JSON.stringify(gone)}` : ''}`, outcomes);
  }
}

/**
 * For the keys carried over from the previous event, their positions there: the longest start of
 * this event's keys that the previous event has in the same order (the rest are written out, and
 * the previous event's other keys are `gone`). Undefined when requestId does not lead both.
 */
function carriedPositions(previous: string[], keys: string[]): number[] | undefined {
  if (keys[0] !== 'requestId' || previous[0] !== 'requestId') return undefined;
  const positions: number[] = [];
  for (const key of keys) {
    const position = previous.indexOf(key);
    if (position === -1 || position < (positions.at(-1) ?? -1)) break;
    positions.push(position);
  }
  return positions;
}

/** Details values are JSON but for requestBody's bytes (an ArrayBuffer), which encodeLine writes as base64. */
function objectText(key: string, value: object): string {
  return key === 'requestBody' ? encodeLine(value) : JSON.stringify(value);
}

function primitiveText(value: unknown): string {
  // Numbers are most of a request's values and the cheapest to write (this runs on the proxy's thread).
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  return JSON.stringify(value);
}

/** Keys as JSON strings: the same few dozen names on every line. */
const quotedKeys = new Map<string, string>();
function quoted(key: string): string {
  let text = quotedKeys.get(key);
  if (text === undefined) {
    text = JSON.stringify(key);
    if (quotedKeys.size < 1_000) quotedKeys.set(key, text);
  }
  return text;
}

/** `"key":value` for the members `wanted` keeps, comma-separated. */
function membersText(written: WrittenDetails, wanted: (index: number) => boolean): string {
  const members: string[] = [];
  for (let i = 0; i < written.keys.length; i++) if (wanted(i)) members.push(`${quoted(written.keys[i]!)}:${written.texts[i] ?? primitiveText(written.values[i])}`);
  return members.join(',');
}

/** Rebuilds the entries of format 2 lines (and passes format 1's through). One per file read, in file order. */
export class DeltaDecoder {
  readonly #open = new Map<string, Record<string, unknown>>();

  /** The journal entry a line's value stands for; throws DeltaError when it cannot be rebuilt. */
  entry(value: Record<string, unknown>): Record<string, unknown> {
    if (value.kind !== 'webRequest') return value;
    let details = value.details;
    if ('delta' in value) {
      const delta = value.delta as Record<string, unknown> | null;
      if (typeof delta !== 'object' || delta === null || typeof delta.requestId !== 'string') throw new DeltaError('a webRequest "delta" without a requestId');
      const previous = this.#open.get(delta.requestId);
      if (!previous) throw new DeltaError(`a webRequest "delta" of request ${delta.requestId}, whose earlier events are not before it in the file`);
      const gone = value.gone ?? [];
      if (!Array.isArray(gone) || !gone.every((key) => typeof key === 'string')) throw new DeltaError('a webRequest "gone" that is not a list of names');
      details = rebuiltDetails(previous, delta, gone);
    }
    const entry = rebuiltEntry(value, details);
    // A malformed entry is for entryProblem (entry-shape.ts) to name.
    if (typeof details !== 'object' || details === null || typeof (details as { requestId?: unknown }).requestId !== 'string') return entry;
    const requestId = (details as { requestId: string }).requestId;
    if (LAST_EVENTS.has(entry.event as string)) this.#open.delete(requestId);
    else this.#open.set(requestId, details as Record<string, unknown>);
    return entry;
  }
}

export class DeltaError extends Error {}

function rebuiltDetails(previous: Record<string, unknown>, delta: Record<string, unknown>, gone: string[]): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  const goneKeys = new Set(gone);
  // Unchanged values are shared with the previous event's entry, as a live journal's events may share them.
  for (const key of Object.keys(previous)) if (!goneKeys.has(key)) details[key] = key in delta ? delta[key] : previous[key];
  for (const key of Object.keys(delta)) if (!(key in details)) details[key] = delta[key];
  return details;
}

/**
 * The entry a webRequest line stands for: `details` (rebuilt) in the place of `details` or
 * `delta`, then `outcomes` (an empty list when left out), each with its event again.
 */
function rebuiltEntry(value: Record<string, unknown>, details: unknown): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'gone' || key === 'outcomes') continue;
    if (key === 'delta' || key === 'details') {
      entry.details = details;
      entry.outcomes = outcomesOf(value.outcomes, value.event);
    } else entry[key] = item;
  }
  return entry;
}

function outcomesOf(outcomes: unknown, event: unknown): unknown {
  if (outcomes === undefined) return [];
  if (!Array.isArray(outcomes)) return outcomes;
  return outcomes.map((outcome: unknown) =>
    typeof outcome === 'object' && outcome !== null && !('event' in outcome) ? { owner: (outcome as { owner?: unknown }).owner, event, ...outcome } : outcome,
  );
}

/** The outcomes as a line holds them: left out when there are none, and each without its event when it is the entry's. */
function outcomesPart(entry: WebRequestEntry): string | undefined {
  if (entry.outcomes.length === 0) return undefined;
  const written = entry.outcomes.map((outcome) => {
    const keys = Object.keys(outcome);
    if (keys[0] !== 'owner' || keys[1] !== 'event' || outcome.event !== entry.event) return outcome;
    const { event: _event, ...rest } = outcome;
    return rest;
  });
  return `"outcomes":${encodeLine(written)}`;
}

/** The entry's line with `detailsPart` in the place of its details and `outcomesPart` (none: left out) of its outcomes. */
function lineWith(entry: WebRequestEntry, detailsPart: string, outcomesPart: string | undefined): string {
  const parts = ['{'];
  for (const [key, value] of Object.entries(entry)) {
    const part = key === 'details' ? detailsPart : key === 'outcomes' ? outcomesPart : valuePart(key, value);
    if (part !== undefined) parts.push(parts.length === 1 ? part : `,${part}`);
  }
  parts.push('}');
  // Joined, the line is one flat string: the file's queue holds lines for up to 100 ms, and a
  // line built by + would be a tree of dozens of strings for the collector to move meanwhile.
  return parts.join('');
}

function valuePart(key: string, value: unknown): string | undefined {
  const text = typeof value === 'object' && value !== null ? (encodeLine(value) as string | undefined) : JSON.stringify(value);
  return text === undefined ? undefined : `${quoted(key)}:${text}`;
}
