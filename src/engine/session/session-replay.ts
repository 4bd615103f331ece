// `wrtui replay`: a recorded session (or HAR) through today's rules, offline, compared with what
// happened. A fresh Engine (no state dir: nothing is read from or written to disk) whose cookie
// stores start as they were when recording started, so cookies evolve during replay as they did
// live: recorded Set-Cookie headers go into the store through the lifecycle and later requests
// carry them. Rules load from the folder once (ExtensionHost, watch off), applied or, with dryRun, not.
// Requests run through replay-driver.ts in the recorded interleaving (replay-scheduler.ts) over
// RecordedTransport: no network at all.
//
// Compared with: for a wrtui session, the recorded journal itself. A HAR has no journal (no
// events, no outcomes), so it is first replayed with no rules, and the rules' replay is compared
// with that: the differences are then exactly what the rules do.
import { Cookie as ToughCookie } from 'tough-cookie';
import { Engine } from '../engine.js';
import type { JournalEntry } from '../journal.js';
import type { CookieChangeInfo } from '../types.js';
import { ExtensionHost } from '../extensions/extension-host.js';
import type { ProgressListener } from './progress.js';
import type { RecordedRequest, RecordedSession } from './recorded-session.js';
import { RecordedTransport } from './recorded-transport.js';
import { redactEntry } from './redaction.js';
import type { ReplayDiffEntry, ReplayStreamEntry, ReplaySummaryEntry } from './replay-entries.js';
import { replayRequest } from './replay-driver.js';
import { ReplayScheduler, type StepGate } from './replay-scheduler.js';
import { DIFF_KINDS, diffCookieChanges, diffRequest, type RequestDiff } from './request-diff.js';
import { JournalTracer, traceJournal, type JournalTrace, type RequestTrace } from './request-trace.js';

/** How many steps waiting on workers may overlap (replay-scheduler.ts). */
const REPLAY_OVERLAP = 64;

export interface ReplayOptions {
  /** The rules folder; undefined replays with no rules. */
  rulesDir?: string;
  /** Unpacked extension folders, run as in live capture. */
  extensions?: string[];
  persona?: 'spec' | 'chrome' | 'firefox';
  dryRun?: boolean;
  /** Defaults to the recording's own, else the engine's default. */
  listenerTimeoutMs?: number;
  onProgress?: ProgressListener;
  /** Every entry of the replay, as it happens: journal entries, then replayDiff entries and the summary. */
  onEntry?: (entry: ReplayStreamEntry) => void;
  /**
   * Keep the replay's whole journal in the result (the TUI shows it). Without it (the CLI's
   * output, CI) each request's entries are let go once it has been compared, so the replay's own
   * memory does not grow with the session. Default true.
   */
  keepJournal?: boolean;
}

export interface ReplayResult {
  diffs: RequestDiff[];
  summary: ReplaySummaryEntry;
  /** The replay's journal (the rules' run), as a live session's: without the replayDiff entries. */
  journal: JournalEntry[];
}

interface ReplayRun {
  engine: Engine;
  host: ExtensionHost | undefined;
  /** The replay's journal; empty unless kept (keepJournal). */
  journal: JournalEntry[];
  /** Replayed requestId per recorded request. */
  replayedIds: Map<RecordedRequest, string>;
  /** Cookie changes no replayed request caused (a rule's cookies.set, …). */
  unattributedCookieChanges: CookieChangeInfo[];
  /** The seq of the replay journal's latest entry. */
  lastSeq(): number;
  failures: string[];
  close(): Promise<void>;
}

/** Told as each request's replay ends, with the trace of its journal entries (then forgotten). */
type RequestReplayed = (request: RecordedRequest, replayedId: string | undefined, trace: RequestTrace | undefined) => void;

