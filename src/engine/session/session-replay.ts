// `wrtui replay`: a recorded session (or HAR) through today's rules, offline, compared with what
// happened. A fresh Engine (no state dir: nothing is read from or written to disk) whose cookie
// stores start as they were when recording started, so cookies evolve during replay as they did
// live: recorded Set-Cookie headers go into the store through the lifecycle and later requests
// carry them. Rules load from the folder once (ExtensionHost, watch off), applied or, with dryRun, not.
// Requests run through replay-driver.ts in the recorded interleaving (replay-scheduler.ts) over
// RecordedTransport: no network at all. A session file is replayed as it is read
// (replay-input.ts): each request is compared as soon as its replay ends and then let go.
//
// Compared with: for a wrtui session, the recorded journal itself. A HAR has no journal (no
// events, no outcomes), so it is first replayed with no rules, and the rules' replay is compared
// with that: the differences are then exactly what the rules do.
import { QuickRuleset } from '../rules/quick-ruleset.js';
import { Cookie as ToughCookie, type SerializedCookie } from 'tough-cookie';
import { Engine } from '../engine.js';
import type { JournalEntry } from '../journal.js';
import type { CookieChangeInfo } from '../types.js';
import { ExtensionHost } from '../extensions/extension-host.js';
import type { WorkerPool } from '../extensions/worker-pool.js';
import type { ProgressListener } from './progress.js';
import type { RecordedRequest, RecordedSession } from './recorded-session.js';
import { RecordedTransport } from './recorded-transport.js';
import { redactEntry } from './redaction.js';
import { ReplayRunView } from './replay-run-view.js';
import type { ReplaySummaryEntry } from './replay-entries.js';
import { replayRequest } from './replay-driver.js';
import { wholeReplayInput, type RecordedBaseline, type ReplayInput } from './replay-input.js';
import { ReplayAborted, ReplayScheduler, type ReplayTask, type StepGate } from './replay-scheduler.js';
import { DIFF_KINDS, diffCookieChanges, diffRequest, type DiffKind, type RequestDiff } from './request-diff.js';
import { JournalTracer, type RequestTrace } from './request-trace.js';
import { TraceSpill } from './trace-spill.js';
import { insertSorted } from './sorted-insert.js';

/** How many steps waiting on workers may overlap (replay-scheduler.ts). */
const REPLAY_OVERLAP = 64;
/** A streamed recording is read this many requests ahead of the replay, and no further (unless it must be). */
const READ_AHEAD_REQUESTS = 512;

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
  /** Every entry of the replay's journal, as it happens. */
  onEntry?: (entry: JournalEntry) => void;
  /** Each request's verdict, in recording order (index), as soon as it and every earlier request is known. */
  onDiff?: (diff: RequestDiff) => void;
  /**
   * Told once the rules and extensions are loaded, before any request, with what failed to load
   * (empty when all is well) and the run's rules and cookie stores (the TUI's views). Returning
   * false stops there: no request is replayed and the result says `stopped`.
   */
  onLoaded?: (failures: readonly string[], run: ReplayRunView) => boolean | void;
  /** Journal the requests' and responses' bodies (the TUI shows them); printed output has no use for them. */
  journalBodies?: boolean;
  /** Where the rules' workers come from: the TUI keeps a pool refilled between re-runs, so a save finds them booted. */
  workerPool?: WorkerPool;
  /** Dry-run on or off for rules and extensions by name, over what their files say (the TUI's toggles). */
  dryRunOverrides?: ReadonlyMap<string, boolean>;
  /**
   * Stops the replay (the TUI's user quit, or saved again): no further request or step starts,
   * steps under way end, and the result holds what was compared by then, with `stopped`.
   */
  signal?: AbortSignal;
  /**
   * Keep the replay's whole journal and every diff in the result (the TUI shows them). Without it
   * (the CLI's output, CI) each request's entries are let go once it has been compared, so the
   * replay's own memory does not grow with the session. Default true.
   */
  keepJournal?: boolean;
}

