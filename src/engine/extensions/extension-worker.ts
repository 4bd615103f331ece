// The proxy thread's end of one extension's worker: one running version of one rule or
// extension. It starts the worker, stages the listeners the background registers until the host
// makes this version live (commit), sends events to the worker and waits for blocking answers
// (RemoteEndpoint), answers the worker's API calls through the extension's services, relays its
// console and its uncaught errors to the journal, and watches its health:
//
//   - a ping every heartbeat, from its first run; its watchdog (worker-watchdog.ts) judges by what
//     the worker does, in its own time (not the machine's load): a worker stalled after a blocking
//     call timed out is "not responding" (further events skip it, a failed outcome and no wait,
//     until it takes something up again; never while it is starting); one stalled with no sign of
//     progress, or for the hang limit whatever it does, is stuck: terminated and the fault reported
//     with where it was (stuck-stack.ts);
//   - the worker running out of heap (resourceLimits) or exiting (process.exit in a Node rule) is
//     a fault too.
//
// A fault while loading is a load failure (the host keeps the previous version); a fault once live
// is reported through onFault, and the host decides on a restart.
import { withBrowserGlobalHint } from './browser-globals.js';
import type { StorageChanges } from './storage-areas.js';
import { SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import type { Engine } from '../engine.js';
import type { Owner } from '../owner.js';
import type { CookieChangeInfo, WebRequestEventName } from '../types.js';
import type { RemoteEndpoint, RemoteResult } from '../web-request/listener-registry.js';
import { fetchFailure, fetchForExtension, type ExtensionFetchRequest } from './extension-network.js';
import type { ExtensionServices } from './extension-services.js';
import { bundleWorkerModule } from './extension-package.js';
import { Download } from './extension-download.js';
import type { HostItem, ListenerResult, WorkerBoot, WorkerItem } from './protocol.js';
import { stackOfStuckWorker, type StuckFrame } from './stuck-stack.js';
import { RestartWait, type Successor } from './restart-wait.js';
import { PendingCalls } from './worker-calls.js';
import { WorkerFilters } from './worker-filters.js';
import { WorkerProbe } from './worker-probe.js';
import { progressCounters } from './worker-progress.js';
import { WorkerWatchdog, type StuckVerdict } from './worker-watchdog.js';
import { mapped } from './worker/stack-frames.js';
import { WorkerPool } from './worker-pool.js';
import { RealmWorker, type CollateralFault, type RealmLink } from './realm-worker.js';

/** An extension's toolbar badge text: the button's own, and each tab's that has one, by tab id. */
export interface BadgeText {
  text: string;
  byTab: Readonly<Record<number, string>>;
}

export interface WorkerLimits {
  /** The worker's V8 old-generation heap cap (MB). */
  heapLimitMb: number;
  /** How long a background may take to load while its worker is idle (a Promise that never settles) (ms). Busy, the watchdog judges it. */
  backgroundTimeoutMs: number;
  /** Stalled this long in its own time with no sign of progress: stuck, restarted (ms). */
  stuckAfterMs: number;
  /** Stalled this long in its own time, whatever it does: stuck, restarted (ms; Chromium's 30 s). */
  hangLimitMs: number;
  /** Stalled this long in its own time after a blocking call timed out: events skip it meanwhile (ms). */
  unresponsiveAfterMs: number;
  /** How often the worker is pinged (ms). */
  heartbeatMs: number;
}

export const DEFAULT_WORKER_LIMITS: WorkerLimits = {
  heapLimitMb: 1024,
  backgroundTimeoutMs: 5000,
  stuckAfterMs: 5000,
  hangLimitMs: 30_000,
  unresponsiveAfterMs: 1000,
  heartbeatMs: 1000,
};

/** Why a worker stopped serving once live. */
export interface WorkerFault {
  /** `collateral`: a worker-mate's fault ended the worker they share; this one is not at fault. */
  kind: 'stuck' | 'out-of-memory' | 'exited' | 'crashed' | 'collateral';
  message: string;
  /** What it was doing: the event and URL of the oldest unanswered event, if any. */
  doing?: { event: WebRequestEventName; url: string; forMs: number };
  /** `file:line:col` where it was stuck or crashed, when known. */
  location?: string;
}

/** How long an observing event may wait for company before it is sent on its own (ms). */
const OBSERVING_BATCH_MS = 10;

export class LoadFailure extends Error {
  readonly location: string | undefined;
  /** `collateral`: a worker-mate's fault ended the shared worker mid-load; `relocate`: the rule asked for a worker of its own. */
  readonly retry: 'collateral' | 'relocate' | undefined;
  constructor(message: string, location?: string, retry?: 'collateral' | 'relocate') {
    super(message);
    this.name = 'LoadFailure';
    this.location = location;
    this.retry = retry;
  }
}

export interface ExtensionWorkerOptions {
  engine: Engine;
  boot: WorkerBoot;
  services: ExtensionServices;
  limits: WorkerLimits;
  /** Extensions: the owner their manifest.json makes. */
  owner?: Owner;
  /** Rules: the owner made from the manifest the rule's module exports; throws when it is invalid. */
  ownerFromManifest?: (manifest: unknown) => Owner;
  /** A fault once live (never during loading). */
  onFault: (fault: WorkerFault) => void;
  /** runtime.reload() from the live worker. */
  onReloadRequested?: () => void;
  /** The journal source of its logs: the rule's or extension's name. */
  source: string;
  /** Where its thread comes from (worker-pool.ts): one booted ahead, when the pool has one. */
  pool?: WorkerPool;
  /** Where its realm runs (rule-workers.ts: a worker rule files share); by default a worker of its own from `pool`. */
  open?: (boot: WorkerBoot, progress: Int32Array) => RealmLink;
}

interface AddedListener {
  lid: number;
  event: WebRequestEventName;
  filter: unknown;
  extraInfoSpec: string[];
}

type State = 'loading' | 'live' | 'disposed';

export class ExtensionWorker implements RemoteEndpoint, Successor {
  readonly boot: WorkerBoot;
  /** Resolves once the background ran without error; rejects with a LoadFailure. */
  readonly loaded: Promise<Owner>;
  readonly #options: ExtensionWorkerOptions;
  readonly #engine: Engine;
  readonly #link: RealmLink;
  #state: State = 'loading';
  #owner: Owner | undefined;
  /** The journal said once that this worker's fetches fail in a replay. */
  #toldOffline = false;
  /** Its own requests whose bodies are being handed over, by fetch id. */
  readonly #downloads = new Map<number, Download>();
  #resolveLoaded!: (owner: Owner) => void;
  #rejectLoaded!: (failure: LoadFailure) => void;
  readonly #loadTimer: NodeJS.Timeout;

  /** Listeners of this worker in the engine's registry, by their id in the worker. */
  readonly #live = new Map<number, { event: WebRequestEventName; stub: () => void }>();
  /** Faulted and being started again: its listeners stay, and what they are sent waits for the successor. */
  #restartWait: RestartWait | undefined;
  #outbox: HostItem[] = [];
  /** The StreamFilters this worker made, by the worker's number for them. */
  readonly #filters: WorkerFilters;
  /** A flush is due at the end of this turn of the event loop (something waits on the worker). */
  #flushSoon: NodeJS.Immediate | undefined;
  /** A flush is due within OBSERVING_BATCH_MS (only observing events are queued). */
  #flushLater: NodeJS.Timeout | undefined;
  /** Blocking events awaiting the worker's answer. Busy, stuck, or a listener whose Promise never settles? The watchdog tells them apart. */
  readonly #calls = new PendingCalls(() => {
    this.#watchdog.timedOut();
    this.#ping();
  });

  #stuck = false;
  #pingN = 0;
  #pingSentAt: number | undefined;
  readonly #heartbeat: NodeJS.Timeout;
  /** What the worker shows without its event loop turning (worker-progress.ts). */
  readonly #progress = progressCounters();
  readonly #probe: WorkerProbe;
  readonly #watchdog: WorkerWatchdog;
  /** The background timeout passed while the worker was busy: it fails once idle and still not loaded. */
  #loadOverdue = false;
  #heapUsed = 0;
  #cookieUnsubscribe: (() => void) | undefined;
  /** Listeners of the events the engine has no registry for (cookies.onChanged, runtime.onInstalled …). */
  readonly #eventListeners = new Map<string, number>();
  #badge: BadgeText = { text: '', byTab: {} };
  readonly #maps = new Map<string, SourceMap>();
  #terminating = false;

  private constructor(options: ExtensionWorkerOptions, open: (boot: WorkerBoot, progress: Int32Array) => RealmLink) {
    this.#options = options;
    this.#engine = options.engine;
    this.#filters = new WorkerFilters(this.#engine, (item) => this.#enqueue(item));
    this.boot = options.boot;
    this.#owner = options.owner;
    if (this.#owner) this.#attach(this.#owner);
    this.loaded = new Promise<Owner>((resolve, reject) => {
      this.#resolveLoaded = resolve;
      this.#rejectLoaded = reject;
    });
    // Nobody may await a failed load (a restart); the host reads the outcome itself.
    this.loaded.catch(() => {});
    for (const unit of [...options.boot.scripts, ...(options.boot.rule ? [options.boot.rule] : [])]) {
      if (unit.map) this.#maps.set(unit.file, new SourceMap(unit.map as SourceMapPayload));
    }

    // Its realm is made and started at once; where it counts what it takes up goes with it.
    const link = (this.#link = open(options.boot, this.#progress));
    link.on('stdout', (chunk: Buffer) => this.#log('info', chunk.toString('utf8').replace(/\n$/, '')));
    link.on('stderr', (chunk: Buffer) => this.#log('warn', chunk.toString('utf8').replace(/\n$/, '')));
    link.on('message', (batch: WorkerItem[]) => this.#receive(batch));
    link.on('error', (error: Error & { code?: string }) => this.#crashed(error));
    link.on('exit', (code: number) => this.#exited(code));
    link.on('collateral', (fault: CollateralFault) => this.#collateral(fault));
    // Only the realm its thread runs is looked at: a worker-mate's loop stalls this one too, but is not its doing.
    this.#probe = new WorkerProbe(link.thread, this.#progress, () => link.isRunning);
    this.#watchdog = new WorkerWatchdog(this.#probe, options.limits);

    this.#loadTimer = setTimeout(() => this.#loadTimedOut(), options.limits.backgroundTimeoutMs);
    this.#heartbeat = setInterval(() => this.#beat(), options.limits.heartbeatMs);
    this.#heartbeat.unref();
    // Taken up once the top level returns: until then the worker is busy loading.
    this.#ping();
  }

  static async start(options: ExtensionWorkerOptions): Promise<ExtensionWorker> {
    if (options.open) return new ExtensionWorker(options, options.open);
    const pool = options.pool?.heapLimitMb === options.limits.heapLimitMb ? options.pool : await WorkerPool.open(options.limits.heapLimitMb);
    return new ExtensionWorker(options, (boot, progress) => new RealmWorker(pool.take(), true).open(boot, progress));
  }

  get owner(): Owner | undefined {
    return this.#owner;
  }

  get threadId(): number {
    return this.#link.thread.threadId;
  }

  /** It shares its worker thread with other rules (rule-workers.ts). */
  get shared(): boolean {
    return !this.#link.worker.exclusive;
  }

  /** Bytes of the worker's V8 heap in use, as of its last answer to a ping. */
  get heapUsed(): number {
    return this.#heapUsed;
  }

  /** Not answering: stalled in its own time after a blocking call timed out (worker-watchdog.ts), or stuck. */
  get responsive(): boolean {
    if (this.#restartWait) return true;
    if (this.#state === 'disposed' || this.#stuck) return false;
    return !this.#watchdog.notResponding;
  }

  get unresponsiveReason(): string {
    if (this.#state === 'disposed') return 'its worker was stopped; the request went on without it';
    if (this.#stuck) return 'its worker is stuck and being restarted; the request went on without it';
    return `its worker has not answered for ${Math.round(this.#watchdog.stalledMs)} ms of its own time since a listener timed out (busy or stuck); the request went on without it`;
  }

  /**
   * Makes its listeners live for every request (while it loads they are told only of its own
   * requests, RemoteEndpoint.loading). The previous version must be disposed first.
   */
  commit(): void {
    if (this.#state !== 'loading') throw new Error(`cannot commit a ${this.#state} worker`);
    this.#state = 'live';
  }

  /** Its top level still runs: its listeners see only its own requests. */
  get loading(): boolean {
    return this.#state === 'loading';
  }

  /** Sends runtime.onInstalled (or onStartup) to the background. */
  lifecycle(event: 'onInstalled' | 'onStartup', details: unknown): void {
    this.#enqueue(['lifecycle', event, details]);
  }

  /** declarativeNetRequest.onRuleMatchedDebug, for an extension with declarativeNetRequestFeedback. */
  dnrRuleMatched(info: unknown): void {
    this.#enqueue(['dnrMatched', JSON.stringify(info)], false);
  }

  alarm(alarm: unknown): void {
    this.#enqueue(['alarm', alarm]);
  }

  /** tabs.onCreated: a tab counted from traffic, as this extension may see it. */
  tabCreated(tab: Record<string, unknown>): void {
    this.#enqueue(['tabCreated', JSON.stringify(tab)], false);
  }

  /** An attached browser's event (tabs.onUpdated, webNavigation.onCommitted, …), with its arguments. */
  surfaceEvent(event: string, args: unknown[]): void {
    this.#enqueue(['surfaceEvent', event, JSON.stringify(args)], false);
  }

  /** wrtui is closing: the worker saves IndexedDB's databases now, and says so (ExtensionServices.indexedDb). */
  saveIndexedDb(): void {
    this.#enqueue(['indexedDbSave']);
  }

  /** storage.local's file was edited: its storage.onChanged listeners hear what changed. */
  storageEdited(changes: StorageChanges): void {
    this.#enqueue(['storageChanged', 'local', JSON.stringify(changes)]);
  }

  /** Removes its listeners from the engine and terminates the worker. Pending events go on without it. */
  async dispose(): Promise<void> {
    this.#restartWait = undefined;
    this.#unregisterAll();
    await this.#stop();
  }

  /**
   * After a fault, while the host starts it again: its listeners stay registered, and the events
   * they are sent wait for `successor` (restart-wait.ts). dispose() ends that.
   */
  awaitSuccessor(successor: Promise<Successor | undefined>): void {
    if (this.#live.size > 0) this.#restartWait ??= new RestartWait(successor);
  }

  /** Terminates the worker; what waits on it goes on without it. Its listeners are left to dispose(). */
  async #stop(): Promise<void> {
    if (this.#state === 'disposed') return;
    const wasLoading = this.#state === 'loading';
    this.#state = 'disposed';
    clearTimeout(this.#loadTimer);
    clearInterval(this.#heartbeat);
    this.#watchdog.close();
    this.#probe.close();
    // Firefox cancels a request whose filter's extension went away mid-body.
    this.#filters.brokenAll();
    // Its own requests still reading a body end with it, as a browser's do when an extension goes away.
    for (const download of this.#downloads.values()) download.cancel();
    this.#downloads.clear();
    this.#cookieUnsubscribe?.();
    this.#cookieUnsubscribe = undefined;
    this.#calls.failAll('its worker was stopped (reloaded, unloaded or restarted); the request went on without it');
    if (wasLoading) this.#rejectLoaded(new LoadFailure('the load was abandoned'));
    this.#terminating = true;
    await this.#link.terminate();
  }

  // ── RemoteEndpoint ────────────────────────────────────────────────────────

  send(event: WebRequestEventName, lids: number[], details: string, url: string, timeoutMs: number): Promise<RemoteResult[] | { failed: string }> | undefined {
    if (this.#restartWait) return this.#restartWait.send(event, lids, details, url, timeoutMs);
    if (timeoutMs <= 0) {
      // Nobody waits: it may ride with the next message, or go within OBSERVING_BATCH_MS.
      this.#enqueue(['event', 0, event, lids, details], false);
      return undefined;
    }
    const { call, answer } = this.#calls.open(event, url, timeoutMs);
    this.#enqueue(['event', call, event, lids, details]);
    return answer;
  }

  /** Successor: an event its faulted predecessor's listeners `lids` were sent goes to its own listeners of that event (same code, same ids). */
  forward(event: WebRequestEventName, lids: number[], details: string, url: string, timeoutMs: number): Promise<RemoteResult[] | { failed: string }> | undefined {
    const own = lids.filter((lid) => this.#live.get(lid)?.event === event);
    if (own.length === 0) return timeoutMs > 0 ? Promise.resolve([]) : undefined;
    return this.send(event, own, details, url, timeoutMs);
  }

  // ── messages ──────────────────────────────────────────────────────────────

  /**
   * Queues an item for the worker. Items go in batches, one postMessage each: at the end of this
   * turn of the event loop when something waits (`urgent`), so that every event produced while
   * the proxy handles the sockets that were ready together travels at once; otherwise within
   * OBSERVING_BATCH_MS, or with the next urgent batch, whichever comes first. Order is kept.
   */
  #enqueue(item: HostItem, urgent = true): void {
    if (this.#state === 'disposed') return;
    this.#outbox.push(item);
    this.#watchdog.given();
    if (urgent) {
      this.#flushSoon ??= setImmediate(() => this.#flush());
    } else if (!this.#flushSoon && !this.#flushLater) {
      this.#flushLater = setTimeout(() => this.#flush(), OBSERVING_BATCH_MS);
      this.#flushLater.unref();
    }
  }

  #flush(): void {
    if (this.#flushSoon) clearImmediate(this.#flushSoon);
    if (this.#flushLater) clearTimeout(this.#flushLater);
    this.#flushSoon = undefined;
    this.#flushLater = undefined;
    const batch = this.#outbox;
    this.#outbox = [];
    if (this.#state !== 'disposed' && batch.length > 0) this.#link.postMessage(batch);
  }

  #receive(batch: WorkerItem[]): void {
    if (this.#state === 'disposed') return;
    for (const item of batch) {
      switch (item[0]) {
        case 'answers':
          this.#answered(item[1], item[2]);
          break;
        case 'pong':
          if (item[1] === this.#pingN) {
            this.#pingSentAt = undefined;
            this.#calls.lastUnanswered = undefined;
          }
          this.#heapUsed = item[2];
          break;
        case 'add':
          this.#added({ lid: item[1], event: item[2], filter: item[3], extraInfoSpec: item[4] });
          break;
        case 'remove':
          this.#removed(item[1]);
          break;
        case 'call':
          void this.#call(item[1], item[2], item[3]);
          break;
        case 'fetch':
          void this.#fetch(item[1], item[2]);
          break;
        case 'fetchRead':
          this.#downloads.get(item[1])?.read(item[2]);
          break;
        case 'fetchCancel':
          this.#downloads.get(item[1])?.cancel();
          break;
        case 'lateFailure': {
          const [, event, requestId, message, location] = item;
          this.#log('warn', `${event} (request ${requestId}): ${withBrowserGlobalHint(message)}${location ? ` at ${location}` : ''}`);
          break;
        }
        case 'log':
          this.#log(item[1], item[2]);
          break;
        case 'uncaught':
          this.#log('error', `${withBrowserGlobalHint(item[2])}${item[3] ? ` at ${item[3]}` : ''}`);
          break;
        case 'surfaceNote':
          this.#surfaceNote(item[1], item[2]);
          break;
        case 'missing':
          if (item[2] !== undefined) this.#log('debug', `${item[1]} is undefined: the manifest does not ask for the "${item[2]}" permission`);
          else if (this.#owner?.persona.name === 'chrome' && /^(chrome|browser)\.webRequest\.(filterResponseData|getSecurityInfo)$/.test(item[1]))
            this.#surfaceNote(item[1], "undefined under the chrome persona: it is Firefox's, Chrome has none (--persona firefox has it)");
          else if (this.#owner?.persona.hasFilterResponseData && /^(chrome|browser)\.webRequest\.filterResponseData$/.test(item[1]))
            this.#surfaceNote(item[1], 'undefined: Firefox gives it to an extension with the "webRequestBlocking" permission (and, in Manifest V3, "webRequestFilterResponse")');
          else if (this.#owner?.persona.name === 'spec' && /^(chrome|browser)\.webRequest\.(ResourceType|On\w+Options|IgnoredActionType|onActionIgnored|filterResponseData|getSecurityInfo)$/.test(item[1]))
            this.#log('warn', `${item[1]} is not in the spec persona (the seed interface); run with --persona chrome or firefox to see what that browser has`);
          else this.#log('warn', `${item[1]} is not available in wrtui; it is undefined here, as an API without its permission is in a browser`);
          break;
        case 'cookieListeners':
          this.#cookieListeners(item[1]);
          break;
        case 'badge':
          this.#badge = { text: item[1], byTab: item[2] };
          break;
        case 'eventListeners':
          if (item[2] > 0) this.#eventListeners.set(item[1], item[2]);
          else this.#eventListeners.delete(item[1]);
          break;
        case 'manifest':
          this.#manifest(item[1]);
          break;
        case 'ready':
          this.#ready();
          break;
        case 'reload':
          // Only a live worker may ask: a reload from top-level code would load it again forever.
          if (this.#state === 'live') this.#options.onReloadRequested?.();
          else this.#log('warn', 'runtime.reload() while loading is ignored: it would reload the extension forever');
          break;
        case 'loadFailed':
          this.#loadFailed(new LoadFailure(withBrowserGlobalHint(item[1]), item[2]));
          break;
        case 'filterCreate':
          this.#filters.created(item[1], item[2], this.#owner);
          break;
        case 'filterWrite':
        case 'filterAck':
        case 'filterCall':
          this.#filters.received(item);
          break;
      }
    }
  }

  #answered(call: number, results: ListenerResult[]): void {
    // A failed listener's message gets its hint; answers (nearly all) pass as they came.
    const hinted = results.some((result) => result[1] !== 'value')
      ? results.map((result) => (result[1] === 'value' ? result : ([result[0], result[1], withBrowserGlobalHint(result[2]), ...(result[3] === undefined ? [] : [result[3]])] as ListenerResult)))
      : results;
    this.#calls.answered(call, hinted);
  }

  #manifest(manifest: unknown): void {
    if (this.#state !== 'loading' || this.#owner || !this.#options.ownerFromManifest) return;
    try {
      this.#owner = this.#options.ownerFromManifest(manifest);
      this.#attach(this.#owner);
    } catch (error) {
      this.#loadFailed(error instanceof LoadFailure ? error : new LoadFailure((error as Error).message, this.boot.rule?.source));
    }
  }

  #added(listener: AddedListener): void {
    if (this.#state !== 'disposed') this.#register(listener);
  }

  #removed(lid: number): void {
    const live = this.#live.get(lid);
    if (!live || !this.#owner) return;
    this.#live.delete(lid);
    this.#engine.registry.remove(this.#owner, live.event, live.stub);
  }

  /** The owner's hooks that reach this worker. */
  #attach(owner: Owner): void {
    if (owner.persona.hasActionIgnored) owner.actionIgnored = (requestId, action) => this.#enqueue(['actionIgnored', requestId, action], false);
  }

  #register({ lid, event, filter, extraInfoSpec }: AddedListener): void {
    const owner = this.#owner;
    if (!owner) return;
    // A stand-in callback: dispatch sends remote listeners their events instead of calling it.
    const stub = () => {};
    try {
      // No options travel as an empty list; an event without options (Firefox's onErrorOccurred) refuses even that.
      this.#engine.registry.add(owner, event, stub, filter, extraInfoSpec.length > 0 ? extraInfoSpec : undefined, { endpoint: this, lid });
      this.#live.set(lid, { event, stub });
    } catch (error) {
      // The worker validated this already; a refusal here means its message was not what it checked.
      this.#log('error', `a ${event} listener was refused by the engine: ${(error as Error).message}`);
    }
  }

  #unregisterAll(): void {
    const owner = this.#owner;
    if (!owner) return;
    for (const { event, stub } of this.#live.values()) this.#engine.registry.remove(owner, event, stub);
    this.#live.clear();
  }

  async #call(id: number, method: string, args: unknown[]): Promise<void> {
    const owner = this.#owner;
    try {
      if (!owner) throw new Error(`${method} was called before the rule's manifest was read`);
      // A module Worker's script is bundled here, as a module background is.
      const value = method === 'worker.bundle' ? await bundleWorkerModule(this.boot.rootDir, args[0]) : await this.#options.services.call(owner, method, args);
      this.#enqueue(['reply', id, true, value]);
    } catch (error) {
      this.#enqueue(['reply', id, false, error instanceof Error ? error.message : String(error)]);
    }
  }

  async #fetch(id: number, request: ExtensionFetchRequest): Promise<void> {
    const owner = this.#owner;
    const network = this.#engine.lifecycle.network;
    if (network === 'offline') {
      if (!this.#toldOffline) this.#log('info', `fetch(${request.url}) and every later fetch of its own fail in a replay, which reaches no network; the requests it made when recorded are replayed as its own`);
      this.#toldOffline = true;
      return this.#enqueue(['fetched', id, undefined, owner ? fetchFailure(owner).message : 'Failed to fetch']);
    }
    if (!network || !owner) return this.#enqueue(['fetched', id, undefined, 'direct']);
    const counts = this.#options.services.ownRequests;
    counts.made++;
    const download = new Download(this.#enqueue.bind(this), id);
    this.#downloads.set(id, download);
    try {
      await fetchForExtension(this.#engine.lifecycle, owner, request, download, this);
      this.#enqueue(['fetchEnd', id]);
    } catch (error) {
      counts.failed++;
      const message = error instanceof Error ? error.message : String(error);
      this.#enqueue(download.headed ? ['fetchEnd', id, [error instanceof Error ? error.name : 'TypeError', message]] : ['fetched', id, undefined, message]);
    } finally {
      this.#downloads.delete(id);
    }
  }

  /** Its toolbar button's badge text: the button's own and each tab's (a tab's wins for that tab). */
  get badge(): BadgeText {
    return this.#badge;
  }

  /** event → listeners, for the events the webRequest registry does not hold. */
  get eventListeners(): ReadonlyMap<string, number> {
    return this.#eventListeners;
  }

  #cookieListeners(count: number): void {
    const owner = this.#owner;
    if (count > 0 && !this.#cookieUnsubscribe && owner) {
      this.#cookieUnsubscribe = this.#engine.cookies.onChanged((info: CookieChangeInfo, attributes) => {
        if (!this.#options.services.mayAccess(owner, info.cookie)) return;
        // The cookie as this extension's browser shows it (Chrome's and Firefox's have sameSite).
        const sameSite = owner.persona.cookieSameSite(attributes.sameSite);
        this.#enqueue(['cookieChanged', JSON.stringify(sameSite === undefined ? info : { ...info, cookie: { ...info.cookie, sameSite } })], false);
      });
    } else if (count === 0 && this.#cookieUnsubscribe) {
      this.#cookieUnsubscribe();
      this.#cookieUnsubscribe = undefined;
    }
  }

  #ready(): void {
    if (this.#state !== 'loading') return;
    clearTimeout(this.#loadTimer);
    if (!this.#owner) return this.#loadFailed(new LoadFailure('the rule did not report its manifest', this.boot.rule?.source));
    this.#resolveLoaded(this.#owner);
  }

  #loadFailed(failure: LoadFailure): void {
    if (this.#state !== 'loading') return;
    clearTimeout(this.#loadTimer);
    this.#rejectLoaded(failure);
    void this.dispose();
  }

  /**
   * The background timeout passed. A worker still busy in its top level is left to the watchdog
   * (work runs on, a hang is stopped: #stuckFor); one that is idle and has not loaded (a Promise that
   * never settles) fails now, or once it is idle.
   */
  #loadTimedOut(): void {
    if (this.#state !== 'loading') return;
    if (this.#watchdog.waiting) {
      this.#loadOverdue = true;
      return;
    }
    const ms = this.#options.limits.backgroundTimeoutMs;
    const message =
      this.boot.kind === 'rule'
        ? `the background did not settle within ${ms} ms (an async background must resolve; see backgroundTimeoutMs)`
        : `the background's top-level code did not finish within ${ms} ms`;
    this.#loadFailed(new LoadFailure(message, this.boot.rule?.source));
  }

  // ── health ────────────────────────────────────────────────────────────────

  #beat(): void {
    if (this.#state === 'disposed' || this.#stuck) return;
    if (this.#loadOverdue && this.#state === 'loading' && !this.#watchdog.waiting) return this.#loadTimedOut();
    this.#ping();
    const verdict = this.#watchdog.beat(this.#state === 'live');
    if (verdict) void this.#stuckFor(verdict);
  }

  /** A ping, unless one is in flight: the worker always has something waiting while it is busy, and it says its heap. */
  #ping(): void {
    if (this.#pingSentAt !== undefined || this.#state === 'disposed') return;
    this.#pingSentAt = performance.now();
    this.#enqueue(['ping', ++this.#pingN]);
  }

  /** The watchdog found it stuck: a load fails, a live worker faults (and is restarted by the host). */
  async #stuckFor(verdict: StuckVerdict): Promise<void> {
    // A worker-mate runs: the stall is its doing, and its own watchdog says so.
    if (this.#state === 'disposed' || this.#stuck || !this.#link.isRunning) return;
    const doing = this.#doing();
    this.#stuck = true;
    const location = this.#userLocation(verdict.sample?.frames ?? (await stackOfStuckWorker(this.#link.thread.threadId)));
    // Its thread ends now (its worker-mates are told they go with it); what stays of it is stopped below.
    void this.#link.abandon('was stuck');
    const ms = Math.round(verdict.stalledMs);
    const limit = `${Math.round(this.#options.limits.hangLimitMs / 1000)} s`;
    if (this.#state === 'loading') {
      const message =
        verdict.why === 'no-progress'
          ? `the background's top-level code made no progress for ${ms} ms of its own time (a synchronous loop?)`
          : `the background's top-level code did not finish within ${ms} ms of its own time (the ${limit} limit on a busy worker)`;
      return this.#loadFailed(new LoadFailure(location ? `${message}; it was busy at ${location}` : message, location ?? this.boot.rule?.source));
    }
    if (this.#state !== 'live') return;
    this.#fault({
      kind: 'stuck',
      message:
        verdict.why === 'no-progress'
          ? `its event loop did not turn for ${ms} ms of its own time, with no progress (a synchronous loop?)`
          : `its event loop did not turn for ${ms} ms of its own time (busy past the ${limit} limit)`,
      ...(doing && { doing }),
      ...(location && { location }),
    });
  }

  /** The innermost frame in the user's files, mapped through its source map. */
  #userLocation(frames: readonly StuckFrame[]): string | undefined {
    for (const frame of frames) {
      const file = frame.url.startsWith('file://') ? decodeURIComponent(frame.url.slice('file://'.length)) : frame.url;
      if (!this.#isUserFile(file)) continue;
      return mapped(this.#maps.get(file), file, frame.line, frame.column);
    }
    return undefined;
  }

  #isUserFile(file: string): boolean {
    if (file === this.boot.rule?.file) return true;
    const relative = path.relative(this.boot.rootDir, file);
    return this.boot.kind === 'extension' && relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  }

  #doing(): WorkerFault['doing'] {
    const oldest = this.#calls.oldest();
    return oldest && { event: oldest.event, url: oldest.url, forMs: Math.round(performance.now() - oldest.since) };
  }

  #crashed(error: Error & { code?: string }): void {
    const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
    const fault: WorkerFault = outOfMemory
      ? { kind: 'out-of-memory', message: `it ran out of memory (heap limit ${this.#options.limits.heapLimitMb} MB)` }
      : { kind: 'crashed', message: `its worker crashed: ${error.message}` };
    if (this.#state === 'loading') return this.#loadFailed(new LoadFailure(fault.message));
    const doing = this.#doing();
    this.#fault({ ...fault, ...(doing && { doing }) });
  }

  #exited(code: number): void {
    if (this.#terminating || this.#state === 'disposed') return;
    const message = `its worker exited with code ${code} (process.exit?)`;
    if (this.#state === 'loading') return this.#loadFailed(new LoadFailure(message));
    const doing = this.#doing();
    this.#fault({ kind: 'exited', message, ...(doing && { doing }) });
  }

  /** A worker-mate's fault ended the thread they shared: a load is tried again, a live version restarts (not its fault). */
  #collateral({ culprit, what }: CollateralFault): void {
    if (this.#terminating || this.#state === 'disposed') return;
    const message = `the worker it shares with other rules ended: ${culprit === undefined ? 'another rule' : JSON.stringify(culprit)} ${what}; its top level runs again in another`;
    if (this.#state === 'loading') return this.#loadFailed(new LoadFailure(message, undefined, 'collateral'));
    this.#fault({ kind: 'collateral', message });
  }

  #fault(fault: WorkerFault): void {
    if (this.#state !== 'live') return;
    // Its listeners stay until the host decides: started again (awaitSuccessor) or not (dispose).
    void this.#stop();
    this.#options.onFault(fault);
  }

  #log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void {
    this.#engine.journal.append({ kind: 'log', level, source: this.#owner?.id ?? this.#options.source, message });
  }

  /** What a browser API it used does here: once per extension, gathered into one debug entry (surface-notes.ts). */
  #surfaceNote(api: string, note: string): void {
    this.#options.services.surfaceNotes.add(api, note, (message) => this.#log('debug', message));
  }
}
