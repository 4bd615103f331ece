// Replay v2's fast path, "predict and verify" (issue #35): the recorded journal is the prediction.
// Each recorded event of each replayable request goes, in recorded order, to the rules' workers
// whose listeners' filters it matches, with its recorded details (under the requestId the slow path
// would give it); the answers are checked and merged as the lifecycle merges them and compared
// with the recorded outcomes (event-verifier.ts). Recorded cookie changes reach cookies.onChanged
// listeners in their recorded places. A few hundred requests' events are sent in one turn, so each
// worker gets them as one message; the answers of one slice are judged while the next is out.
//
// When every event matches, the lifecycle would have produced the recorded journal again: every
// request is identical by construction, and no RequestFlight, trace or diff is made. Anything the
// prediction cannot vouch for — an outcome that differs, a rule's call to the host (cookies, tabs,
// alarms …: the store and clock the fast path does not run), declarativeNetRequest rules, a
// browser persona, an extension's own request, a redacted recording, cookie changes no request
// caused — hands the whole run to today's engine (session-replay.ts), from a fresh engine and
// fresh workers, so stateful rules see exactly the slow path's events and the result is the slow
// path's, exactly. See docs/replay-engine.md.
import { Engine } from '../engine.js';
import type { JournalEntry } from '../journal.js';
import { ExtensionHost } from '../extensions/extension-host.js';
import type { RemoteEndpoint } from '../web-request/listener-registry.js';
import type { Owner } from '../owner.js';
import { specPersona } from '../personas/index.js';
import type { RecordedRequest, RecordedSession } from '../session/recorded-session.js';
import type { ReplaySummaryEntry } from '../session/replay-entries.js';
import { ReplayRunView } from '../session/replay-run-view.js';
import type { RequestDiff } from '../session/request-diff.js';
import { JournalTracer } from '../session/request-trace.js';
import { replaySession, type ReplayOptions, type ReplayResult } from '../session/session-replay.js';
import { EventVerifier, type Mismatch } from './event-verifier.js';

/** Requests whose events go out in one turn (one message per worker): 64–256 measured best (issue #35). */
export const REQUESTS_PER_SLICE = 128;
/** Slices out at once: the workers work on the next while the host judges the answers of the last. */
const SLICES_IN_FLIGHT = 3;

export interface PredictedReplayResult extends ReplayResult {
  /** Which engine gave the result. */
  path: 'fast' | 'slow';
  /** Why the fast path handed the run to today's engine. */
  fellBack?: { reason: string; requestIndex?: number };
}

export interface PredictedReplayOptions extends ReplayOptions {
  /** Requests per slice (tests and the benchmark vary it). */
  requestsPerSlice?: number;
}

/** Replays a recording held in memory: the fast path when the prediction holds throughout, else today's engine. */
export async function replayPredicted(session: RecordedSession, options: PredictedReplayOptions = {}): Promise<PredictedReplayResult> {
  const since = performance.now();
  const unsupported = cannotPredict(session, options);
  if (unsupported) return slowPath(session, options, { reason: unsupported });
  const fast = await fastPath(session, options, since);
  if ('diffs' in fast) return fast;
  return slowPath(session, options, fast);
}

async function slowPath(session: RecordedSession, options: ReplayOptions, fellBack: NonNullable<PredictedReplayResult['fellBack']>): Promise<PredictedReplayResult> {
  return { ...(await replaySession(session, options)), path: 'slow', fellBack };
}

/** What rules out the fast path before anything runs. */
function cannotPredict(session: RecordedSession, options: ReplayOptions): string | undefined {
  if (!session.journal) return 'the recording has no journal to predict from (a HAR)';
  if (session.redacted) return 'the recording is redacted';
  if (options.extensions?.length) return 'unpacked extensions run in the replay';
  if (options.persona !== undefined && options.persona !== 'spec') return `the ${options.persona} persona`;
  if (options.journalBodies) return 'bodies are journaled (the fast path makes no response bodies)';
  if (options.signal?.aborted) return 'stopped before it started';
  return undefined;
}

/** Replayable as session-replay.ts replays them: whole, with at least one hop. */
function isReplayable(request: RecordedRequest): boolean {
  return request.complete && request.hops.length > 0;
}