export async function replaySession(session: RecordedSession, options: ReplayOptions = {}): Promise<ReplayResult> {
  const started = performance.now();
  const replayable = session.requests.filter((request) => request.complete && request.hops.length > 0);
  let baseline: JournalTrace;
  let baselineIds: Map<RecordedRequest, string> | undefined;
  if (session.journal) baseline = traceJournal(session.journal);
  else {
    const traces = new Map<string, RequestTrace>();
    const reference = await runReplay(
      session,
      replayable,
      { ...options, rulesDir: undefined, extensions: [], dryRun: false, onEntry: undefined, keepJournal: false },
      'replaying without rules',
      (_request, replayedId, trace) => {
        if (replayedId !== undefined && trace) traces.set(replayedId, trace);
      },
    );
    await reference.close();
    baseline = { requests: traces, unattributedCookieChanges: reference.unattributedCookieChanges };
    baselineIds = reference.replayedIds;
  }

  // Each request is compared as soon as its replay ends; its recorded trace is let go then too.
  const diffsByRequest = new Map<RecordedRequest, RequestDiff>();
  const compare: RequestReplayed = (request, _replayedId, replayedTrace) => {
    const recordedId = baselineIds ? baselineIds.get(request) : request.requestId;
    const recordedTrace = recordedId === undefined ? undefined : baseline.requests.get(recordedId);
    if (recordedId !== undefined) baseline.requests.delete(recordedId);
    diffsByRequest.set(
      request,
      diffRequest({ index: request.index, method: request.hops[0]!.method, url: request.hops[0]!.url, type: request.type, recordedRequestId: request.requestId }, recordedTrace, replayedTrace),
    );
  };
  const run = await runReplay(session, replayable, options, 'replaying', compare);
  try {
    // A request whose replay threw has no replayed trace: it is compared with nothing.
    for (const request of replayable) if (!diffsByRequest.has(request)) compare(request, undefined, undefined);
    const diffs = replayable.map((request) => diffsByRequest.get(request)!);
    const journal = run.journal;
    // Streamed after the replay's journal, numbered on from its last entry, so that one NDJSON
    // stream reads in order. Not appended to the engine's journal: the journal knows nothing of
    // the features that subscribe to it.
    let seq = run.lastSeq();
    const time = run.engine.lifecycle.now(); // the replay's clock, as the journal's entries have
    if (options.onEntry) for (const diff of diffs) options.onEntry({ kind: 'replayDiff', ...diff, seq: ++seq, time } satisfies ReplayDiffEntry & { seq: number; time: number });
    const durationMs = performance.now() - started;
    const summary = summarize(session, diffs, {
      skipped: session.requests.length - replayable.length,
      cookies: diffCookieChanges(baseline.unattributedCookieChanges, run.unattributedCookieChanges),
      rules: run.host?.rules().filter((rule) => rule.state === 'active').map((rule) => rule.name) ?? [],
      dryRun: options.dryRun ?? false,
      durationMs,
      baseline: session.journal ? 'recording' : 'no-rules',
      warnings: [...session.warnings, ...run.failures],
    });
    options.onEntry?.(summary);
    return { diffs, summary, journal };
  } finally {
    await run.close();
  }
}

async function runReplay(session: RecordedSession, requests: RecordedRequest[], options: ReplayOptions, phase: string, replayed: RequestReplayed): Promise<ReplayRun> {
  const scheduler = new ReplayScheduler(session.times, session.startedAt, { overlap: REPLAY_OVERLAP });
  const listenerTimeoutMs = options.listenerTimeoutMs ?? session.listenerTimeoutMs;
  const engine = await Engine.open({ now: () => scheduler.now(), dryRun: options.dryRun ?? false, ...(listenerTimeoutMs !== undefined && { listenerTimeoutMs }) });
  const keep = options.keepJournal ?? true;
  const journal: JournalEntry[] = [];
  // A redacted recording is compared with a replay redacted the same way.
  const tracer = new JournalTracer();
  const failures: string[] = [];
  let loading = true;
  let lastSeq = 0;
  engine.journal.subscribe((entry) => {
    lastSeq = entry.seq;
    if (keep) journal.push(entry);
    tracer.add(session.redacted ? redactEntry(entry) : entry);
    // What loading the rules and extensions said (a missing folder, a rule that failed): the replay's result depends on it.
    if (loading && entry.kind === 'log' && (entry.level === 'warn' || entry.level === 'error') && (entry.source === 'rules' || entry.source === 'extensions')) failures.push(entry.message);
    if (loading && entry.kind === 'rule' && entry.action === 'failed') failures.push(`${entry.rule} failed to load: ${entry.message ?? ''}${entry.location ? ` (${entry.location})` : ''}`);
    options.onEntry?.(entry as ReplayStreamEntry);
  });
  seedCookies(engine, session);
  let host: ExtensionHost | undefined;
  try {
    host =
      options.rulesDir || options.extensions?.length
        ? await ExtensionHost.start(engine, { ...(options.rulesDir && { rulesDir: options.rulesDir }), extensions: options.extensions ?? [], watch: false, typeCheck: false, ...(options.persona && { persona: options.persona }) })
        : undefined;
  } catch (error) {
    await engine.close();
    throw error;
  }
  const transport = new RecordedTransport(session, engine.journal);
  const replayedIds = new Map<RecordedRequest, string>();
  loading = false;
  const context = { lifecycle: engine.lifecycle, journal: engine.journal, transport };
  let done = 0;
  const report = () => options.onProgress?.({ phase, done, total: requests.length, unit: 'requests' });
  report();
  await scheduler.run(
    requests.map((request) => {
      const stepsAt = stepPositionsOf(request);
      return {
        position: stepsAt[0] ?? 0,
        stepsAt,
        writesAt: cookieWritesOf(request, engine),
        run: async (at: StepGate) => {
          const replayedId = await replayRequest(request, context, at);
          replayedIds.set(request, replayedId);
          replayed(request, replayedId, tracer.take(replayedId));
        },
      };
    }),
    (error) => {
      done++;
      if (error) failures.push(`a request could not be replayed: ${(error as Error).stack ?? String(error)}`);
      if (done % 64 === 0 || done === requests.length) report();
    },
  );
  return {
    engine,
    host,
    journal,
    replayedIds,
    unattributedCookieChanges: tracer.trace().unattributedCookieChanges,
    lastSeq: () => lastSeq,
    failures,
    async close() {
      await host?.close();
      await engine.close();
    },
  };
}