export interface ReplayResult {
  /** Every request's verdict, in recording order; empty unless kept (keepJournal). */
  diffs: RequestDiff[];
  summary: ReplaySummaryEntry;
  /** The replay's journal (the rules' run), as a live session's: without the replayDiff entries; empty unless kept. */
  journal: JournalEntry[];
  /** The seq of the replay journal's last entry, and the replay clock at the end: replayDiff entries are numbered on from these. */
  lastSeq: number;
  endTime: number;
  /** onLoaded or the signal stopped it before its end: the summary counts what was compared by then. */
  stopped: boolean;
}

interface ReplayRun {
  engine: Engine;
  host: ExtensionHost | undefined;
  /** The replay's journal; empty unless kept (keepJournal). */
  journal: JournalEntry[];
  /** Cookie changes no replayed request caused (a rule's cookies.set, …). */
  unattributedCookieChanges: CookieChangeInfo[];
  /** The seq of the replay journal's latest entry. */
  lastSeq(): number;
  failures: string[];
  stopped: boolean;
  close(): Promise<void>;
}

/** Told as each request's replay ends, with the trace of its journal entries (then forgotten). */
type RequestReplayed = (request: RecordedRequest, replayedId: string | undefined, trace: RequestTrace | undefined) => void;

/** What a replay is compared with: the recording's own traces, or (a HAR) its replay without rules. */
interface Baseline {
  kind: 'recording' | 'no-rules';
  /** A request's baseline trace (let go once taken, unless the baseline is kept for re-runs). */
  take(request: RecordedRequest): RequestTrace | undefined;
  unattributedCookieChanges(): CookieChangeInfo[];
  /** Lets go of what it keeps on disk, once the replay compared with it has ended. */
  close?(): void;
}

/**
 * The baselines of sessions held in memory, made once per session (and persona, for a HAR's replay
 * without rules): the TUI re-runs its session on every save against the same baseline, and a HAR's
 * replay without rules need not run again before each re-run's first verdict.
 */
const keptBaselines = new WeakMap<RecordedSession, Map<string, Baseline>>();

/** Replays a recording held in memory (the TUI's, a HAR). */
export async function replaySession(session: RecordedSession, options: ReplayOptions = {}): Promise<ReplayResult> {
  const since = performance.now();
  const input = wholeReplayInput(session);
  const key = session.journal ? 'recording' : `no-rules ${options.persona ?? 'spec'}`;
  let kept = keptBaselines.get(session);
  if (!kept) keptBaselines.set(session, (kept = new Map()));
  let baseline = kept.get(key);
  if (!baseline) {
    const made = session.journal ? recordingBaseline(input.baseline!, session.requests) : await replayWithoutRules(input, options, false);
    // A replay without rules stopped midway is no baseline for a later run.
    if (!made.stopped) kept.set(key, made.baseline);
    baseline = made.baseline;
  }
  return replayAgainst(input, options, baseline, since);
}

/**
 * Replays `input`: each request is compared as soon as its replay ends, and its recorded trace
 * and replayed entries are let go then (unless keepJournal), so a streamed recording replays in
 * memory that does not grow with its size.
 */
export async function replay(input: ReplayInput, options: ReplayOptions = {}): Promise<ReplayResult> {
  const since = performance.now();
  let baseline: Baseline;
  if (input.baseline) {
    const recorded = input.baseline;
    baseline = { kind: 'recording', take: (request) => recorded.take(request.requestId), unattributedCookieChanges: () => recorded.unattributedCookieChanges() };
  } else {
    baseline = (await replayWithoutRules(input, options, true)).baseline;
  }
  try {
    return await replayAgainst(input, options, baseline, since);
  } finally {
    baseline.close?.();
  }
}

/** Every request's recorded trace, kept for re-runs (the journal is traced once). */
function recordingBaseline(recorded: RecordedBaseline, requests: readonly RecordedRequest[]): { baseline: Baseline; stopped: false } {
  const traces = new Map<string, RequestTrace>();
  for (const request of requests) {
    const trace = recorded.take(request.requestId);
    if (trace) traces.set(request.requestId, trace);
  }
  const unattributed = recorded.unattributedCookieChanges();
  return { baseline: { kind: 'recording', take: (request) => traces.get(request.requestId), unattributedCookieChanges: () => unattributed }, stopped: false };
}

