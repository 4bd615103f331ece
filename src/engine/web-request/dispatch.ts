// Calls the listeners of one event for one request: each gets its own copy of the details with only
// the optional fields its extraInfoSpec asked for; blocking answers are awaited with a timeout; a
// throw, a hang or a rejected Promise becomes a 'failed' outcome, never an exception in the proxy.
// Listeners in extension workers (`remote`) are sent the event instead: one message per worker
// and event, the details serialised once; their answers come back through the same checks.
import { cloneHeaders } from '../headers.js';
import type { ListenerOutcome } from '../journal.js';
import type { BlockingResponse, HttpHeaders, WebRequestBody, WebRequestDetails, WebRequestEventName } from '../types.js';
import { specPersona, type Persona } from '../personas/index.js';
import { FACTS_FIELD, type EventFacts } from '../personas/persona.js';
import { checkBlockingResponse, type CheckedBlockingResponse } from './blocking-response.js';
import { OPTIONAL_FIELDS, type RegisteredListener, type RemoteEndpoint, type RemoteResult } from './listener-registry.js';
import type { FilterableRequest } from './request-filter.js';

export interface ListenerAnswer {
  listener: RegisteredListener;
  checked: CheckedBlockingResponse;
  durationMs: number;
}

export interface DispatchResult {
  /** Answers of blocking listeners, in registration order. */
  answers: ListenerAnswer[];
  /** Listeners that threw, hung or answered nonsense. */
  failures: ListenerOutcome[];
}

export interface DispatchOptions {
  timeoutMs: number;
  /** Failures that surface after the event was journaled (a non-blocking listener's rejected Promise). */
  onLateFailure: (outcome: ListenerOutcome) => void;
  /** The request as filters saw it (its type as seen, store, context): what personas build their details from. */
  request?: FilterableRequest;
  /** What the lifecycle knows of this event beyond its details (Persona.eventFields). */
  facts?: EventFacts;
  /** Filled with the blocking listeners whose answers are awaited, each removed as its answer (or failure) comes. */
  unanswered?: Set<RegisteredListener>;
}

const byRegistration = (a: ListenerAnswer, b: ListenerAnswer) => a.listener.id - b.listener.id;

/**
 * Sorts a handful of items in place (stable). Array.prototype.sort allocates its work state on
 * every call, which showed as a few KB per request on the proxy thread; a request's answers are
 * rarely more than a few.
 */
export function sortSmall<T>(items: T[], compare: (a: T, b: T) => number): T[] {
  for (let i = 1; i < items.length; i++) {
    const item = items[i]!;
    let j = i - 1;
    while (j >= 0 && compare(items[j]!, item) > 0) {
      items[j + 1] = items[j]!;
      j--;
    }
    items[j + 1] = item;
  }
  return items;
}

interface RemoteGroup {
  endpoint: RemoteEndpoint;
  listeners: RegisteredListener[];
}

/** The details without the optional fields, copied once per event and shallow-copied per listener. */
function baseDetails(full: WebRequestDetails): Record<string, unknown> {
  const base: Record<string, unknown> = {};
  for (const key in full) {
    if (key !== 'requestHeaders' && key !== 'responseHeaders' && key !== 'requestBody') base[key] = (full as unknown as Record<string, unknown>)[key];
  }
  return base;
}

/**
 * The details without optional fields as each persona shows them: the spec's as journaled; a
 * browser's with its type name and its fields made from the request's context. Made once per
 * persona and event.
 */
class PersonaBases {
  readonly #base: Record<string, unknown>;
  readonly #request: FilterableRequest | undefined;
  readonly #event: WebRequestEventName;
  readonly #facts: EventFacts | undefined;
  /** Made on first use: most events reach listeners of one persona, often the spec's, which needs none. */
  #bases: Map<Persona, Record<string, unknown>> | undefined;

  constructor(event: WebRequestEventName, base: Record<string, unknown>, request: FilterableRequest | undefined, facts: EventFacts | undefined) {
    this.#event = event;
    this.#base = base;
    this.#request = request;
    this.#facts = facts;
  }