async function fastPath(session: RecordedSession, options: PredictedReplayOptions, since: number): Promise<PredictedReplayResult | { reason: string; requestIndex?: number }> {
  const journal = session.journal!;
  const replayable = session.requests.filter(isReplayable);
  // The slow path starts requests in recorded order and numbers them from 1 (lifecycle.ts): rules see those ids.
  const byRecordedId = new Map<string, { request: RecordedRequest; replayedId: string; position: number }>();
  replayable.forEach((request, i) => byRecordedId.set(request.requestId, { request, replayedId: String(i + 1), position: i }));

  let clock = session.startedAt;
  const listenerTimeoutMs = options.listenerTimeoutMs ?? session.listenerTimeoutMs;
  const engine = await Engine.open({ now: () => clock, dryRun: options.dryRun ?? false, ...(listenerTimeoutMs !== undefined && { listenerTimeoutMs }) });
  engine.lifecycle.network = 'offline';
  const keep = options.keepJournal ?? true;
  const kept: JournalEntry[] = [];
  const failures: string[] = [];
  let loading = true;
  let lastSeq = 0;
  engine.journal.subscribe((entry) => {
    lastSeq = entry.seq;
    if (keep) kept.push(entry);
    if (loading && entry.kind === 'log' && (entry.level === 'warn' || entry.level === 'error') && (entry.source === 'rules' || entry.source === 'extensions')) failures.push(entry.message);
    if (loading && entry.kind === 'rule' && entry.action === 'failed') failures.push(`${entry.rule} failed to load: ${entry.message ?? ''}${entry.location ? ` (${entry.location})` : ''}`);
  });
  let host: ExtensionHost | undefined;
  const close = async () => {
    await host?.close();
    await engine.close();
  };
  try {
    host = options.rulesDir
      ? await ExtensionHost.start(engine, { rulesDir: options.rulesDir, watch: false, typeCheck: false, ...(options.persona && { persona: options.persona }), ...(options.workerPool && { pool: options.workerPool }) })
      : undefined;
  } catch (error) {
    await close();
    throw error;
  }
  for (const [name, on] of options.dryRunOverrides ?? []) if (host?.rule(name)) host.setDryRun(name, on);
  loading = false;
  try {
    let unpredictable: string | undefined;
    const live = host?.observeServiceCalls((owner, method) => (unpredictable ??= `${owner.id} called ${method}`)) ?? [];
    const before = beforeRunning(engine, live.map((worker) => worker.owner));
    if (before) return { reason: before };
    let stopped = options.signal?.aborted === true;
    if (options.onLoaded) {
      const view = new ReplayRunView(engine, host);
      if (options.onLoaded(failures, view) === false) stopped = true;
      view.freeze();
    }
    const verifier = new EventVerifier({
      registry: engine.lifecycle.registry,
      dryRun: engine.lifecycle.dryRun,
      listenerTimeoutMs: engine.lifecycle.listenerTimeoutMs,
      onLateFailure: (outcome) => engine.journal.append({ kind: 'log', level: 'warn', source: outcome.owner, message: `${outcome.event}: ${outcome.reason}` }),
    });
    // Cookie changes a request caused, told apart from the others as the slow path's comparison does.
    const tracer = new JournalTracer();
    let mismatch: Mismatch | undefined;
    let mismatched = false;
    let inSlice = 0;
    let done = 0;
    /** The webRequest entries today's lifecycle would have journaled again (their seqs are counted in lastSeq). */
    let predictedEntries = 0;
    let pending: Promise<Mismatch | undefined>[] = [];
    const inFlight: Promise<Mismatch | undefined>[] = [];
    const seen = new Set<string>();
    /** Positions (among the replayed requests) of those whose events have all been sent: a stopped run reports these. */
    const ended: number[] = [];
    const settle = async (slice: Promise<Mismatch | undefined>[]) => (await Promise.all(slice)).find((found) => found !== undefined);
    const report = () => options.onProgress?.({ phase: 'replaying', done, total: replayable.length, unit: 'requests' });
    for (const entry of journal) {
      if (mismatched || mismatch || unpredictable || stopped) break;
      tracer.add(entry);
      if (entry.kind === 'cookieChanged') {
        clock = entry.time;
        engine.cookies.announce(entry.changeInfo, { sameSite: undefined });
        continue;
      }
      // What declarativeNetRequest did is part of a request's verdict: the fast path does not run DNR.
      if (entry.kind === 'dnr') {
        if (byRecordedId.has(entry.requestId)) return { reason: 'the recording has declarativeNetRequest matches' };
        continue;
      }
      if (entry.kind !== 'webRequest') continue;
      const recordedId = entry.details.requestId;
      const known = byRecordedId.get(recordedId);
      if (!known) continue; // not replayed (cut off in the recording): the slow path never runs it
      clock = entry.time;
      predictedEntries++;
      if (!seen.has(recordedId)) {
        seen.add(recordedId);
        inSlice++;
      }
      const details = { ...entry.details, requestId: known.replayedId };
      const verdict = verifier.verify(entry, details, known.request);
      if (verdict instanceof Promise) pending.push(verdict);
      else if (verdict) {
        // Judged with its slice, so that the first mismatch in recorded order is the one reported.
        pending.push(Promise.resolve(verdict));
        mismatched = true;
      }
      if (entry.event === 'onCompleted' || entry.event === 'onErrorOccurred') {
        verifier.forget(recordedId);
        seen.delete(recordedId);
        tracer.take(recordedId);
        done++;
        ended.push(known.position);
      }
      if (inSlice >= (options.requestsPerSlice ?? REQUESTS_PER_SLICE)) {
        // This slice goes out (one message per worker) while the ones before are judged.
        inSlice = 0;
        inFlight.push(settle(pending));
        pending = [];
        if (inFlight.length >= SLICES_IN_FLIGHT) mismatch ??= await inFlight.shift();
        report();
        if (options.signal?.aborted) stopped = true;
      }
    }
    inFlight.push(settle(pending));
    for (const slice of inFlight) mismatch ??= await slice;
    // Every worker has handled what it was sent (and made any call it was going to make then).
    if (!mismatch && !unpredictable) await Promise.all(live.map(({ endpoint }) => barrier(endpoint, engine.lifecycle.listenerTimeoutMs)));
    if (mismatch) return { reason: `request ${mismatch.requestId} (${mismatch.event}): ${mismatch.reason}`, requestIndex: byRecordedId.get(mismatch.requestId)?.request.index };
    if (unpredictable) return { reason: unpredictable };
    const unattributed = tracer.trace().unattributedCookieChanges.filter((change) => change.cause !== 'expired');
    if (unattributed.length > 0) return { reason: `${unattributed.length} recorded cookie change(s) no request caused (a rule's cookies call)` };
    report();
    // Stopped (the TUI saved again, or quit): the requests verified by then, in recording order.
    const positions = stopped ? ended.sort((a, b) => a - b) : replayable.map((_request, i) => i);
    return finish(session, options, replayable, positions, { engine, host, kept, failures, lastSeq: lastSeq + predictedEntries, since, stopped });
  } finally {
    await close();
  }
}

