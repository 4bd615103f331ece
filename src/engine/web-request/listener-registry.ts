// The listeners of the 9 web request events, for every owner. Registration validates as Chrome
// does (a bad filter or extraInfoSpec registers nothing); dispatch asks which listeners see a request.
import type { Owner } from '../owner.js';
import { specPersona, type Persona } from '../personas/index.js';
import {
  BLOCKING_EVENTS,
  WEB_REQUEST_EVENTS,
  type RequestFilter,
  type WebRequestEventName,
} from '../types.js';
import { compileRequestFilter, type CompiledRequestFilter, type FilterableRequest } from './request-filter.js';

// Any callable: listeners are user code with the event's own signature.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyListener = (...args: any[]) => unknown;

export interface RegisteredListener {
  readonly id: number;
  readonly owner: Owner;
  readonly event: WebRequestEventName;
  readonly callback: AnyListener;
  readonly filter: CompiledRequestFilter;
  readonly extraInfoSpec: ReadonlySet<string>;
  /** Registered with "blocking" or "asyncBlocking": the request waits for its answer. */
  readonly blocking: boolean;
  /** onAuthRequired with "asyncBlocking": answers through a callback instead of a return value. */
  readonly asyncBlocking: boolean;
  /** Which optional details fields its extraInfoSpec asks for, as bits of OPTIONAL_FIELDS (1 << index). */
  readonly optionalFields: number;
  /** Set when the listener runs in an extension's worker: dispatch sends it the event instead of calling `callback`. */
  readonly remote?: RemoteListener;
}

/** A listener in an extension's worker, as the proxy thread knows it. */
export interface RemoteListener {
  readonly endpoint: RemoteEndpoint;
  /** The listener's id in its worker. */
  readonly lid: number;
}

/** A result from a worker: what one listener answered, or how it failed. */
export type RemoteResult =
  | [lid: number, outcome: 'value', value: unknown]
  | [lid: number, outcome: 'threw' | 'rejected' | 'invalid', message: string, location?: string];

/** The proxy thread's end of an extension's worker (extensions/extension-worker.ts). */
export interface RemoteEndpoint {
  /** False while the worker does not answer (stuck, restarting): its listeners are skipped, with a failed outcome for blocking ones. */
  readonly responsive: boolean;
  /**
   * True while its top level still runs (a new version loading beside the old one): its listeners
   * are told only of the requests it makes itself, as a browser tells a starting extension's
   * listeners of its own fetches; every other request waits for it to go live, the atomic swap.
   */
  readonly loading?: boolean;
  /** Why it is not responsive, for that outcome. */
  readonly unresponsiveReason: string;
  /**
   * Sends one event (details as JSON) to some of the worker's listeners. With `timeoutMs` > 0 the
   * caller waits: resolves with their results, or with why none came (the timeout passed, the
   * worker was stopped).
   */
  send(event: WebRequestEventName, lids: number[], details: string, url: string, timeoutMs: number): Promise<RemoteResult[] | { failed: string }> | undefined;
}

/** What the UI shows of a listener. */
export interface ListenerDescription {
  id: number;
  owner: string;
  event: WebRequestEventName;
  filter: RequestFilter;
  extraInfoSpec: string[];
}

/** The details fields a listener sees only when its extraInfoSpec names them. */
export const OPTIONAL_FIELDS = ['requestHeaders', 'responseHeaders', 'requestBody'] as const;

export const BLOCKING_PERMISSION_MESSAGE =
  'You do not have permission to use blocking webRequest listeners. Be sure to declare the webRequestBlocking permission in your manifest.';

export class ListenerRegistry {
  #nextId = 1;
  /** Listeners registered with Chrome's extraHeaders: while there is one, Chrome shows CORS preflights. */
  #extraHeadersListeners = 0;
  readonly #byEvent = new Map<WebRequestEventName, RegisteredListener[]>(WEB_REQUEST_EVENTS.map((event) => [event, []]));
  readonly #onChange: (() => void) | undefined;

  constructor(options: { onChange?: () => void } = {}) {
    this.#onChange = options.onChange;
  }

  /** Chrome's addListener(callback, filter, extraInfoSpec?): throws a TypeError and registers nothing when invalid. */
  add(owner: Owner, event: WebRequestEventName, callback: unknown, filter: unknown, extraInfoSpec?: unknown, remote?: RemoteListener): void {
    const where = `webRequest.${event}.addListener`;
    if (typeof callback !== 'function') throw new TypeError(`${where}: the listener must be a function.`);
    const compiled: CompiledRequestFilter = compileRequestFilter(filter, owner.persona, where);
    const spec = validateExtraInfoSpec(event, extraInfoSpec, where, owner.persona);
    const blocking = spec.has('blocking') || spec.has('asyncBlocking');
    if (blocking && !owner.permissions.has('webRequestBlocking')) throw new TypeError(`${where}: ${BLOCKING_PERMISSION_MESSAGE}`);

    const listeners = this.#byEvent.get(event)!;
    // Adding the same function again is a no-op, as with any extension event.
    if (listeners.some((listener) => listener.owner.id === owner.id && listener.callback === callback)) return;
    listeners.push({
      id: this.#nextId++,
      owner,
      event,
      callback: callback as AnyListener,
      filter: compiled,
      extraInfoSpec: spec,
      blocking,
      asyncBlocking: spec.has('asyncBlocking'),
      optionalFields: OPTIONAL_FIELDS.reduce((bits, field, bit) => (spec.has(field) ? bits | (1 << bit) : bits), 0),
      ...(remote && { remote }),
    });
    if (spec.has('extraHeaders')) this.#extraHeadersListeners++;
    this.#onChange?.();
  }