  for(persona: Persona): Record<string, unknown> {
    const request = this.#request;
    if (persona === specPersona || !request) return this.#base;
    this.#bases ??= new Map();
    let base = this.#bases.get(persona);
    if (!base) {
      const fields = request.fieldsFor ? request.fieldsFor(persona) : request.context && persona.contextFields(request.context, request.storeId ?? '0');
      base = Object.assign({}, this.#base, fields, persona.eventFields?.(this.#event, this.#base, this.#facts));
      base.type = persona.typeOf(request.type);
      this.#bases.set(persona, base);
    }
    return base;
  }

  /**
   * The JSON text of `for(persona)`: the spec's base stringified once per event, and a browser's
   * fields (the same for every event of a request) appended as text made once per request. Keys
   * the fields repeat (type, frameId) come twice; JSON.parse keeps the last, as Object.assign does.
   */
  json(persona: Persona): string {
    const request = this.#request;
    this.#specJson ??= JSON.stringify(this.#base);
    if (persona === specPersona || !request) return this.#specJson;
    if (!request.fieldsJsonFor) return JSON.stringify(this.for(persona));
    const worded = persona.eventFields?.(this.#event, this.#base, this.#facts);
    const json = `${this.#specJson.slice(0, -1)},${request.fieldsJsonFor(persona).slice(1)}`;
    return worded && Object.keys(worded).length > 0 ? `${json.slice(0, -1)},${JSON.stringify(worded).slice(1)}` : json;
  }

  #specJson: string | undefined;
}

/** The details a listener may see: its own shallow copy, with optional fields only when asked for. */
export function detailsForListener(listener: RegisteredListener, full: WebRequestDetails, base = baseDetails(full), facts?: EventFacts): WebRequestDetails {
  const copy: Record<string, unknown> = { ...base };
  const spec = listener.extraInfoSpec;
  if (spec.size > 0) {
    const persona = listener.owner.persona;
    const extraHeaders = spec.has('extraHeaders');
    const { requestHeaders, responseHeaders, requestBody } = full as Partial<Record<'requestHeaders' | 'responseHeaders', HttpHeaders>> & { requestBody?: WebRequestBody };
    if (requestHeaders && spec.has('requestHeaders')) copy.requestHeaders = cloneHeaders(persona.visibleRequestHeaders(requestHeaders, extraHeaders, facts));
    if (responseHeaders && spec.has('responseHeaders')) copy.responseHeaders = cloneHeaders(persona.visibleResponseHeaders(responseHeaders, extraHeaders));
    if (requestBody && spec.has('requestBody')) copy.requestBody = cloneRequestBody(requestBody);
  }
  return copy as unknown as WebRequestDetails;
}

/**
 * Checks an answer in the listener's persona, and puts back the headers it was not shown (Chrome's
 * extraHeaders rule), so that what is merged is what the listener could change and nothing else.
 */
function checkAnswer(listener: RegisteredListener, event: WebRequestEventName, value: unknown, full: WebRequestDetails): CheckedBlockingResponse {
  const persona = listener.owner.persona;
  const checked = checkBlockingResponse(event, value, persona);
  if (checked.kind !== 'valid' || persona === specPersona) return checked;
  const extraHeaders = listener.extraInfoSpec.has('extraHeaders');
  const shown = full as Partial<Record<'requestHeaders' | 'responseHeaders', HttpHeaders>>;
  const response = { ...checked.response };
  if (response.requestHeaders && shown.requestHeaders) response.requestHeaders = persona.restoreRequestHeaders(shown.requestHeaders, response.requestHeaders, extraHeaders);
  if (response.responseHeaders && shown.responseHeaders) response.responseHeaders = persona.restoreResponseHeaders(shown.responseHeaders, response.responseHeaders, extraHeaders);
  return { ...checked, response };
}

function cloneRequestBody(body: WebRequestBody): WebRequestBody {
  return {
    ...body,
    ...(body.formData && { formData: Object.fromEntries(Object.entries(body.formData).map(([k, v]) => [k, [...v]])) }),
    ...(body.raw && { raw: body.raw.map((data) => ({ ...data, ...(data.bytes && { bytes: data.bytes.slice(0) }) })) }),
  };
}

/**
 * Calls every listener. Synchronous when no answer is pending (always so for non-blocking events,
 * which keeps their journal entries in order); a Promise when some blocking answer is.
 */
export function dispatch(
  event: WebRequestEventName,
  listeners: readonly RegisteredListener[],
  full: WebRequestDetails,
  options: DispatchOptions,
): DispatchResult | Promise<DispatchResult> {
  const answers: ListenerAnswer[] = [];
  const failures: ListenerOutcome[] = [];
  const pending: Promise<void>[] = [];

  const bases = new PersonaBases(event, baseDetails(full), options.request, options.facts);
  // One group per worker, in the order their first listener comes (an array: a handful at most).
  let remote: RemoteGroup[] | undefined;
  for (const listener of listeners) {
    if (listener.remote) {
      remote ??= [];
      const endpoint = listener.remote.endpoint;
      const group = remote.find((candidate) => candidate.endpoint === endpoint);
      if (group) group.listeners.push(listener);
      else remote.push({ endpoint, listeners: [listener] });
      continue;
    }
    const started = performance.now();
    let result: unknown;
    let asyncAnswer: Promise<unknown> | undefined;
    try {
      const details = detailsForListener(listener, full, bases.for(listener.owner.persona), options.facts);
      if (listener.asyncBlocking) {
        // onAuthRequired's asyncBlocking form: the answer comes through a callback.
        asyncAnswer = new Promise((resolve) => listener.callback(details, (response?: BlockingResponse) => resolve(response)));
      } else {
        result = listener.callback(details);
      }
    } catch (error) {
      failures.push(failure(listener, event, started, `listener threw: ${messageOf(error)}`, error));
      continue;
    }

    if (!listener.blocking) {
      // A non-blocking listener's return value means nothing, but a rejection is still its failure.
      if (isThenable(result)) {
        Promise.resolve(result).catch((error) =>
          options.onLateFailure(failure(listener, event, started, `listener rejected: ${messageOf(error)}`, error)),
        );
      }
      continue;
    }

    const answer = asyncAnswer ?? (isThenable(result) ? Promise.resolve(result) : undefined);
    if (!answer) {
      answers.push({ listener, checked: checkAnswer(listener, event, result, full), durationMs: millisecondsSince(started) });
      continue;
    }
    options.unanswered?.add(listener);
    pending.push(
      (listener.owner.answersByHand ? answer : withTimeout(answer, options.timeoutMs)).then(
        (value) => {
          options.unanswered?.delete(listener);
          if (value === TIMED_OUT) {
            failures.push(failure(listener, event, started, `listener did not answer within ${options.timeoutMs} ms; the request went on without it`));
          } else {
            answers.push({ listener, checked: checkAnswer(listener, event, value, full), durationMs: millisecondsSince(started) });
          }
        },
        (error) => {
          options.unanswered?.delete(listener);
          failures.push(failure(listener, event, started, `listener rejected: ${messageOf(error)}`, error));
        },
      ),
    );
  }
  if (remote) {
    const json = new DetailsJson(full, bases, options.facts);
    for (const { endpoint, listeners: group } of remote) {
      const waiting = sendToWorker(endpoint, group, event, json, options, answers, failures);
      if (waiting) pending.push(waiting);
    }
  }
  const finish = (): DispatchResult => {
    // Keep answers in registration order whatever order the Promises settled in.
    if (answers.length > 1) sortSmall(answers, byRegistration);
    let invalid = false;
    for (const answer of answers) {
      if (answer.checked.kind === 'invalid') {
        invalid = true;
        failures.push({
          owner: answer.listener.owner.id,
          event,
          status: 'failed',
          reason: `invalid BlockingResponse: ${answer.checked.reason}`,
          durationMs: answer.durationMs,
        });
      }
    }
    return { answers: invalid ? answers.filter((answer) => answer.checked.kind !== 'invalid') : answers, failures };
  };
  return pending.length > 0 ? Promise.all(pending).then(finish) : finish();
}

/**
 * Sends the event to one worker's listeners. Returns a Promise when blocking listeners are among
 * them (their answers, failures or the timeout land in `answers` / `failures`); non-blocking ones
 * are not waited for (their failures reach the journal later, as a log entry).
 */
function sendToWorker(
  endpoint: RemoteEndpoint,
  group: RegisteredListener[],
  event: WebRequestEventName,
  json: DetailsJson,
  options: DispatchOptions,
  answers: ListenerAnswer[],
  failures: ListenerOutcome[],
): Promise<void> | undefined {
  const started = performance.now();
  let anyBlocking = false;
  const lids: number[] = [];
  for (const listener of group) {
    lids.push(listener.remote!.lid);
    if (listener.blocking) anyBlocking = true;
  }
  if (!endpoint.responsive) {
    for (const listener of group) if (listener.blocking) failures.push(failure(listener, event, started, endpoint.unresponsiveReason));
    return undefined;
  }
  const sent = endpoint.send(event, lids, json.for(group), json.url, anyBlocking ? options.timeoutMs : 0);
  if (!sent) return undefined;
  const { unanswered } = options;
  if (unanswered) for (const listener of group) if (listener.blocking) unanswered.add(listener);
  return sent.then((results) => {
    if (unanswered) for (const listener of group) unanswered.delete(listener);
    if (!Array.isArray(results)) {
      for (const listener of group) if (listener.blocking) failures.push(failure(listener, event, started, results.failed));
      return;
    }
    for (const result of results) {
      const listener = group.find((candidate) => candidate.blocking && candidate.remote!.lid === result[0]);
      if (!listener) continue;
      const durationMs = millisecondsSince(started);
      if (result[1] === 'value') {
        answers.push({ listener, checked: checkAnswer(listener, event, result[2], json.full), durationMs });
        continue;
      }
      const [, outcome, message, location] = result as Exclude<RemoteResult, [number, 'value', unknown]>;
      const reason = outcome === 'invalid' ? `invalid BlockingResponse: ${message}` : `listener ${outcome}: ${message}`;
      failures.push({ owner: listener.owner.id, event, status: 'failed', reason, ...(location !== undefined && { location }), durationMs });
    }
  });
}

/**
 * The details as JSON for workers, made at most once per event: the details without their
 * optional fields, then each optional field a worker's listeners asked for, appended as text. A
 * worker whose listeners did not ask for headers is not sent them. requestBody.raw bytes travel
 * as base64.
 */
class DetailsJson {
  readonly url: string;
  readonly full: WebRequestDetails;
  readonly #bases: PersonaBases;
  /** The base's JSON for the first persona asked (usually the only one), then for others. */
  #firstPersona: Persona | undefined;
  #firstJson = '';
  #otherJson: Map<Persona, string> | undefined;
  readonly #fieldJson: (string | undefined)[] = [];

  readonly #facts: EventFacts | undefined;

  constructor(full: WebRequestDetails, bases: PersonaBases, facts: EventFacts | undefined) {
    this.full = full;
    this.#bases = bases;
    this.url = full.url;
    this.#facts = facts;
  }

  /** One worker's listeners (one owner, so one persona); the worker applies the persona's header visibility itself. */
  for(group: readonly RegisteredListener[]): string {
    const persona = group[0]!.owner.persona;
    let json: string;
    if (this.#firstPersona === undefined) {
      this.#firstPersona = persona;
      json = this.#firstJson = this.#bases.json(persona);
    } else if (this.#firstPersona === persona) {
      json = this.#firstJson;
    } else {
      this.#otherJson ??= new Map();
      json = this.#otherJson.get(persona) ?? this.#bases.json(persona);
      this.#otherJson.set(persona, json);
    }
    let wanted = 0;
    for (const listener of group) wanted |= listener.optionalFields;
    if (wanted === 0) return json;
    for (let bit = 0; bit < OPTIONAL_FIELDS.length; bit++) {
      if (!(wanted & (1 << bit))) continue;
      const field = OPTIONAL_FIELDS[bit]!;
      const value = (this.full as unknown as Record<string, unknown>)[field];
      if (value === undefined) continue;
      const text = (this.#fieldJson[bit] ??= field === 'requestBody' && (value as WebRequestBody).raw ? JSON.stringify(value, bytesAsBase64) : JSON.stringify(value));
      json = `${json.slice(0, -1)},"${field}":${text}}`;
    }
    // The worker applies header visibility, some of which depends on the event's facts: it reads and removes this.
    if (this.#facts?.authRetry && 'requestHeaders' in this.full) json = `${json.slice(0, -1)},"${FACTS_FIELD}":${JSON.stringify({ authRetry: true })}}`;
    return json;
  }
}

function bytesAsBase64(_key: string, value: unknown): unknown {
  return value instanceof ArrayBuffer ? { $bytes: Buffer.from(value).toString('base64') } : value;
}

function failure(listener: RegisteredListener, event: WebRequestEventName, started: number, reason: string, error?: unknown): ListenerOutcome {
  const location = error === undefined ? undefined : locationOf(error);
  return {
    owner: listener.owner.id,
    event,
    status: 'failed',
    reason,
    ...(location !== undefined && { location }),
    durationMs: millisecondsSince(started),
  };
}

const TIMED_OUT = Symbol('timed out');

/** Rounded to the microsecond: finer is timer noise, and every outcome in the journal, its JSON and recordings carries it. */
function millisecondsSince(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : JSON.stringify(error) ?? String(error);
}

/** The first stack frame outside wrtui's engine and node's internals: where in the rule it failed. */
export function locationOf(error: unknown): string | undefined {
  const stack = (error as Error | null)?.stack;
  if (typeof stack !== 'string') return undefined;
  for (const line of stack.split('\n').slice(1)) {
    const frame = /\(?((?:file:\/\/)?[^()\s]+:\d+:\d+)\)?\s*$/.exec(line.trim())?.[1];
    if (!frame || frame.startsWith('node:') || frame.includes('/src/engine/') || frame.includes('/node_modules/')) continue;
    return frame;
  }
  return undefined;
}
