// Firefox's webRequest.filterResponseData, the engine's side. An extension asks for a filter on a
// request before its response starts; when the body flows, every chunk goes to the extension
// (`data`), nothing reaches the client but what the extension writes, and the response ends when
// the extension closes the filter (or, once disconnected, when the body ends). Several filters on
// one request are chained, each one's output the next one's input, the one made last nearest the
// network: Firefox wraps the channel's listener with each new filter, so with filters A then B made
// on a body x the page gets A(B(x)) (checked on Firefox ESR 153).
//
// Measured on Firefox ESR 153 (docs/personas.md, firefox persona): a filter made after the response started,
// or for an unknown request, fails with "Invalid request ID"; a followed server redirect fails it
// with "Channel redirected"; data with no `ondata` listener is lost; `disconnect()` lets the rest
// of the body through untouched. Where a browser would queue without limit, this side keeps at
// most HIGH_WATER bytes unacknowledged per filter and pauses the body's source meanwhile, so a
// filter that copies a 100 MiB stream runs in flat memory.
import { Readable } from 'node:stream';
import type { HttpHeaders } from '../types.js';
import { decodedStream } from './content-decoding.js';

/** The extension's end of one filter (an extension worker, or a test). */
export interface FilterEndpoint {
  start(): void;
  /** A chunk of the (decoded) body; the extension acknowledges it once handled. */
  data(chunk: Uint8Array): void;
  /** The body ended: no more data will come. */
  stop(): void;
  /** The filter failed; `message` is what `filter.error` says. */
  error(message: string): void;
}

/** Bytes sent to an extension and not yet acknowledged, past which the body's source is paused. */
export const HIGH_WATER = 1 << 20;

/** Where a filter's output goes: the next filter, or the client. */
interface Downstream {
  push(chunk: Uint8Array): void;
  end(): void;
}

type FilterState = 'waiting' | 'transferring' | 'closed' | 'disconnecting' | 'disconnected' | 'failed';

/** One StreamFilter: made by `filterResponseData`, driven by the body once it flows. */
export class ResponseFilter implements Downstream {
  readonly ownerId: string;
  readonly #endpoint: FilterEndpoint;
  #state: FilterState = 'waiting';
  #chain: FilterChain | undefined;
  #output: Downstream | undefined;
  #inputEnded = false;
  #suspended = false;
  #sent = 0;
  #acknowledged = 0;
  /** Body chunks that came while a disconnect waited for the extension to hand back what it had. */
  #held: Uint8Array[] = [];
  bytesIn = 0;
  bytesOut = 0;

  constructor(ownerId: string, endpoint: FilterEndpoint) {
    this.ownerId = ownerId;
    this.#endpoint = endpoint;
  }

  get state(): FilterState {
    return this.#state;
  }

  /** The body starts flowing through this filter into `output`. */
  connect(chain: FilterChain, output: Downstream): void {
    this.#chain = chain;
    this.#output = output;
    this.#state = 'transferring';
    this.#endpoint.start();
  }

