// chrome.webRequest inside an extension's worker. addListener validates exactly as the engine's
// registry does (the same functions: Chrome's TypeErrors thrown at the call) and tells the host,
// which matches filters and host permissions on the proxy thread and sends each event only to the
// listeners that see it. Here a listener runs and its answer goes back; a listener that never
// answers is the host's business (its timeout), not this side's.
import type { ListenerResult, WorkerItem } from '../protocol.js';
import { BLOCKING_PERMISSION_MESSAGE, validateExtraInfoSpec } from '../../web-request/listener-registry.js';
import { compileRequestFilter } from '../../web-request/request-filter.js';
import { MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES, WEB_REQUEST_EVENTS, type HttpHeaders, type WebRequestEventName } from '../../types.js';
import { enumObjects, FACTS_FIELD, type EventFacts, type Persona } from '../../personas/persona.js';
import type { Bridge } from './bridge.js';
import type { HostCalls } from './host-calls.js';
import { SimpleEvent } from './simple-event.js';
import { StreamFilters } from './stream-filter-binding.js';

interface LocalListener {
  lid: number;
  event: WebRequestEventName;
  callback: (...args: unknown[]) => unknown;
  spec: ReadonlySet<string>;
  blocking: boolean;
  asyncBlocking: boolean;
}

const OPTIONAL_FIELDS = ['requestHeaders', 'responseHeaders', 'requestBody'] as const;

export class WebRequestBinding {
  readonly #bridge: Bridge;
  readonly #calls: HostCalls;
  readonly #permissions: () => ReadonlySet<string>;
  readonly #persona: () => Persona;
  /** Chrome's onActionIgnored (the chrome persona only). */
  readonly actionIgnored: SimpleEvent;
  /** Firefox's StreamFilters this extension made (filterResponseData). */
  readonly filters: StreamFilters;
  readonly #byLid = new Map<number, LocalListener>();
  readonly #byEvent = new Map<WebRequestEventName, LocalListener[]>(WEB_REQUEST_EVENTS.map((event) => [event, []]));
  #nextLid = 1;

  constructor(bridge: Bridge, calls: HostCalls, permissions: () => ReadonlySet<string>, persona: () => Persona, onError: (error: unknown, where: string) => void) {
    this.#bridge = bridge;
    this.#calls = calls;
    this.#permissions = permissions;
    this.#persona = persona;
    this.actionIgnored = new SimpleEvent('webRequest.onActionIgnored', onError);
    this.filters = new StreamFilters(bridge, onError);
  }