/** The cookie stores as they were when recording started (silently: nothing changed, as far as rules can tell). */
function seedCookies(engine: Engine, session: RecordedSession): void {
  for (const [storeId, serialized] of Object.entries(session.cookies)) {
    if (!engine.cookies.hasStore(storeId)) continue;
    const cookies = serialized.map((json) => ToughCookie.fromJSON(json)).filter((cookie): cookie is ToughCookie => cookie !== null);
    engine.cookies.store(storeId).restore(cookies);
  }
}

/** Every recorded step of a request, in order (the first is where its task starts). */
function stepPositionsOf(request: RecordedRequest): number[] {
  const positions: (number | undefined)[] = [];
  for (const hop of request.hops) {
    positions.push(hop.at.beforeRequest, hop.at.responseStarted, hop.at.end);
    for (const exchange of hop.exchanges) positions.push(exchange.at.cookiesRead ?? exchange.at.beforeSendHeaders, exchange.at.response);
  }
  return positions.filter((at): at is number => at !== undefined).sort((a, b) => a - b);
}

/**
 * The steps of a request that may store cookies, for the scheduler's overlap: a response whose
 * recorded headers have Set-Cookie, or one a listener (blocking, given responseHeaders) or a
 * declarativeNetRequest rule could give a Set-Cookie.
 */
function cookieWritesOf(request: RecordedRequest, engine: Engine): number[] {
  const positions: number[] = [];
  const rulesMayAdd = engine.lifecycle.dnr?.active === true;
  for (const hop of request.hops) {
    let listenersMayAdd: boolean | undefined;
    for (const exchange of hop.exchanges) {
      if (exchange.at.response === undefined) continue;
      const recorded = exchange.response?.headers.some((header) => header.name.toLowerCase() === 'set-cookie') ?? false;
      listenersMayAdd ??= listenersMayChangeResponseHeaders(engine, request, hop.url);
      if (recorded || rulesMayAdd || listenersMayAdd) positions.push(exchange.at.response);
    }
  }
  return positions.sort((a, b) => a - b);
}

function listenersMayChangeResponseHeaders(engine: Engine, request: RecordedRequest, url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return true;
  }
  const listeners = engine.lifecycle.registry.listenersFor('onHeadersReceived', { url: parsed, type: request.type, tabId: request.tabId, windowId: -1, storeId: request.storeId });
  return listeners.some((listener) => listener.blocking && listener.extraInfoSpec.has('responseHeaders'));
}


function summarize(
  session: RecordedSession,
  diffs: RequestDiff[],
  rest: Pick<ReplaySummaryEntry, 'skipped' | 'cookies' | 'rules' | 'dryRun' | 'durationMs' | 'baseline' | 'warnings'>,
): ReplaySummaryEntry {
  const changes: ReplaySummaryEntry['changes'] = {};
  for (const kind of DIFF_KINDS) {
    const count = diffs.filter((diff) => diff.changes.includes(kind)).length;
    if (count > 0) changes[kind] = count;
  }
  const identical = diffs.filter((diff) => diff.identical).length;
  return {
    kind: 'replaySummary',
    file: session.file,
    source: session.source,
    requests: diffs.length,
    identical,
    differing: diffs.length - identical,
    changes,
    ...rest,
    durationMs: Math.round(rest.durationMs),
    requestsPerSecond: rest.durationMs > 0 ? Math.round((diffs.length / rest.durationMs) * 1000) : 0,
  };
}