/**
 * A HAR has no journal: the rules' replay is compared with a replay without rules. Its traces are
 * kept for re-runs in memory (a session the TUI holds anyway), or else on disk until taken
 * (trace-spill.ts), so a HAR replayed as it is read holds no more than a session file does.
 */
async function replayWithoutRules(input: ReplayInput, options: ReplayOptions, letGo: boolean): Promise<{ baseline: Baseline; stopped: boolean }> {
  const spill = letGo ? await TraceSpill.create() : undefined;
  const traces = new Map<number, RequestTrace>();
  let reference: ReplayRun;
  try {
    reference = await runReplay(input, { ...options, rulesDir: undefined, extensions: [], dryRun: false, onEntry: undefined, onLoaded: undefined, keepJournal: false, journalBodies: false }, 'replaying without rules', (request, _replayedId, trace) => {
      if (!trace) return;
      if (spill) spill.put(request.index, trace);
      else traces.set(request.index, trace);
    });
    await reference.close();
  } catch (error) {
    spill?.close();
    throw error;
  }
  const take = (request: RecordedRequest) => (spill ? spill.take(request.index) : traces.get(request.index));
  const unattributed = reference.unattributedCookieChanges;
  return { baseline: { kind: 'no-rules', take, unattributedCookieChanges: () => unattributed, ...(spill && { close: () => spill.close() }) }, stopped: reference.stopped };
}

async function replayAgainst(input: ReplayInput, options: ReplayOptions, baseline: Baseline, since: number): Promise<ReplayResult> {
  const keep = options.keepJournal ?? true;
  const diffs: RequestDiff[] = [];
  const tally = new DiffTally();
  const order = new IndexOrder((diff) => {
    tally.add(diff);
    if (keep) diffs.push(diff);
    options.onDiff?.(diff);
  });
  const run = await runReplay(
    input,
    options,
    'replaying',
    (request, _replayedId, replayedTrace) => {
      const recordedTrace = baseline.take(request);
      order.finished(request.index, diffRequest({ index: request.index, method: request.hops[0]!.method, url: request.hops[0]!.url, type: request.type, recordedRequestId: request.requestId }, recordedTrace, replayedTrace));
    },
    order,
  );
  try {
    order.flush();
    const durationMs = performance.now() - since;
    const summary = tally.summary(input, {
      skipped: input.skipped,
      cookies: diffCookieChanges(baseline.unattributedCookieChanges(), run.unattributedCookieChanges),
      rules: run.host?.rules().filter((rule) => rule.state === 'active').map((rule) => rule.name) ?? [],
      dryRun: options.dryRun ?? false,
      durationMs,
      baseline: baseline.kind,
      warnings: [...input.warnings, ...run.failures],
    });
    return { diffs, summary, journal: run.journal, lastSeq: run.lastSeq(), endTime: run.engine.lifecycle.now(), stopped: run.stopped };
  } finally {
    await run.close();
  }
}