  /**
   * The namespace object. `manifestVersion` decides what filterResponseData needs: Firefox asks
   * webRequestBlocking of an MV2 extension, and webRequestFilterResponse too of an MV3 one.
   */
  namespace(manifestVersion = 2): Record<string, unknown> {
    const persona = this.#persona();
    // The spec names no enum objects; Chrome and Firefox both put them on the namespace.
    const namespace: Record<string, unknown> = {
      MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES,
      ...(persona.name !== 'spec' && enumObjects(persona)),
    };
    if (persona.hasActionIgnored) {
      const event = this.actionIgnored;
      namespace.onActionIgnored = { addListener: event.addListener, removeListener: event.removeListener, hasListener: event.hasListener, hasListeners: event.hasListeners };
    }
    for (const event of WEB_REQUEST_EVENTS) {
      namespace[event] = {
        addListener: (callback: unknown, filter: unknown, extraInfoSpec?: unknown) => this.#add(event, callback, filter, extraInfoSpec),
        removeListener: (callback: unknown) => this.#remove(event, callback),
        hasListener: (callback: unknown) => this.#byEvent.get(event)!.some((listener) => listener.callback === callback),
        hasListeners: () => this.#byEvent.get(event)!.length > 0,
      };
    }
    if (persona.hasSecurityInfo) {
      // Firefox: a Promise of the SecurityInfo (undefined unless a blocking listener of this extension was given the request).
      namespace.getSecurityInfo = (requestId: unknown, options?: unknown) => {
        const valid =
          typeof requestId === 'string' &&
          (options === undefined || options === null || (typeof options === 'object' && Object.entries(options).every(([key, value]) => (key === 'certificateChain' || key === 'rawDER') && (value === undefined || typeof value === 'boolean'))));
        if (!valid) throw new Error('Incorrect argument types for webRequest.getSecurityInfo.');
        return this.#calls.call('webRequest.getSecurityInfo', [requestId, options ?? {}]).then((outcome) => {
          if (outcome.ok) return outcome.value;
          throw new Error(outcome.error);
        });
      };
    }
    const permissions = this.#permissions();
    if (persona.hasFilterResponseData && permissions.has('webRequestBlocking') && (manifestVersion < 3 || permissions.has('webRequestFilterResponse'))) {
      namespace.filterResponseData = (requestId: unknown) => {
        if (typeof requestId !== 'string') throw new Error('Incorrect argument types for webRequest.filterResponseData.');
        return this.filters.create(requestId);
      };
    }
    namespace.handlerBehaviorChanged = (callback?: unknown) => {
      if (callback !== undefined && typeof callback !== 'function') {
        throw new TypeError('Error in invocation of webRequest.handlerBehaviorChanged(optional function callback): No matching signature.');
      }
      // Asynchronous like the browser's, whether or not the call was within the quota.
      return this.#calls.call('webRequest.handlerBehaviorChanged', []).then(() => {
        (callback as (() => void) | undefined)?.();
      });
    };
    return namespace;
  }

  #add(event: WebRequestEventName, callback: unknown, filter: unknown, extraInfoSpec: unknown): void {
    const where = `webRequest.${event}.addListener`;
    if (typeof callback !== 'function') throw new TypeError(`${where}: the listener must be a function.`);
    const normalized = compileRequestFilter(filter, this.#persona(), where).filter;
    const spec = validateExtraInfoSpec(event, extraInfoSpec, where, this.#persona());
    const blocking = spec.has('blocking') || spec.has('asyncBlocking');
    if (blocking && !this.#permissions().has('webRequestBlocking')) throw new TypeError(`${where}: ${BLOCKING_PERMISSION_MESSAGE}`);
    const listeners = this.#byEvent.get(event)!;
    // Adding the same function again is a no-op, as with any extension event.
    if (listeners.some((listener) => listener.callback === callback)) return;
    const listener: LocalListener = {
      lid: this.#nextLid++,
      event,
      callback: callback as LocalListener['callback'],
      spec,
      blocking,
      asyncBlocking: spec.has('asyncBlocking'),
    };
    listeners.push(listener);
    this.#byLid.set(listener.lid, listener);
    this.#bridge.post(['add', listener.lid, event, normalized, [...spec]]);
  }

  #remove(event: WebRequestEventName, callback: unknown): void {
    const listeners = this.#byEvent.get(event)!;
    const index = listeners.findIndex((listener) => listener.callback === callback);
    if (index === -1) return;
    const [listener] = listeners.splice(index, 1);
    this.#byLid.delete(listener!.lid);
    this.#bridge.post(['remove', listener!.lid]);
  }

  /**
   * One event for some listeners. Each gets its own details, parsed in this realm, with the
   * optional fields its extraInfoSpec asked for. With `call` ≠ 0 the host waits: the answers go
   * back once every listener answered (Promises awaited).
   */
  deliver(call: number, event: WebRequestEventName, lids: readonly number[], json: string): void {
    const results: (ListenerResult | Promise<ListenerResult>)[] = [];
    for (const lid of lids) {
      const listener = this.#byLid.get(lid);
      if (!listener) {
        // Removed after the host sent the event: it did not answer.
        results.push([lid, 'value', undefined]);
        continue;
      }
      const details = detailsFor(listener, json, this.#persona());
      // The host waits only for blocking listeners; the others' failures are reported on their own.
      const awaited = call !== 0 && listener.blocking;
      let value: unknown;
      try {
        value = listener.asyncBlocking
          ? new Promise((resolve) => listener.callback(details, (response: unknown) => resolve(response)))
          : listener.callback(details);
      } catch (error) {
        if (awaited) results.push(this.#failure(lid, 'threw', error));
        else this.#late(event, details, error, 'threw');
        continue;
      }
      if (!awaited) {
        if (isThenable(value)) Promise.resolve(value).catch((error: unknown) => this.#late(event, details, error, 'rejected'));
        continue;
      }
      results.push(
        isThenable(value)
          ? Promise.resolve(value).then(
              (settled) => answer(lid, settled),
              (error: unknown) => this.#failure(lid, 'rejected', error),
            )
          : answer(lid, value),
      );
    }
    if (call === 0) return;
    if (results.every((result) => Array.isArray(result))) {
      this.#bridge.post(['answers', call, results as ListenerResult[]]);
    } else {
      void Promise.all(results).then((settled) => this.#bridge.post(['answers', call, settled]));
    }
  }

  #failure(lid: number, outcome: 'threw' | 'rejected', error: unknown): ListenerResult {
    const location = this.#bridge.locate(error);
    return location === undefined ? [lid, outcome, messageOf(error)] : [lid, outcome, messageOf(error), location];
  }

  /** A failure nobody waits for: reported to the host on its own. */
  #late(event: WebRequestEventName, details: Record<string, unknown>, error: unknown, outcome: 'threw' | 'rejected'): void {
    const location = this.#bridge.locate(error);
    const item: WorkerItem = ['lateFailure', event, String(details.requestId), `listener ${outcome}: ${messageOf(error)}`];
    if (location !== undefined) item.push(location);
    this.#bridge.post(item);
  }
}

function detailsFor(listener: LocalListener, json: string, persona: Persona): Record<string, unknown> {
  const details = JSON.parse(json) as Record<string, unknown>;
  for (const field of OPTIONAL_FIELDS) {
    if (field in details && !listener.spec.has(field)) delete details[field];
  }
  // Chrome shows some headers only to listeners that asked for extraHeaders (the host restores them in the answer).
  const extraHeaders = listener.spec.has('extraHeaders');
  const facts = details[FACTS_FIELD] as EventFacts | undefined;
  if (facts !== undefined) delete details[FACTS_FIELD];
  if (details.requestHeaders) details.requestHeaders = persona.visibleRequestHeaders(details.requestHeaders as HttpHeaders, extraHeaders, facts);
  if (details.responseHeaders) details.responseHeaders = persona.visibleResponseHeaders(details.responseHeaders as HttpHeaders, extraHeaders);
  const body = details.requestBody as { raw?: { bytes?: unknown }[] } | undefined;
  if (body?.raw) for (const data of body.raw) if (data.bytes !== undefined) data.bytes = bytesFromWire(data.bytes);
  return details;
}

/** requestBody.raw[].bytes travel as `{ $bytes: base64 }` (JSON has no ArrayBuffer). */
function bytesFromWire(wire: unknown): ArrayBuffer {
  const binary = atob((wire as { $bytes: string }).$bytes ?? '');
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

/** A listener's answer, or why it cannot be sent (a function, a Map, … is no BlockingResponse). */
function answer(lid: number, value: unknown): ListenerResult {
  const problem = uncloneable(value, 'the answer');
  return problem === undefined ? [lid, 'value', value] : [lid, 'invalid', problem];
}

function uncloneable(value: unknown, path: string, depth = 0): string | undefined {
  if (value === null || value === undefined) return undefined;
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return undefined;
  if (type !== 'object') return `${path} is a ${type}, which a BlockingResponse cannot hold`;
  if (depth > 8) return `${path} is nested too deeply for a BlockingResponse`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = uncloneable(value[i], `${path}[${i}]`, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== null && proto !== Object.prototype) {
    return `${path} is ${describeObject(value)}, not a plain object`;
  }
  for (const key of Object.keys(value)) {
    const problem = uncloneable((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

function describeObject(value: object): string {
  const name = (value as { constructor?: { name?: string } }).constructor?.name;
  return name ? `a ${name}` : 'an object with a foreign prototype';
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

export function messageOf(error: unknown): string {
  if (error instanceof Error || (typeof error === 'object' && error !== null && 'message' in error)) return String((error as Error).message);
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
