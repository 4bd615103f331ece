// webRequest.filterResponseData inside an extension's worker: Firefox's StreamFilter, in the
// extension's realm. The states, what each method accepts in each state and what it throws follow
// Firefox's StreamFilterChild (checked on Firefox ESR 153: write() or suspend() before `start`
// throw NS_ERROR_FAILURE, close() twice is harmless, disconnect() after close() throws). The bytes
// go to the host, which runs the body through the filter (web-request/stream-filter.ts).
//
// Firefox holds a filter alive while data flows and lets it go after `stop`: a filter nobody
// references then is collected and disconnected, which ends a response nobody closed. Here a
// FinalizationRegistry does the same.
import type { HostItem } from '../protocol.js';
import type { Bridge } from './bridge.js';

type Status = 'uninitialized' | 'transferringdata' | 'finishedtransferringdata' | 'suspended' | 'closed' | 'disconnected' | 'failed';
type Handler = ((event: Event) => unknown) | null;
const EVENTS = ['start', 'data', 'stop', 'error'] as const;
type FilterEvent = (typeof EVENTS)[number];

/** Where write(), close() and disconnect() are allowed: from `start` until the filter is closed, disconnected or failed. */
const STEERABLE: ReadonlySet<Status> = new Set(['transferringdata', 'suspended', 'finishedtransferringdata']);

/** Firefox throws an XPCOM exception for a call in the wrong state: name NS_ERROR_FAILURE, empty message. */
function failure(): Error {
  const error = new Error('');
  error.name = 'NS_ERROR_FAILURE';
  Object.defineProperty(error, 'result', { value: 0x80004005 });
  return error;
}

class StreamFilterState {
  status: Status = 'uninitialized';
  error = '';
  stopReceived = false;
  /** Data that came while suspended, dispatched on resume. */
  buffered: Uint8Array[] = [];
  handlers: Record<FilterEvent, Handler> = { start: null, data: null, stop: null, error: null };
  listeners: Record<FilterEvent, ((event: Event) => unknown)[]> = { start: [], data: [], stop: [], error: [] };
}

const states = new WeakMap<object, StreamFilterState>();
const owners = new WeakMap<object, { fid: number; filters: StreamFilters }>();

function stateOf(filter: object): StreamFilterState {
  const state = states.get(filter);
  if (!state) throw new TypeError("'StreamFilter' method called on an object that does not implement interface StreamFilter.");
  return state;
}

/** Firefox's StreamFilter: an event target whose methods steer the response body. */
export class StreamFilter {
  get status(): Status {
    return stateOf(this).status;
  }

  get error(): string {
    return stateOf(this).error;
  }

  write(data: unknown): void {
    const state = stateOf(this);
    const kind = Object.prototype.toString.call(data);
    if (kind !== '[object ArrayBuffer]' && kind !== '[object Uint8Array]') {
      throw new TypeError('StreamFilter.write: Argument 1 could not be converted to any of: ArrayBuffer, Uint8Array.');
    }
    if (!STEERABLE.has(state.status)) throw failure();
    // A copy: the extension may reuse its buffer at once.
    const bytes = kind === '[object ArrayBuffer]' ? new Uint8Array((data as ArrayBuffer).slice(0)) : (data as Uint8Array).slice();
    const { fid, filters } = owners.get(this)!;
    filters.write(fid, bytes);
  }

  close(): void {
    const state = stateOf(this);
    if (state.status === 'closed') return;
    if (!STEERABLE.has(state.status)) throw failure();
    state.status = 'closed';
    state.buffered = [];
    const { fid, filters } = owners.get(this)!;
    filters.call(fid, 'close');
  }

  disconnect(): void {
    const state = stateOf(this);
    if (state.status === 'disconnected') return;
    if (!STEERABLE.has(state.status)) throw failure();
    state.status = 'disconnected';
    const { fid, filters } = owners.get(this)!;
    // What came while suspended goes on untouched, ahead of the rest.
    for (const chunk of state.buffered.splice(0)) filters.handBack(fid, chunk);
    filters.call(fid, 'disconnect');
  }

  suspend(): void {
    const state = stateOf(this);
    if (state.status === 'suspended') return;
    if (state.status !== 'transferringdata') throw failure();
    state.status = 'suspended';
    const { fid, filters } = owners.get(this)!;
    filters.call(fid, 'suspend');
  }

  resume(): void {
    const state = stateOf(this);
    if (state.status === 'transferringdata') return;
    if (state.status !== 'suspended') throw failure();
    state.status = 'transferringdata';
    const { fid, filters } = owners.get(this)!;
    filters.call(fid, 'resume');
    filters.resumed(fid, this, state);
  }

  addEventListener(type: string, listener: unknown): void {
    const state = stateOf(this);
    if (!(EVENTS as readonly string[]).includes(type) || typeof listener !== 'function') return;
    const list = state.listeners[type as FilterEvent];
    if (!list.includes(listener as (event: Event) => unknown)) list.push(listener as (event: Event) => unknown);
  }

  removeEventListener(type: string, listener: unknown): void {
    const state = stateOf(this);
    if (!(EVENTS as readonly string[]).includes(type)) return;
    state.listeners[type as FilterEvent] = state.listeners[type as FilterEvent].filter((candidate) => candidate !== listener);
  }
}