async function runReplay(input: ReplayInput, options: ReplayOptions, phase: string, replayed: RequestReplayed, order?: IndexOrder): Promise<ReplayRun> {
  const chunks = input.chunks();
  // The first chunk brings the header: the timeline's start, the cookie stores, the recording's timeout.
  let next = await chunks.next();
  const scheduler = new ReplayScheduler([], input.startedAt, { overlap: REPLAY_OVERLAP });
  const listenerTimeoutMs = options.listenerTimeoutMs ?? input.listenerTimeoutMs;
  const engine = await Engine.open({ now: () => scheduler.now(), dryRun: options.dryRun ?? false, ...(listenerTimeoutMs !== undefined && { listenerTimeoutMs }) });
  // A replay reaches no network: an extension's own fetch fails (the recorded ones are replayed).
  engine.lifecycle.network = 'offline';
  const keep = options.keepJournal ?? true;
  const journal: JournalEntry[] = [];
  // A redacted recording is compared with a replay redacted the same way.
  const tracer = new JournalTracer();
  const failures: string[] = [];
  let loading = true;
  let closing = false;
  let lastSeq = 0;
  let host: ExtensionHost | undefined;
  let quickRules: QuickRuleset | undefined;
  let view: ReplayRunView | undefined;
  const close = async () => {
    closing = true;
    await chunks.return(undefined);
    view?.freeze();
    await quickRules?.close();
    await host?.close();
    await engine.close();
  };
  engine.journal.subscribe((entry) => {
    // What the engine journals while closing (workers stopping) is no part of the replay's story.
    if (closing) return;
    lastSeq = entry.seq;
    if (keep) journal.push(entry);
    tracer.add(input.redacted ? redactEntry(entry) : entry);
    // What loading the rules and extensions said (a missing folder, a rule that failed): the replay's result depends on it.
    if (loading && entry.kind === 'log' && (entry.level === 'warn' || entry.level === 'error') && (entry.source === 'rules' || entry.source === 'extensions')) failures.push(entry.message);
    if (loading && entry.kind === 'rule' && entry.action === 'failed') failures.push(`${entry.rule} failed to load: ${entry.message ?? ''}${entry.location ? ` (${entry.location})` : ''}`);
    options.onEntry?.(entry);
  });
  seedCookies(engine, input.cookies);
  try {
    host =
      options.rulesDir || options.extensions?.length
        ? await ExtensionHost.start(engine, {
            ...(options.rulesDir && { rulesDir: options.rulesDir }),
            extensions: options.extensions ?? [],
            watch: false,
            typeCheck: false,
            ...(options.persona && { persona: options.persona }),
            ...(options.workerPool && { pool: options.workerPool }),
          })
        : undefined;
    // The quick rules (w) act in a replay as live: declarative, no worker.
    if (options.rulesDir) quickRules = await QuickRuleset.start(engine, { rulesDir: options.rulesDir, watch: false });
  } catch (error) {
    await close();
    throw error;
  }
  for (const [name, on] of options.dryRunOverrides ?? []) if (host?.rule(name)) host.setDryRun(name, on);
  const transport = new RecordedTransport(engine.journal);
  loading = false;
  // Told what loading said: the TUI goes no further when a save broke a rule. Only it shows the
  // run's rules and cookies (a view that copies them at close).
  let stopped = options.signal?.aborted === true;
  if (options.onLoaded) {
    view = new ReplayRunView(engine, host, quickRules);
    if (options.onLoaded(failures, view) === false) stopped = true;
  }
  const stop = () => {
    stopped = true;
    scheduler.abort();
  };
  options.signal?.addEventListener('abort', stop, { once: true });
  const context = { lifecycle: engine.lifecycle, journal: engine.journal, transport, journalBodies: options.journalBodies ?? false };
  let done = 0;
  let total = 0;
  const report = () => options.onProgress?.({ phase, done, total, unit: 'requests' });
  const taskOf = (request: RecordedRequest): ReplayTask => {
    const stepsAt = stepPositionsOf(request);
    return {
      position: stepsAt[0] ?? 0,
      stepsAt,
      writesAt: cookieWritesOf(request, engine),
      run: async (at: StepGate) => {
        let replayedId: string | undefined;
        try {
          replayedId = await replayRequest(request, context, at);
        } catch (error) {
          if (error instanceof ReplayAborted) throw error; // stopped: no verdict at all
          // A request whose replay threw is compared with nothing (and the failure is in the summary's warnings).
          replayed(request, undefined, undefined);
          throw error;
        }
        replayed(request, replayedId, tracer.take(replayedId));
      },
    };
  };
  const drained = scheduler.drain((error) => {
    done++;
    if (error && !(error instanceof ReplayAborted)) failures.push(`a request could not be replayed: ${(error as Error).stack ?? String(error)}`);
    if (done % 64 === 0) report();
  });
  try {
    // Reads on while the replay needs more: a few hundred requests ahead, and as far as a request
    // still in flight in the recording makes it (its later steps decide when others may start).
    while (!next.done && !stopped) {
      const chunk = next.value;
      scheduler.addTimes(chunk.times);
      for (const request of chunk.requests) {
        transport.add(request);
        order?.added(request.index);
        scheduler.add(taskOf(request));
      }
      total += chunk.requests.length;
      order?.toCome(chunk.lowestIndexToCome);
      scheduler.advance(chunk.frontier);
      transport.forgetBefore(scheduler.lowWater());
      await scheduler.wantsInput(READ_AHEAD_REQUESTS);
      next = await chunks.next();
    }
    scheduler.end();
    await drained;
    report();
  } catch (error) {
    options.signal?.removeEventListener('abort', stop);
    // The file broke off or could not be read: what is in flight ends first.
    scheduler.end();
    await drained.catch(() => undefined);
    await close();
    throw error;
  }
  options.signal?.removeEventListener('abort', stop);
  // Stopped early: the rest of the recording is not read.
  if (stopped) await chunks.return(undefined);
  return {
    engine,
    host,
    journal,
    unattributedCookieChanges: tracer.trace().unattributedCookieChanges,
    lastSeq: () => lastSeq,
    failures,
    stopped,
    close,
  };
}

