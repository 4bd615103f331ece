// What a replay reads, whatever the recording: requests as they become ready to replay, with the
// recorded timeline, in chunks. A session file is read as a stream (SessionBuilder hands out each
// request once it has ended), so a replay holds only what is in flight, not the file; a recording
// already in memory (the TUI's) is one chunk. A HAR is read as a stream too, once per pass (it is
// replayed twice: session-replay.ts), its requests handed out as har-requests.ts makes them.
import type { SerializedCookie } from 'tough-cookie';
import type { JournalEntry } from '../journal.js';
import type { CookieChangeInfo } from '../types.js';
import type { RecordedRequest, RecordedSession, SessionSource } from './recorded-session.js';
import { JournalTracer, type RequestTrace } from './request-trace.js';
import { incompleteWarning, SessionBuilder } from './session-from-journal.js';
import type { SessionEntryStream } from './session-reader.js';
import type { HarFile } from './har/har-import.js';
import { HarRequestBuilder, type HarEntry } from './har/har-requests.js';

export interface ReplayChunk {
  /** Recorded times of the timeline positions this chunk adds, in order. */
  times: number[];
  /** Requests ready to replay (whole, ended), each with its timeline positions. */
  requests: RecordedRequest[];
  /** No request of a later chunk has a step before this position. */
  frontier: number;
  /** No request of a later chunk has an index below this. */
  lowestIndexToCome: number;
}

/** What the recording says happened, cut into requests: what a replay is compared with. */
export interface RecordedBaseline {
  /** A request's recorded trace, once it is ready to replay; forgotten once taken. */
  take(requestId: string): RequestTrace | undefined;
  /** Cookie changes no request caused (known once every chunk is read). */
  unattributedCookieChanges(): CookieChangeInfo[];
}

export interface ReplayInput {
  source: SessionSource;
  file: string;
  /** When recording started (replay's clock starts here). Known once the first chunk is read. */
  startedAt: number;
  /** Cookie stores as recording started, by store id. Known once the first chunk is read. */
  cookies: Record<string, SerializedCookie[]>;
  redacted: boolean;
  listenerTimeoutMs: number | undefined;
  /** A wrtui recording's own journal; undefined for a HAR (see session-replay.ts). */
  baseline: RecordedBaseline | undefined;
  chunks(): AsyncGenerator<ReplayChunk>;
  /** Requests not replayed (they never ended); complete once every chunk is read. */
  skipped: number;
  /** Complete once every chunk is read. */
  warnings: string[];
}

/** Requests a replay can drive: they ended, and they have a hop. */
function isReplayable(request: RecordedRequest): boolean {
  return request.complete && request.hops.length > 0;
}

/** A session file as it is read, batch by batch; its chunks are read once. */
export function streamedReplayInput(file: string, stream: SessionEntryStream): ReplayInput {
  // Made with the first batch, when the header (the cookie stores the recording started with) is in.
  let builder: SessionBuilder | undefined;
  const input: ReplayInput = {
    source: stream.source,
    file,
    startedAt: Date.now(),
    cookies: {},
    redacted: false,
    listenerTimeoutMs: undefined,
    baseline: {
      take: (requestId) => builder?.tracer.take(requestId),
      unattributedCookieChanges: () => builder?.tracer.trace().unattributedCookieChanges ?? [],
    },
    skipped: 0,
    warnings: stream.warnings,
    async *chunks() {
      // The header is read with the first batch (or, with none, by the end): the timeline's start and the cookie stores.
      const started = (first: JournalEntry | undefined): SessionBuilder => {
        const { header } = stream;
        input.source = stream.source;
        input.startedAt = header?.startedAt ?? first?.time ?? Date.now();
        input.cookies = header?.cookies ?? {};
        input.redacted = header?.redacted ?? false;
        input.listenerTimeoutMs = header?.listenerTimeoutMs;
        return new SessionBuilder(input.cookies, { keep: false });
      };
      for await (const entries of stream.batches()) {
        builder ??= started(entries[0]);
        const times: number[] = [];
        for (const entry of entries) {
          times.push(entry.time);
          builder.add(entry);
        }
        yield { times, requests: ready(builder, input), frontier: builder.frontier(), lowestIndexToCome: builder.lowestIndexToCome() };
      }
      builder ??= started(undefined);
      builder.finish();
      if (builder.incomplete > 0) input.warnings.push(incompleteWarning(builder.incomplete));
      input.skipped += builder.incomplete;
      yield { times: [], requests: ready(builder, input), frontier: Infinity, lowestIndexToCome: Infinity };
    },
  };
  return input;
}