  /** The request ends without this filter seeing a body (cancelled, failed, answered elsewhere): start and stop, as Firefox's listener chain does. */
  abandon(): void {
    if (this.#state !== 'waiting') return;
    this.#state = 'closed';
    this.#endpoint.start();
    this.#endpoint.stop();
  }

  /** Fails the filter and lets the body by (Firefox: "Channel redirected"). */
  fail(message: string): void {
    if (this.#state === 'failed' || this.#state === 'closed') return;
    this.#state = 'failed';
    this.#endpoint.error(message);
  }

  /** The body's next chunk, from the source or the filter before. */
  push(chunk: Uint8Array): void {
    this.bytesIn += chunk.length;
    switch (this.#state) {
      case 'transferring':
        this.#sent += chunk.length;
        this.#endpoint.data(chunk);
        if (this.pressing) this.#chain?.update(); // enough in flight: the source waits for acknowledgements
        return;
      case 'disconnecting':
        this.#held.push(chunk);
        this.#chain?.update();
        return;
      case 'disconnected':
        this.#pass(chunk);
        return;
      default:
        return; // closed: the extension said the body ends here
    }
  }

  /** The body ended upstream. */
  end(): void {
    if (this.#inputEnded) return;
    this.#inputEnded = true;
    if (this.#state === 'transferring') this.#endpoint.stop();
    else if (this.#state === 'disconnected') this.#output!.end();
  }

  // ── what the extension does ───────────────────────────────────────────────

  written(bytes: Uint8Array): void {
    if (this.#state === 'transferring' || this.#state === 'disconnecting') this.#pass(bytes);
  }

  close(): void {
    if (this.#state !== 'transferring' && this.#state !== 'disconnecting') return;
    this.#state = 'closed';
    this.#held = [];
    this.#output!.end();
    this.#chain?.update();
  }

  disconnect(): void {
    if (this.#state !== 'transferring') return;
    this.#state = 'disconnecting';
    this.#settleDisconnect();
  }

  acknowledged(bytes: number): void {
    this.#acknowledged += bytes;
    if (this.#state === 'disconnecting') this.#settleDisconnect();
    this.#chain?.update();
  }

  suspend(): void {
    this.#suspended = true;
  }

  resume(): void {
    this.#suspended = false;
    this.#chain?.update();
  }

  /** The extension's side is gone (its worker died): the request cannot finish as it would have. */
  broken(reason: string): void {
    if (this.#state === 'waiting') {
      this.#state = 'failed';
      return;
    }
    if (this.#state === 'transferring' || this.#state === 'disconnecting') {
      this.#state = 'failed';
      this.#chain?.broken(this, reason);
    }
  }

  // ── flow ──────────────────────────────────────────────────────────────────

  /** Whether the body's source should wait for this filter. */
  get pressing(): boolean {
    if (this.#state === 'transferring') return this.#suspended || this.#sent - this.#acknowledged > HIGH_WATER;
    return this.#state === 'disconnecting';
  }

  /** The extension has handed back everything it was sent: the rest goes by untouched. */
  #settleDisconnect(): void {
    if (this.#acknowledged < this.#sent) return;
    this.#state = 'disconnected';
    const held = this.#held;
    this.#held = [];
    for (const chunk of held) this.#pass(chunk);
    if (this.#inputEnded) this.#output!.end();
    this.#chain?.update();
  }

  #pass(chunk: Uint8Array): void {
    this.bytesOut += chunk.length;
    this.#output!.push(chunk);
  }
}

/** Where the filtered body goes (a ServerResponse, or a collector in tests). */
export interface BodySink {
  write(chunk: Uint8Array): boolean;
  end(): void;
  once(event: 'drain', listener: () => void): unknown;
}

export type ChainOutcome = { kind: 'ended' } | { kind: 'cancelled' } | { kind: 'broken'; ownerId: string; reason: string } | { kind: 'source-failed'; error: unknown };

/**
 * Runs `source` through `filters` into `sink`. Resolves once the sink was ended (every filter
 * closed, or disconnected with the body over), when a filter's extension went away, or when the
 * source failed (each filter is told `stop`, as Firefox tells a filter of a failed channel).
 */
export class FilterChain {
  readonly done: Promise<ChainOutcome>;
  readonly #filters: readonly ResponseFilter[];
  readonly #source: Readable;
  readonly #sink: BodySink;
  #settle!: (outcome: ChainOutcome) => void;
  #settled = false;
  #paused = false;
  #sinkFull = false;

  /** `filters` in the order they were made; the body meets them in the reverse order. */
  constructor(filters: readonly ResponseFilter[], source: Readable, sink: BodySink) {
    this.#filters = [...filters].reverse();
    this.#source = source;
    this.#sink = sink;
    this.done = new Promise((resolve) => (this.#settle = resolve));
  }

  start(): void {
    const toSink: Downstream = {
      push: (chunk) => {
        if (this.#settled) return;
        if (!this.#sink.write(chunk) && !this.#sinkFull) {
          this.#sinkFull = true;
          this.#sink.once('drain', () => {
            this.#sinkFull = false;
            this.update();
          });
          this.update();
        }
      },
      end: () => {
        if (this.#settled) return;
        this.#sink.end();
        this.#finish({ kind: 'ended' });
      },
    };
    for (let index = this.#filters.length - 1; index >= 0; index--) {
      this.#filters[index]!.connect(this, this.#filters[index + 1] ?? toSink);
    }
    const first = this.#filters[0]!;
    this.#source.on('data', (chunk: Uint8Array) => first.push(chunk));
    this.#source.once('end', () => first.end());
    this.#source.once('error', (error: unknown) => {
      if (this.#settled) return;
      for (const filter of this.#filters) filter.end();
      this.#finish({ kind: 'source-failed', error });
    });
    this.update();
  }

  /** Pauses the source while any filter or the client is behind; resumes it once none is. */
  update(): void {
    if (this.#settled) return;
    const behind = this.#sinkFull || this.#filters.some((filter) => filter.pressing);
    if (behind && !this.#paused) {
      this.#paused = true;
      this.#source.pause();
    } else if (!behind && this.#paused) {
      this.#paused = false;
      this.#source.resume();
    }
  }

  /** The client went away: nothing more goes to the sink, and each filter hears the body is over (Firefox tells a cancelled channel's filters `stop`). */
  cancel(): void {
    if (this.#settled) return;
    this.#finish({ kind: 'cancelled' });
    for (const filter of this.#filters) filter.end();
  }

  broken(filter: ResponseFilter, reason: string): void {
    this.#finish({ kind: 'broken', ownerId: filter.ownerId, reason });
  }

  #finish(outcome: ChainOutcome): void {
    if (this.#settled) return;
    this.#settled = true;
    // What still comes from the source goes nowhere; keep it flowing so its connection drains.
    if (this.#paused) this.#source.resume();
    this.#settle(outcome);
  }
}

/**
 * A whole body (a recorded one, in replay) through `filters`, decoded first as a browser decodes
 * it (`headers` say how it was encoded); what the filters write goes nowhere. Resolves with how
 * the chain ended.
 */
export async function filterWholeBody(
  filters: readonly ResponseFilter[],
  body: Uint8Array | undefined,
  headers: HttpHeaders,
  /** A filter not closed by then is given up on (told `stop`, its output dropped): replay must not wait for ever. */
  timeoutMs: number,
  /** Gets what the filters wrote, the body a client would get. */
  output?: (chunk: Uint8Array) => void,
): Promise<ChainOutcome | { kind: 'timed-out' }> {
  const source = decodedStream(Readable.from(body && body.length > 0 ? [body] : []), headers).stream;
  const chain = new FilterChain(filters, source, {
    write: (chunk) => {
      output?.(chunk);
      return true;
    },
    end: () => {},
    once: () => undefined,
  });
  chain.start();
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    chain.done,
    new Promise<{ kind: 'timed-out' }>((resolve) => {
      timer = setTimeout(() => {
        chain.cancel();
        resolve({ kind: 'timed-out' });
      }, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  return outcome;
}