/** What the loaded rules rule out. */
function beforeRunning(engine: Engine, owners: readonly Owner[]): string | undefined {
  if (engine.lifecycle.dnr?.active) return 'declarativeNetRequest rules are active';
  const browser = owners.find((owner) => owner.persona !== specPersona);
  if (browser) return `${browser.id} runs under the ${browser.persona.name} persona`;
  return undefined;
}

/** Resolves once the worker has handled everything sent before it: an event for none of its listeners, answered. */
async function barrier(endpoint: RemoteEndpoint, timeoutMs: number): Promise<void> {
  await endpoint.send('onBeforeRequest', [], '{}', '', Math.max(timeoutMs, 1));
}

interface FastRun {
  engine: Engine;
  host: ExtensionHost | undefined;
  kept: JournalEntry[];
  failures: string[];
  /**
   * Where today's engine's journal would have ended: the fast run's own entries (rule loading,
   * cookie changes, the rules' log lines) plus the webRequest entries it would have journaled
   * again. `wrtui replay --json --diffs-only` numbers its replayDiff lines on from it.
   */
  lastSeq: number;
  since: number;
  stopped: boolean;
}

/** Every replayed request identical, in recording order; the summary as session-replay.ts makes it. */
function finish(session: RecordedSession, options: ReplayOptions, replayable: readonly RecordedRequest[], positions: readonly number[], run: FastRun): PredictedReplayResult {
  const count = positions.length;
  const keep = options.keepJournal ?? true;
  const diffs: RequestDiff[] = [];
  for (const i of positions) {
    const request = replayable[i]!;
    const hop = request.hops[0]!;
    const diff: RequestDiff = { index: request.index, method: hop.method, url: hop.url, type: request.type, recordedRequestId: request.requestId, replayedRequestId: String(i + 1), identical: true, changes: [] };
    options.onDiff?.(diff);
    if (keep) diffs.push(diff);
  }
  const durationMs = performance.now() - run.since;
  const summary: ReplaySummaryEntry = {
    kind: 'replaySummary',
    file: session.file,
    source: session.source,
    requests: count,
    identical: count,
    differing: 0,
    changes: {},
    skipped: session.requests.length - replayable.length,
    cookies: { added: [], removed: [] },
    rules: run.host?.rules().filter((rule) => rule.state === 'active').map((rule) => rule.name) ?? [],
    dryRun: options.dryRun ?? false,
    durationMs: Math.round(durationMs),
    baseline: 'recording',
    warnings: [...session.warnings, ...run.failures],
    requestsPerSecond: durationMs > 0 ? Math.round((count / durationMs) * 1000) : 0,
  };
  return { diffs, summary, journal: run.kept, lastSeq: run.lastSeq, endTime: run.engine.lifecycle.now(), stopped: run.stopped, path: 'fast' };
}