/**
 * A HAR as it is read, as often as the replay asks for its chunks: what is held is the reorder
 * window and the requests in flight, not the file. `reading()` gives each reading a counter of its
 * bytes; `window` is how far out of start order entries are put back in order (har-requests.ts).
 */
export function streamedHarInput(har: HarFile, options: { reading?: () => (bytes: number) => void; window?: number } = {}): ReplayInput {
  const input: ReplayInput = {
    source: 'har',
    file: har.file,
    startedAt: Date.now(),
    cookies: {},
    redacted: false,
    listenerTimeoutMs: undefined,
    baseline: undefined,
    skipped: 0,
    warnings: [],
    async *chunks() {
      const builder = new HarRequestBuilder(options.window === undefined ? {} : { window: options.window });
      const batches = har.entries(options.reading?.());
      try {
        yield* harChunks(builder, batches, input);
      } finally {
        // Stopped early: the file is closed.
        await batches.return([]);
      }
    },
  };
  return input;
}

/** One reading of a HAR, as the replay's chunks. */
async function* harChunks(builder: HarRequestBuilder, batches: AsyncGenerator<HarEntry[], string[]>, input: ReplayInput): AsyncGenerator<ReplayChunk> {
  for (let next = await batches.next(); ; next = await batches.next()) {
    if (next.done) {
      builder.finish();
      // Each reading finds the same: said once.
      for (const warning of [...next.value, ...builder.warnings()]) if (!input.warnings.includes(warning)) input.warnings.push(warning);
    } else {
      for (const entry of next.value) builder.add(entry);
      // The first chunk brings the timeline's start: the earliest entry, once the window is full.
      if (builder.startedAt === undefined) continue;
    }
    input.startedAt = builder.startedAt ?? Date.now();
    const { times, requests } = builder.take();
    if (next.done) {
      yield { times, requests, frontier: Infinity, lowestIndexToCome: Infinity };
      return;
    }
    yield { times, requests, frontier: builder.frontier(), lowestIndexToCome: builder.lowestIndexToCome() };
  }
}

/** A recording already in memory: a wrtui session or a HAR read whole (the TUI keeps it for re-runs). */
export function wholeReplayInput(session: RecordedSession): ReplayInput {
  const replayable = session.requests.filter(isReplayable);
  let baseline: RecordedBaseline | undefined;
  if (session.journal) {
    const journal = session.journal;
    // Traced when first asked (a re-run of a session kept whole has its baseline already: session-replay.ts).
    let traced: JournalTracer | undefined;
    const tracer = () => {
      if (!traced) {
        traced = new JournalTracer();
        for (const entry of journal) traced.add(entry);
      }
      return traced;
    };
    baseline = { take: (requestId) => tracer().take(requestId), unattributedCookieChanges: () => tracer().trace().unattributedCookieChanges };
  }
  return {
    source: session.source,
    file: session.file,
    startedAt: session.startedAt,
    cookies: session.cookies,
    redacted: session.redacted,
    listenerTimeoutMs: session.listenerTimeoutMs,
    baseline,
    skipped: session.requests.length - replayable.length,
    warnings: [...session.warnings],
    async *chunks() {
      yield { times: session.times, requests: replayable, frontier: Infinity, lowestIndexToCome: Infinity };
    },
  };
}

/** Ended requests without a hop (nothing was ever sent) are counted as skipped, as a whole read counts them. */
function ready(builder: SessionBuilder, input: ReplayInput): RecordedRequest[] {
  const replayable: RecordedRequest[] = [];
  for (const request of builder.take()) {
    if (isReplayable(request)) replayable.push(request);
    else {
      input.skipped++;
      builder.tracer.take(request.requestId);
    }
  }
  return replayable;
}