  remove(owner: Owner, event: WebRequestEventName, callback: unknown): void {
    const listeners = this.#byEvent.get(event)!;
    const index = listeners.findIndex((listener) => listener.owner.id === owner.id && listener.callback === callback);
    if (index === -1) return;
    const [removed] = listeners.splice(index, 1);
    if (removed!.extraInfoSpec.has('extraHeaders')) this.#extraHeadersListeners--;
    this.#onChange?.();
  }

  has(owner: Owner, event: WebRequestEventName, callback?: unknown): boolean {
    return this.#byEvent
      .get(event)!
      .some((listener) => listener.owner.id === owner.id && (callback === undefined || listener.callback === callback));
  }

  /** Removes every listener of an owner (a rule being unloaded); returns how many. */
  removeOwner(owner: Owner): number {
    let removed = 0;
    for (const [event, listeners] of this.#byEvent) {
      const kept = listeners.filter((listener) => listener.owner.id !== owner.id);
      removed += listeners.length - kept.length;
      for (const listener of listeners) if (listener.owner.id === owner.id && listener.extraInfoSpec.has('extraHeaders')) this.#extraHeadersListeners--;
      this.#byEvent.set(event, kept);
    }
    if (removed > 0) this.#onChange?.();
    return removed;
  }

  /**
   * The listeners of `event` whose filter and owner's host permissions cover the request, in
   * registration order; `only` narrows them (an auth retry that only Firefox re-fires).
   */
  listenersFor(event: WebRequestEventName, request: FilterableRequest, only?: (persona: Persona) => boolean): RegisteredListener[] {
    const listeners = this.#byEvent.get(event)!;
    if (listeners.length === 0) return listeners;
    return listeners.filter((listener) => this.#sees(listener, request) && (!only || only(listener.owner.persona)));
  }

  /** Whether any blocking listener of `event` would see the request (the proxy buffers only then). */
  hasBlockingListener(event: WebRequestEventName, request: FilterableRequest): boolean {
    return this.#byEvent.get(event)!.some((listener) => listener.blocking && this.#sees(listener, request));
  }

  #sees(listener: RegisteredListener, request: FilterableRequest): boolean {
    // An extension's own URL (a redirect to its resource) is its own to see, and no other's (Chromium 156).
    if (request.extensionHost !== undefined) return listener.owner.extensionHost === request.extensionHost && listener.filter.matches(request);
    // An extension's own request: it sees it (Chromium 156, Firefox ESR 153.7), no other extension
    // does (Chromium 156) (test/extensions/extension-network.test.ts, test/personas/firefox-network.test.ts).
    if (request.madeBy !== undefined && listener.owner.extensionHost !== request.madeBy) return false;
    // A version's own request is that version's: a version loading sees only its own requests, and
    // during a hot reload neither the old nor the new version sees the other's.
    const endpoint = listener.remote?.endpoint;
    if (endpoint) {
      if (request.madeByVersion !== undefined && endpoint !== request.madeByVersion) return false;
      if (request.madeByVersion === undefined && endpoint.loading) return false;
    }
    if (!listener.filter.matches(request) || !listener.owner.hostPermissions.matches(request.url)) return false;
    // Chrome shows a CORS preflight only while some listener asked for extraHeaders (checked on Chromium 156).
    if (request.context?.preflight && listener.owner.persona.preflightsNeedExtraHeaders && this.#extraHeadersListeners === 0) return false;
    return true;
  }

  count(event?: WebRequestEventName): number {
    if (event) return this.#byEvent.get(event)!.length;
    let total = 0;
    for (const listeners of this.#byEvent.values()) total += listeners.length;
    return total;
  }

  describe(owner?: Owner): ListenerDescription[] {
    const out: ListenerDescription[] = [];
    for (const listeners of this.#byEvent.values()) {
      for (const listener of listeners) {
        if (owner && listener.owner.id !== owner.id) continue;
        out.push({
          id: listener.id,
          owner: listener.owner.id,
          event: listener.event,
          filter: listener.filter.filter,
          extraInfoSpec: [...listener.extraInfoSpec],
        });
      }
    }
    return out.sort((a, b) => a.id - b.id);
  }
}

/** Checks an addListener's extraInfoSpec as the persona's browser does; throws a TypeError saying what is wrong. */
export function validateExtraInfoSpec(event: WebRequestEventName, value: unknown, where: string, persona: Persona = specPersona): ReadonlySet<string> {
  if (value === undefined || value === null) return new Set();
  const allowed = persona.extraInfoSpec[event];
  if (allowed.length === 0) throw new TypeError(`${where}: ${event} takes no extraInfoSpec, only a filter.`);
  if (!Array.isArray(value)) throw new TypeError(`${where}: extraInfoSpec must be an array of strings.`);
  value.forEach((option, index) => {
    if (!allowed.includes(option as string)) throw new TypeError(persona.errors.badOption(where, event, option, index, allowed));
  });
  const spec = new Set(value as string[]);
  if (spec.has('blocking') && spec.has('asyncBlocking')) {
    throw new TypeError(`${where}: "blocking" and "asyncBlocking" cannot be used together.`);
  }
  if (!BLOCKING_EVENTS.has(event) && spec.has('blocking')) {
    // Unreachable through the enums today; kept so a future enum change cannot make a non-blocking event block.
    throw new TypeError(`${where}: ${event} cannot block.`);
  }
  return spec;
}