for (const type of EVENTS) {
  Object.defineProperty(StreamFilter.prototype, `on${type}`, {
    configurable: true,
    enumerable: true,
    get(this: object) {
      return stateOf(this).handlers[type];
    },
    set(this: object, handler: unknown) {
      stateOf(this).handlers[type] = typeof handler === 'function' ? (handler as Handler) : null;
    },
  });
}

/** The worker's filters, by number; the host's items for them land here. */
export class StreamFilters {
  readonly #bridge: Bridge;
  readonly #report: (error: unknown, where: string) => void;
  /** Filters the body still flows to: held, as Firefox's actor holds them. */
  readonly #held = new Map<number, StreamFilter>();
  /** Filters past `stop`: the extension's to keep, or to let go (then they are disconnected). */
  readonly #released = new Map<number, WeakRef<StreamFilter>>();
  readonly #collected = new FinalizationRegistry<number>((fid) => {
    this.#released.delete(fid);
    this.call(fid, 'disconnect');
  });
  #next = 1;

  constructor(bridge: Bridge, report: (error: unknown, where: string) => void) {
    this.#bridge = bridge;
    this.#report = report;
  }

  create(requestId: string): StreamFilter {
    const filter = new StreamFilter();
    const fid = this.#next++;
    states.set(filter, new StreamFilterState());
    owners.set(filter, { fid, filters: this });
    this.#held.set(fid, filter);
    this.#bridge.post(['filterCreate', fid, requestId]);
    return filter;
  }

  call(fid: number, method: 'close' | 'disconnect' | 'suspend' | 'resume'): void {
    this.#bridge.post(['filterCall', fid, method]);
  }

  write(fid: number, bytes: Uint8Array): void {
    this.#bridge.post(['filterWrite', fid, bytes]);
  }

  /** Data the filter lets by untouched (disconnected): written back as it came, and acknowledged. */
  handBack(fid: number, chunk: Uint8Array): void {
    this.#bridge.post(['filterWrite', fid, chunk]);
    this.#bridge.post(['filterAck', fid, chunk.length]);
  }

  receive(item: HostItem): void {
    const fid = item[1] as number;
    const filter = this.#held.get(fid) ?? this.#released.get(fid)?.deref();
    if (!filter) {
      // Gone (collected after `stop`): data it would have had goes on untouched.
      if (item[0] === 'filterData') this.handBack(fid, item[2] as Uint8Array);
      return;
    }
    const state = states.get(filter)!;
    switch (item[0]) {
      case 'filterStart':
        if (state.status !== 'uninitialized') return;
        state.status = 'transferringdata';
        this.#fire(filter, state, 'start');
        return;
      case 'filterData': {
        const chunk = item[2] as Uint8Array;
        if (state.status === 'suspended') state.buffered.push(chunk);
        else if (state.status === 'disconnected') this.handBack(fid, chunk);
        else if (state.status === 'transferringdata') this.#emitData(fid, filter, state, chunk);
        else this.#bridge.post(['filterAck', fid, chunk.length]); // closed: dropped
        return;
      }
      case 'filterStop':
        state.stopReceived = true;
        if (state.status === 'transferringdata') this.#stop(fid, filter, state);
        else if (state.status === 'closed' || state.status === 'disconnected') this.#held.delete(fid);
        return;
      case 'filterError':
        state.status = 'failed';
        state.error = item[2] as string;
        this.#held.delete(fid);
        this.#fire(filter, state, 'error');
        return;
    }
  }

  /**
   * Resumed: what came meanwhile is dispatched at once (within resume(), as Firefox does), and
   * `stop`, if the body ended meanwhile, once resume() has returned (Firefox waits for its parent).
   */
  resumed(fid: number, filter: StreamFilter, state: StreamFilterState): void {
    while (state.buffered.length > 0 && state.status === 'transferringdata') this.#emitData(fid, filter, state, state.buffered.shift()!);
    if (state.stopReceived) {
      void Promise.resolve().then(() => {
        if (state.status === 'transferringdata') this.#stop(fid, filter, state);
      });
    }
  }

  #stop(fid: number, filter: StreamFilter, state: StreamFilterState): void {
    state.status = 'finishedtransferringdata';
    this.#held.delete(fid);
    this.#fire(filter, state, 'stop');
    // Neither closed nor disconnected in its `stop` handler: the extension's to keep or let go.
    if (state.status === 'finishedtransferringdata') {
      this.#released.set(fid, new WeakRef(filter));
      this.#collected.register(filter, fid);
    }
  }

  #emitData(fid: number, filter: StreamFilter, state: StreamFilterState, chunk: Uint8Array): void {
    // An ArrayBuffer of the extension's own realm, as Firefox gives (`event.data instanceof ArrayBuffer`).
    const data = new ArrayBuffer(chunk.length);
    new Uint8Array(data).set(chunk);
    this.#fire(filter, state, 'data', data);
    this.#bridge.post(['filterAck', fid, chunk.length]);
  }

  #fire(filter: StreamFilter, state: StreamFilterState, type: FilterEvent, data?: ArrayBuffer): void {
    const event = new Event(type);
    if (data) Object.defineProperty(event, 'data', { value: data, enumerable: true });
    const handler = state.handlers[type];
    for (const listener of handler ? [handler, ...state.listeners[type]] : [...state.listeners[type]]) {
      try {
        listener.call(filter, event);
      } catch (error) {
        this.#report(error, `StreamFilter.on${type}`);
      }
    }
  }
}