/**
 * Hands out request verdicts in recording order (index) as soon as every earlier request is
 * known: requests finish out of order, and a streamed recording hands them out as they end.
 */
class IndexOrder {
  readonly #emit: (diff: RequestDiff) => void;
  /** Indices handed to the scheduler, ascending; those before `#head` have all finished. */
  #added: number[] = [];
  #head = 0;
  /** Finished indices not yet passed by `#head`. */
  readonly #done = new Set<number>();
  /** Finished verdicts not yet handed out, ascending by index. */
  readonly #finished: RequestDiff[] = [];
  #toCome = 0;

  constructor(emit: (diff: RequestDiff) => void) {
    this.#emit = emit;
  }

  added(index: number): void {
    insertSorted(this.#added, index, (value) => value);
  }

  /** No request still to be added has an index below `index`. */
  toCome(index: number): void {
    this.#toCome = index;
    this.#release();
  }

  finished(index: number, diff: RequestDiff): void {
    this.#done.add(index);
    insertSorted(this.#finished, diff, (value) => value.index);
    this.#release();
  }

  /** Everything has been added and has finished. */
  flush(): void {
    this.#toCome = Infinity;
    this.#added = [];
    this.#head = 0;
    this.#release();
  }

  /** The lowest index added and not finished (requests mostly finish in order: the head moves on). */
  #lowestRunning(): number {
    const added = this.#added;
    while (this.#head < added.length && this.#done.delete(added[this.#head]!)) this.#head++;
    if (this.#head > 1024) {
      added.splice(0, this.#head);
      this.#head = 0;
    }
    return added[this.#head] ?? Infinity;
  }

  #release(): void {
    const lowest = Math.min(this.#lowestRunning(), this.#toCome);
    let count = 0;
    while (count < this.#finished.length && this.#finished[count]!.index < lowest) count++;
    if (count === 0) return;
    for (const diff of this.#finished.splice(0, count)) this.#emit(diff);
  }
}

/** The summary's counts, kept as verdicts come in (the verdicts themselves need not be kept). */
class DiffTally {
  #requests = 0;
  #identical = 0;
  readonly #changes = new Map<DiffKind, number>();

  add(diff: RequestDiff): void {
    this.#requests++;
    if (diff.identical) this.#identical++;
    for (const kind of new Set(diff.changes)) this.#changes.set(kind, (this.#changes.get(kind) ?? 0) + 1);
  }

  summary(input: ReplayInput, rest: Pick<ReplaySummaryEntry, 'skipped' | 'cookies' | 'rules' | 'dryRun' | 'durationMs' | 'baseline' | 'warnings'>): ReplaySummaryEntry {
    const changes: ReplaySummaryEntry['changes'] = {};
    for (const kind of DIFF_KINDS) {
      const count = this.#changes.get(kind);
      if (count) changes[kind] = count;
    }
    return {
      kind: 'replaySummary',
      file: input.file,
      source: input.source,
      requests: this.#requests,
      identical: this.#identical,
      differing: this.#requests - this.#identical,
      changes,
      ...rest,
      durationMs: Math.round(rest.durationMs),
      requestsPerSecond: rest.durationMs > 0 ? Math.round((this.#requests / rest.durationMs) * 1000) : 0,
    };
  }
}

/** The cookie stores as they were when recording started (silently: nothing changed, as far as rules can tell). */
function seedCookies(engine: Engine, cookies: Record<string, SerializedCookie[]>): void {
  for (const [storeId, serialized] of Object.entries(cookies)) {
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
