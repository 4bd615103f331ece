// ExtensionHost: every rule file and unpacked extension, each in a realm of its own (one
// ExtensionWorker per running version), kept in sync with the files on disk and supervised. Rule
// files share a few worker threads (rule-workers.ts); an extension, or a rule that asks with
// `ownWorker: true`, has a worker of its own.
//
// Loading: the package is prepared on the proxy thread (a rule bundled, an extension's manifest
// and background read: extension-package.ts), a new worker runs it, and only once its top level
// (and a rule's background) ran without error does the host, in one synchronous step, dispose
// the previous version's listeners and make the new ones live (no request sees both or neither);
// then handlerBehaviorChanged runs under the quota, and runtime.onInstalled fires. A failed load
// keeps the previous version serving and is journaled with file:line in the user's file.
//
// Faults of a live worker (stuck event loop, heap exhausted, exit, crash): its listeners leave
// the engine at once, the journal says which rule or extension, what it was doing and where it
// was stuck, and it is started again after a back-off (restart-policy.ts); after repeated faults
// it is marked crashed and stays down until its files change. A fault that ends a shared worker is
// the fault of the rule that ran (realm-worker.ts); its worker-mates are started again at once, not
// counted against them, and their journal entries name the rule at fault.
//
// Precedence (which verdict wins a conflict): the manifest's `precedence` (rules), then install
// order: the rules folder's entries in name order, the later winning (as in Chrome the extension
// installed last wins), then `--extension` folders in the order given. A reload never changes it.
import { webAccessiblePatterns, webAccessibleResource } from './web-accessible-resources.js';
import { BrowserTabEvents, type TabEventListener } from './browser-tab-events.js';
import path from 'node:path';
import type { Engine } from '../engine.js';
import { createOwner, type Owner } from '../owner.js';
import { choosePersona, personaNamed, type PersonaName } from '../personas/index.js';
import { RuleBuildError } from '../rules/rule-bundler.js';
import { compareRuleFiles } from '../rules/rule-files.js';
import { ManifestError, checkManifest, type ValidManifest } from '../rules/rule-manifest.js';
import { RuleTypeChecker, type TypeDiagnostic } from '../rules/rule-type-checker.js';
import type { QuotaState } from '../web-request/handler-behavior-changed.js';
import type { ListenerDescription, RemoteEndpoint } from '../web-request/listener-registry.js';
import { ExtensionManifestError, MANIFEST_FILE } from './extension-manifest.js';
import { FolderWatch, classifyRulesFolderPath, exists, listRulesFolder, workersToStart } from './extension-folders.js';
import { PackageError, prepareExtension, prepareRule, type PreparedPackage } from './extension-package.js';
import { ExtensionServices } from './extension-services.js';
import { MatchPatternSet } from '../match-pattern.js';
import type { DnrEngine } from '../dnr/dnr-engine.js';
import { DEFAULT_WORKER_LIMITS, ExtensionWorker, LoadFailure, type WorkerFault, type WorkerLimits } from './extension-worker.js';
import { WorkerPool } from './worker-pool.js';
import { RuleWorkers, sharedRuleWorkerCount } from './rule-workers.js';
import { pageDom } from './worker-script.js';
import { DryRunToggles } from './dry-run-toggles.js';
import type { RuleProblem, RuleState, RuleStatus, RuntimeState } from './rule-status.js';
import { DEFAULT_RESTART_POLICY, RestartPolicy, type RestartPolicyOptions } from './restart-policy.js';

export interface ExtensionHostOptions {
  /** The rules folder: rule files and extension sub-folders (those holding a manifest.json). */
  rulesDir?: string;
  /** Unpacked extension folders (`--extension`), installed after the rules folder's, in this order. */
  extensions?: readonly string[];
  /** Reload on change (default true); the CLI's --no-watch loads once. */
  watch?: boolean;
  /** Quiet time after a file event before reloading (ms, default 40). */
  debounceMs?: number;
  /** How long a background may take to load (ms, default 5000). */
  backgroundTimeoutMs?: number;
  /** Type-check rule files in a separate process and report errors as warnings (default true). */
  typeCheck?: boolean;
  typeCheckDelayMs?: number;
  /** Where storage.local persists (`<stateDir>/extensions/<id>/`); in memory without it. */
  stateDir?: string;
  /** Worker heap cap, stuck detection, heartbeat. */
  limits?: Partial<Omit<WorkerLimits, 'backgroundTimeoutMs'>>;
  restartPolicy?: RestartPolicyOptions;
  /** How often a missing folder is looked for (ms, default 500). */
  pollMs?: number;
  /** `--persona`: the browser every rule and extension sees unless its manifest says otherwise (docs/personas.md). */
  persona?: PersonaName;
  /**
   * Where workers come from (worker-pool.ts): a pool that outlives the host (the replay TUI's,
   * refilled between re-runs). Without it the host has its own, which boots every worker it
   * starts with at once.
   */
  pool?: WorkerPool;
  /** How many worker threads the rule files share (default: one per core, at most 4: rule-workers.ts). */
  ruleWorkers?: number;
  /** A browser wrtui starts will be attached (`wrtui browser`): extensions hear its tabs and navigations, and their notes say so. */
  attachedBrowser?: boolean;
}

export type { RuleProblem, RuleState, RuleStatus, RuntimeState } from './rule-status.js';

type LoadCause = 'start' | 'change' | 'manual' | 'restart';

interface LoadedVersion {
  worker: ExtensionWorker;
  owner: Owner;
  pkg: PreparedPackage;
  /** A rule's manifest (checked); extensions have none of these keys. */
  declared: { precedence?: number; dryRun?: boolean; node: boolean };
  version: string | undefined;
  loadedAt: number;
}

interface HostedRecord {
  readonly key: string;
  readonly kind: 'rule' | 'extension';
  /** Position in install order: the rules folder (0) before --extension folders (1, 2, …). */
  readonly origin: number;
  name: string;
  state: RuleState;
  current: LoadedVersion | undefined;
  error: RuleProblem | undefined;
  duplicateOf: string | undefined;
  loads: number;
  inputs: string[];
  dryRunOverride: { on: boolean; manifestValue: boolean | undefined } | undefined;
  typeErrors: TypeDiagnostic[];
  running: Promise<void> | undefined;
  again: boolean;
  services: ExtensionServices | undefined;
  /** Chrome's id for it (the manifest's key, else its path): what its storage and DNR rules are kept under, whatever the persona. */
  extensionId: string | undefined;
  policy: RestartPolicy;
  runtime: RuntimeState;
  restarts: number;
  fault: RuleStatus['runtime']['fault'];
  restartTimer: NodeJS.Timeout | undefined;
  /** Loading the folder: this version goes live only after the entry before it in name order has loaded (or failed). */
  liveAfter: Promise<void> | undefined;
  /** The rule asked for a worker of its own (`ownWorker: true`), as of its last load. */
  ownWorker: boolean;
  /** After a fault, until a version is live again: its faulted worker's events wait for it (restart-wait.ts). */
  successor: { promise: Promise<ExtensionWorker | undefined>; resolve: (worker: ExtensionWorker | undefined) => void } | undefined;
}

const MAX_TYPE_ERRORS_JOURNALED = 10;
/** Rules folder entries loading at once at start (bench/many-rules.ts, 100 rule files: 4 loaded faster than 8 or 16 here). */
const LOADS_AT_ONCE = 4;

/** How long wrtui waits, when it quits, for a worker to save its IndexedDB changes. */
const INDEXED_DB_SAVE_WAIT_MS = 1_000;

export class ExtensionHost {
  readonly engine: Engine;
  /** The rules folder, absolute (undefined when none was given). */
  readonly dir: string | undefined;
  readonly #options: ExtensionHostOptions;
  readonly #limits: WorkerLimits;
  #pool: WorkerPool | undefined;
  #ruleWorkers: RuleWorkers | undefined;
  readonly #records = new Map<string, HostedRecord>();
  /** Input file → the records whose last build included it. */
  readonly #dependents = new Map<string, Set<string>>();
  readonly #changeListeners = new Set<() => void>();
  readonly #watches: FolderWatch[] = [];
  readonly #typeChecker: RuleTypeChecker | undefined;
  /** The per-rule dry-run toggles, kept across runs with a state dir. */
  readonly #dryRunToggles: DryRunToggles;
  #closed = false;

  private constructor(engine: Engine, options: ExtensionHostOptions) {
    this.engine = engine;
    this.dir = options.rulesDir === undefined ? undefined : path.resolve(options.rulesDir);
    this.#options = options;
    this.#dryRunToggles = new DryRunToggles(options.stateDir, (message) => this.#log('warn', 'rules', message));
    this.#limits = { ...DEFAULT_WORKER_LIMITS, ...options.limits, backgroundTimeoutMs: options.backgroundTimeoutMs ?? DEFAULT_WORKER_LIMITS.backgroundTimeoutMs };
    this.#typeChecker =
      options.typeCheck === false || this.dir === undefined
        ? undefined
        : new RuleTypeChecker({
            rulesDir: this.dir,
            ...(options.typeCheckDelayMs !== undefined && { delayMs: options.typeCheckDelayMs }),
            onResult: (file, diagnostics) => this.#typeChecked(file, diagnostics),
            onUnavailable: (reason) => this.#log('info', 'rules', `type checks of rules are off: ${reason}`),
          });
  }

  /** Loads every rule and extension and, unless `watch: false`, keeps them in sync with their files. */
  static async start(engine: Engine, options: ExtensionHostOptions): Promise<ExtensionHost> {
    const host = new ExtensionHost(engine, options);
    await host.#start();
    return host;
  }

  /** Each live extension's and rule's worker, with its owner. */
  *#liveWorkers(): Iterable<TabEventListener> {
    for (const record of this.#records.values()) if (record.current) yield { worker: record.current.worker, owner: record.current.owner };
  }

  async #start(): Promise<void> {
    this.#pool = this.#options.pool ?? (await WorkerPool.open(this.#limits.heapLimitMb));
    this.#ruleWorkers = new RuleWorkers(this.#pool, this.#options.ruleWorkers ?? sharedRuleWorkerCount());
    await this.#dryRunToggles.load();
    // An extension's rules follow its dry-run switch, as its listeners do.
    // Tabs, windows and navigations (traffic's tabs; an attached browser's): browser-tab-events.ts.
    new BrowserTabEvents(this.engine, () => this.#liveWorkers()).wire();
    // A redirect to one of its extensions' URLs is served from that extension's folder.
    this.engine.lifecycle.extensionResources = async (url) => {
      for (const record of this.#records.values()) {
        if (record.kind !== 'extension' || !record.current?.pkg.manifest || new URL(record.current.pkg.boot.baseUrl).host !== url.host) continue;
        return webAccessibleResource(record.key, webAccessiblePatterns(record.current.pkg.manifest.raw), url);
      }
      return undefined;
    };
    this.engine.dnr.isDryRun = (extensionId) => {
      if (this.engine.dryRun) return true;
      for (const record of this.#records.values()) if (record.extensionId === extensionId && record.current?.owner.dryRun === true) return true;
      return false;
    };
    const watch = this.#options.watch !== false;
    // Every worker the start needs boots now, together, while the watchers start; each is then
    // given its extension in order. (The folder is listed again to load it, once it is watched.)
    this.#pool.warm(await workersToStart(this.dir, this.#options.extensions ?? [], this.#ruleWorkers.size));
    if (this.dir !== undefined) {
      const dir = this.dir;
      if (!(await exists(dir))) this.#log('warn', 'rules', `the rules folder ${dir} does not exist${watch ? '; wrtui loads it when it appears' : ': no rules loaded'}`);
      if (watch) {
        this.#watches.push(
          await FolderWatch.start(dir, {
            ...this.#watchTiming(),
            onChange: (file) => this.#rulesFolderChanged(dir, file),
            onError: (error) => this.#log('warn', 'rules', `watching ${dir}: ${error.message}`),
            onAppeared: () => {
              this.#log('info', 'rules', `the rules folder ${dir} appeared: loading it`);
              void this.#loadRulesFolder(dir, 'change');
            },
          }),
        );
      }
      if (await exists(dir)) await this.#loadRulesFolder(dir, 'start');
    }
    for (const [index, given] of (this.#options.extensions ?? []).entries()) {
      const dir = path.resolve(given);
      const present = await exists(path.join(dir, MANIFEST_FILE));
      if (!present) this.#log('warn', 'extensions', `no ${MANIFEST_FILE} in ${dir}${watch ? '; wrtui loads the extension when it appears' : ''}`);
      const record = this.#recordFor(dir, 'extension', index + 1);
      if (watch) {
        this.#watches.push(
          await FolderWatch.start(dir, {
            ...this.#watchTiming(),
            onChange: () => void this.#schedule(record.key, 'change'),
            onError: (error) => this.#log('warn', 'extensions', `watching ${dir}: ${error.message}`),
            onAppeared: () => void this.#schedule(record.key, 'change'),
          }),
        );
      }
      if (present) await this.#schedule(record.key, 'start');
    }
  }

  #watchTiming() {
    return {
      ...(this.#options.debounceMs !== undefined && { debounceMs: this.#options.debounceMs }),
      ...(this.#options.pollMs !== undefined && { pollMs: this.#options.pollMs }),
    };
  }

  async #loadRulesFolder(dir: string, cause: LoadCause): Promise<void> {
    // Several at once (bundles on esbuild's thread, realms in every shared worker), each made live
    // only after the one before it in name order: the outcome of a name clash does not depend on timing.
    const inFlight = new Set<Promise<void>>();
    let before: Promise<void> = Promise.resolve();
    for (const { kind, key } of await listRulesFolder(dir)) {
      const record = this.#recordFor(key, kind, 0);
      record.liveAfter = before;
      const run = this.#schedule(key, cause);
      before = run;
      inFlight.add(run);
      void run.finally(() => inFlight.delete(run));
      if (inFlight.size >= LOADS_AT_ONCE) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  }

  // ── for the UI and the CLI ────────────────────────────────────────────────

  /** Every rule and extension seen: the rules folder's in name order, then --extension folders. */
  rules(): RuleStatus[] {
    return this.#ordered().map((record) => this.#status(record));
  }

  /** One rule or extension by name, file or folder. */
  rule(nameOrFile: string): RuleStatus | undefined {
    const record = this.#find(nameOrFile);
    return record && this.#status(record);
  }

  /**
   * Replay's fast path: every call a rule or extension makes of the host (cookies, storage, tabs …)
   * is told to `observer` before it runs, and the live workers are listed (to wait on them).
   */
  observeServiceCalls(observer: (owner: Owner, method: string) => void): { owner: Owner; endpoint: RemoteEndpoint }[] {
    const live: { owner: Owner; endpoint: RemoteEndpoint }[] = [];
    for (const record of this.#records.values()) {
      if (record.services) record.services.callObserver = observer;
      if (record.current) live.push({ owner: record.current.owner, endpoint: record.current.worker });
    }
    return live;
  }

  /** Reloads a rule or extension now; resolves with its status afterwards. */
  async reload(nameOrFile: string): Promise<RuleStatus> {
    const record = this.#find(nameOrFile);
    if (!record) throw new Error(`no rule or extension named ${JSON.stringify(nameOrFile)}`);
    await this.#schedule(record.key, 'manual');
    return this.#status(record);
  }

  /**
   * Dry-run on or off for one rule or extension, at once and without a reload. The choice survives
   * reloads until the rule file's own `dryRun` changes (the author's newer decision wins).
   */
  setDryRun(nameOrFile: string, on: boolean): RuleStatus {
    const record = this.#find(nameOrFile);
    if (!record) throw new Error(`no rule or extension named ${JSON.stringify(nameOrFile)}`);
    record.dryRunOverride = { on, manifestValue: record.current?.declared.dryRun };
    if (record.current) record.current.owner.dryRun = on;
    this.#log('info', record.name, `dry-run ${on ? 'on' : 'off'}${this.#dryRunToggles.kept ? ' (kept across restarts until the file changes its own dryRun)' : ''}`);
    this.#saveDryRunToggles();
    this.#emitChange();
    return this.#status(record);
  }

  /** Writes every record's toggle (dry-run-toggles.ts). */
  #saveDryRunToggles(): void {
    this.#dryRunToggles.save([...this.#records.values()].map((record) => [record.key, record.dryRunOverride]));
  }

  /** Calls `listener` after any change of what rules() returns; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  /** Waits until no load is in progress (tests, the bench). */
  async idle(): Promise<void> {
    for (;;) {
      const running = [...this.#records.values()].map((record) => record.running).filter((run) => run !== undefined);
      if (running.length === 0) return;
      await Promise.allSettled(running);
    }
  }

  /** Stops watching and type-checking, stops every worker, writes storage. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all(this.#watches.map((watch) => watch.close()));
    await this.#typeChecker?.close();
    await this.idle();
    for (const record of this.#records.values()) {
      clearTimeout(record.restartTimer);
      await this.#saveIndexedDb(record);
      await this.#unload(record, 'wrtui is closing');
      await record.services?.close();
    }
    await this.#dryRunToggles.settled();
    await this.engine.dnr.settled();
    await this.#ruleWorkers?.close();
    if (this.#pool !== this.#options.pool) await this.#pool?.close();
    this.#changeListeners.clear();
  }

  // ── loading ───────────────────────────────────────────────────────────────

  /** Runs loads of one record one after another; a change during a load runs one more afterwards. */
  #schedule(key: string, cause: LoadCause): Promise<void> {
    const record = this.#records.get(key);
    if (!record) return Promise.resolve();
    if (record.running) {
      record.again = true;
      return record.running;
    }
    record.running = (async () => {
      try {
        let next = cause;
        do {
          record.again = false;
          try {
            await this.#sync(record, next);
          } catch (error) {
            // A bug of wrtui's own (esbuild crashing, a full disk): the rule's failure, never the proxy's.
            this.#fail(record, { message: `wrtui could not load it: ${describeError(error)}` });
          }
          next = cause === 'manual' ? 'manual' : 'change';
        } while (record.again && !this.#closed);
      } finally {
        record.running = undefined;
      }
    })();
    return record.running;
  }

  /** Makes the engine match the disk: load it, or unload it when it is gone. */
  async #sync(record: HostedRecord, cause: LoadCause): Promise<void> {
    if (this.#closed) return;
    const present = await exists(record.kind === 'rule' ? record.key : path.join(record.key, MANIFEST_FILE));
    if (!present) return this.#unload(record, record.kind === 'rule' ? 'the file was removed' : `${MANIFEST_FILE} was removed`);
    await this.#load(record, cause);
  }

  async #load(record: HostedRecord, cause: LoadCause, attempt?: number): Promise<void> {
    if (cause !== 'restart') {
      // A change (a fix, perhaps) or a manual reload: whatever failed before starts over.
      clearTimeout(record.restartTimer);
      record.restartTimer = undefined;
      record.policy.reset();
      record.restarts = 0;
    }
    let pkg: PreparedPackage;
    try {
      pkg = record.kind === 'rule' ? await prepareRule(record.key) : await prepareExtension(record.key, this.#options.persona);
    } catch (error) {
      if (error instanceof RuleBuildError || error instanceof ExtensionManifestError || error instanceof PackageError) {
        return this.#fail(record, { message: error.message, ...(error.location && { location: error.location }) }, cause);
      }
      throw error;
    }
    this.#trackInputs(record, pkg.inputs);
    if (pkg.manifest) record.name = pkg.manifest.name;
    for (const warning of pkg.manifest?.warnings ?? []) this.#journalRule(record, 'warning', warning, path.join(record.key, MANIFEST_FILE));
    // Granted, as to a policy-installed extension, so that an extension under test works; said once per load, not per restart.
    if (cause !== 'restart' && pkg.persona === 'chrome' && pkg.manifest?.manifestVersion === 3 && pkg.manifest.permissions.includes('webRequestBlocking')) {
      this.#journalRule(record, 'warning', 'Chrome 156 grants "webRequestBlocking" to a Manifest V3 extension only when it is installed by policy (or allowlisted with --allowlisted-extension-id); wrtui grants it, as to a policy-installed extension', path.join(record.key, MANIFEST_FILE));
    }
    record.extensionId = pkg.manifest?.id ?? pkg.boot.extensionId;
    record.services ??= await ExtensionServices.open(this.engine, {
      stateDir: this.#options.stateDir,
      extensionId: record.extensionId,
      name: record.name,
      onAlarm: (alarm) => record.current?.worker.alarm(alarm),
    });
    // Its declarativeNetRequest rules are in place before its code runs (which may update them).
    await this.#registerDnr(record, pkg);
    const update = cause === 'change' || cause === 'manual';
    // Chrome empties session storage and drops alarms when an extension is updated.
    if (update && record.current) record.services.reloaded();

    let declared: LoadedVersion['declared'] = { node: false };
    let warnings: string[] = [];
    const ownerFromManifest = (value: unknown): Owner => {
      let checked: { manifest: ValidManifest; warnings: string[] };
      try {
        checked = checkManifest(value);
      } catch (error) {
        if (error instanceof ManifestError) throw new LoadFailure(error.message, record.key);
        throw error;
      }
      record.name = checked.manifest.name;
      // Placed where its previous version asked; a rule that asks otherwise now loads again there.
      if ((checked.manifest.ownWorker === true) !== record.ownWorker) {
        record.ownWorker = checked.manifest.ownWorker === true;
        throw new LoadFailure(`it asks for ${record.ownWorker ? 'a worker of its own' : 'a shared worker'}`, record.key, 'relocate');
      }
      warnings = checked.warnings;
      declared = {
        node: checked.manifest.node === true,
        ...(checked.manifest.precedence !== undefined && { precedence: checked.manifest.precedence }),
        ...(checked.manifest.dryRun !== undefined && { dryRun: checked.manifest.dryRun }),
      };
      return createOwner(
        {
          name: checked.manifest.name,
          permissions: checked.manifest.permissions,
          host_permissions: checked.manifest.host_permissions,
          dryRun: this.#dryRunFor(record, checked.manifest.dryRun),
          persona: personaNamed(choosePersona({ ...(checked.manifest.persona && { declared: checked.manifest.persona }), ...(this.#options.persona && { flag: this.#options.persona }) })),
          baseUrl: pkg.boot.baseUrl,
        },
        { precedence: 0 }, // set by #rank() when the version goes live
      );
    };
    const extensionPersona = pkg.persona;
    const extensionOwner = pkg.manifest
      ? createOwner(
          { name: pkg.manifest.name, permissions: pkg.manifest.permissions, host_permissions: pkg.manifest.hostPermissions, dryRun: this.#dryRunFor(record, undefined), persona: personaNamed(extensionPersona!), baseUrl: pkg.boot.baseUrl },
          { precedence: 0 },
        )
      : undefined;
    if (!record.current) this.#setRuntime(record, 'starting');

    const previousVersion = record.current?.version;
    const { pageHtml, ...packaged } = pkg.boot;
    const worker: ExtensionWorker = await ExtensionWorker.start({
      engine: this.engine,
      boot: {
        ...packaged,
        // A background page's DOM, run in its realm on first use (worker-script.ts).
        ...(pageHtml !== undefined && { page: { html: pageHtml, ...(await pageDom()) }, localStorage: keptLocalStorage(record.services) }),
        // IndexedDB's databases as the last worker left them (read by the new one on first use).
        ...(await keptIndexedDb(record.services)),
        name: record.name,
        installReason: cause === 'start' ? 'install' : update ? 'update' : undefined,
        previousVersion,
        backgroundTimeoutMs: this.#limits.backgroundTimeoutMs,
        persona: extensionPersona ?? this.#options.persona,
        ...(this.#options.attachedBrowser && { attachedBrowser: true }),
      },
      services: record.services,
      limits: this.#limits,
      ...(extensionOwner ? { owner: extensionOwner } : { ownerFromManifest }),
      onFault: (fault) => this.#faulted(record, worker, fault),
      onReloadRequested: () => {
        if (record.current?.worker !== worker || this.#closed) return;
        this.engine.journal.append({ kind: 'log', level: 'info', source: record.name, message: 'runtime.reload(): reloading' });
        void this.#schedule(record.key, 'manual');
      },
      source: record.name,
      pool: this.#pool,
      ...(record.kind === 'rule' && this.#ruleWorkers && { open: record.ownWorker ? this.#ruleWorkers.openExclusive.bind(this.#ruleWorkers) : this.#ruleWorkers.openShared.bind(this.#ruleWorkers) }),
    });
    let owner: Owner;
    try {
      owner = await worker.loaded;
    } catch (error) {
      const failure = error instanceof LoadFailure ? error : new LoadFailure(describeError(error));
      // Asked for another worker, or its shared worker ended under it for a worker-mate's fault: loaded again (relocated at most once per ask).
      if (failure.retry && !this.#closed && (attempt ?? 0) < 3) return this.#load(record, cause, (attempt ?? 0) + 1);
      return this.#fail(record, { message: failure.message, ...(failure.location && { location: failure.location }) }, cause);
    }
    const after = record.liveAfter;
    record.liveAfter = undefined;
    await after;
    if (this.#closed) {
      await worker.dispose();
      return;
    }

    // The swap: synchronous from here on, so no request sees both versions or neither.
    const clash = this.#nameTakenBy(owner.id, record.key);
    if (clash) {
      void worker.dispose();
      record.duplicateOf = owner.id;
      return this.#fail(record, {
        message: `duplicate name ${JSON.stringify(owner.id)}: ${this.#describeKey(clash)} already uses it; each rule and extension needs its own name`,
        location: record.key,
      });
    }
    const previous = record.current;
    if (previous) void previous.worker.dispose();
    worker.commit();
    record.current = { worker, owner, pkg, declared, version: pkg.manifest?.version, loadedAt: Date.now() };
    this.#successorLive(record, worker);
    // The file changed its own dryRun: that newer decision replaces the run-time toggle.
    if (record.dryRunOverride && record.dryRunOverride.manifestValue !== declared.dryRun) {
      record.dryRunOverride = undefined;
      this.#dryRunToggles.forget(record.key);
      this.#saveDryRunToggles();
    }
    record.state = 'active';
    record.error = undefined;
    record.duplicateOf = undefined;
    if (cause === 'restart') record.restarts++;
    else record.loads++;
    this.#rank();
    if (cause === 'restart') {
      this.#setRuntime(record, 'running');
    } else {
      let listeners = this.engine.registry.describe(owner).length;
      for (const count of worker.eventListeners.values()) listeners += count;
      this.#journalRule(
        record,
        record.loads > 1 ? 'reloaded' : 'loaded',
        `${listeners} listener${listeners === 1 ? '' : 's'}${owner.dryRun ? ', dry-run' : ''}, precedence ${owner.precedence}${owner.persona.name === 'spec' ? '' : `, ${owner.persona.name} persona`}${declared.node ? ', with Node' : ''}`,
      );
      this.#setRuntime(record, 'running');
      if (previous && previous.owner.id !== owner.id) this.#retryDuplicatesOf(previous.owner.id);
      for (const warning of warnings) this.#journalRule(record, 'warning', warning, record.key);
      // A rule that changed while traffic flowed: cached behaviour may be stale (under its quota).
      if (cause !== 'start') this.engine.handlerBehaviorChanged(owner, 'reload');
      const installReason = cause === 'start' ? 'install' : 'update';
      worker.lifecycle('onInstalled', { reason: installReason, ...(installReason === 'update' && previousVersion !== undefined && { previousVersion }) });
      if (record.kind === 'rule') this.#typeChecker?.schedule(record.key, typeCheckedInputs(record.inputs));
    }
    // Watching, the next save's worker boots now, while the author edits; and storage.local's file,
    // with the permission, is watched for the user's edits (how an extension is configured here).
    if (this.#options.watch !== false) {
      // (A rule in a shared worker takes none: its next version is a realm in a running worker.)
      if (record.kind === 'extension' || record.ownWorker) this.#pool!.warm(1);
      if (owner.permissions.has('storage')) void this.#watchStorage(record);
    }
    this.#emitChange();
  }

  async #watchStorage(record: HostedRecord): Promise<void> {
    if (this.#closed || !record.services) return;
    await record.services.watchStorage({
      ...(this.#options.debounceMs !== undefined && { debounceMs: this.#options.debounceMs }),
      onEdited: (changes) => {
        this.#log('info', record.name, `storage.local edited in ${record.services?.storage.file}: ${Object.keys(changes).join(', ')} changed`);
        record.current?.worker.storageEdited(changes);
      },
      onError: (message) => this.#log('warn', record.name, message),
    });
  }

  /**
   * An extension with the declarativeNetRequest permission gets its rulesets evaluated (Chrome
   * ignores rule_resources without it). Invalid rules are skipped and named in warnings.
   */
  async #registerDnr(record: HostedRecord, pkg: PreparedPackage): Promise<void> {
    const manifest = pkg.manifest;
    if (!manifest) return;
    const permitted = manifest.permissions.includes('declarativeNetRequest') || manifest.permissions.includes('declarativeNetRequestWithHostAccess');
    if (!permitted) {
      this.engine.dnr.removeExtension(manifest.id);
      if (pkg.dnrRulesets?.length) this.#journalRule(record, 'warning', 'declarative_net_request rulesets need the "declarativeNetRequest" permission: they are not loaded', path.join(record.key, MANIFEST_FILE));
      return;
    }
    const hostPermissions = new MatchPatternSet(manifest.hostPermissions);
    const feedback = manifest.permissions.includes('declarativeNetRequestFeedback');
    const { warnings } = await this.engine.dnr.addExtension({
      extensionId: manifest.id,
      name: record.name,
      baseUrl: pkg.boot.baseUrl,
      rulesets: pkg.dnrRulesets ?? [],
      ...(this.#options.stateDir !== undefined && { stateDir: this.#options.stateDir }),
      hostAccess: (url) => hostPermissions.matches(url),
      ...(feedback && { onRuleMatched: (info) => record.current?.worker.dnrRuleMatched(info) }),
    });
    for (const warning of warnings) this.#journalRule(record, 'warning', warning, path.join(record.key, MANIFEST_FILE));
  }

  #fail(record: HostedRecord, problem: RuleProblem, cause?: LoadCause): void {
    if (cause === 'restart') {
      // Starting it again failed too: one more fault.
      return this.#afterFault(record, { reason: `it could not be started again: ${problem.message}`, ...(problem.location && { location: problem.location }), at: Date.now() });
    }
    record.error = problem;
    // An edit that fails while a faulted version waited to be started again: nothing is started, nothing waits for it.
    if (record.successor) {
      this.#successorLive(record, undefined);
      void record.current?.worker.dispose();
    }
    if (!record.current) {
      record.state = 'failed';
      this.#setRuntime(record, 'stopped', problem.message);
      if (record.extensionId) this.engine.dnr.removeExtension(record.extensionId);
    } else void this.#registerDnr(record, record.current.pkg); // the last good version's rulesets again
    this.#journalRule(record, 'failed', record.current ? `${problem.message} (the last good version stays active)` : problem.message, problem.location);
    this.#emitChange();
  }

  // ── faults ────────────────────────────────────────────────────────────────

  #faulted(record: HostedRecord, worker: ExtensionWorker, fault: WorkerFault): void {
    if (record.current?.worker !== worker || this.#closed) return;
    this.#afterFault(
      record,
      {
        reason: fault.message,
        ...(fault.location && { location: fault.location }),
        ...(fault.doing && { doing: fault.doing }),
        at: Date.now(),
      },
      fault.kind === 'collateral',
    );
  }

  /** `collateral`: a worker-mate's fault, not its own: started again at once and not counted against it. */
  #afterFault(record: HostedRecord, fault: NonNullable<RuleStatus['runtime']['fault']>, collateral = false): void {
    if (!collateral) record.fault = fault;
    const decision: ReturnType<RestartPolicy['fault']> = collateral ? { action: 'restart', delayMs: 0 } : record.policy.fault();
    if (decision.action === 'give-up') {
      this.#successorLive(record, undefined);
      const current = record.current;
      record.current = undefined;
      if (current) void current.worker.dispose();
      record.state = 'failed';
      record.error = { message: `crashed ${decision.faults} times within ${Math.round(DEFAULT_RESTART_POLICY.windowMs / 60_000)} minutes; last: ${fault.reason}; it stays down until its files change`, ...(fault.location && { location: fault.location }) };
      this.#rank();
      this.#setRuntime(record, 'crashed', record.error.message, fault);
      this.#emitChange();
      return;
    }
    this.#setRuntime(record, 'restarting', `${fault.reason}; starting it again in ${decision.delayMs} ms`, fault);
    // Meanwhile its listeners' events wait for the version started again, as Chromium holds them for a service worker it restarts.
    if (!record.successor) {
      let resolve!: (worker: ExtensionWorker | undefined) => void;
      const promise = new Promise<ExtensionWorker | undefined>((settle) => (resolve = settle));
      record.successor = { promise, resolve };
    }
    record.current?.worker.awaitSuccessor(record.successor.promise);
    clearTimeout(record.restartTimer);
    record.restartTimer = setTimeout(() => {
      record.restartTimer = undefined;
      if (!this.#closed) void this.#schedule(record.key, 'restart');
    }, decision.delayMs);
    record.restartTimer.unref();
    this.#emitChange();
  }

  /** A version is live again after a fault (or none will be): the events that waited for it go on. */
  #successorLive(record: HostedRecord, worker: ExtensionWorker | undefined): void {
    record.successor?.resolve(worker);
    record.successor = undefined;
  }

  #setRuntime(record: HostedRecord, state: RuntimeState, reason?: string, fault?: RuleStatus['runtime']['fault']): void {
    if (record.runtime === state && reason === undefined) return;
    record.runtime = state;
    this.engine.journal.append({
      kind: 'runtime',
      owner: record.current?.owner.id ?? record.name,
      state,
      ...(reason !== undefined && { reason }),
      ...(fault?.doing && { doing: fault.doing }),
      ...(fault?.location && { location: fault.location }),
      restarts: record.restarts,
    });
  }

  /** Before wrtui quits: the worker's IndexedDB changes not saved yet are sent (waited for up to a second). */
  async #saveIndexedDb(record: HostedRecord): Promise<void> {
    if (!record.current || !record.services) return;
    const saved = record.services.indexedDb.workerSaved(INDEXED_DB_SAVE_WAIT_MS);
    record.current.worker.saveIndexedDb();
    await saved;
  }

  async #unload(record: HostedRecord, why: string): Promise<void> {
    clearTimeout(record.restartTimer);
    record.restartTimer = undefined;
    this.#successorLive(record, undefined);
    if (record.state === 'unloaded' && !record.current) return;
    const name = record.current?.owner.id ?? record.name;
    const current = record.current;
    record.current = undefined;
    record.state = 'unloaded';
    record.error = undefined;
    record.duplicateOf = undefined;
    record.typeErrors = [];
    this.#trackInputs(record, []);
    this.#journalRule(record, 'unloaded', why);
    if (record.extensionId) this.engine.dnr.removeExtension(record.extensionId);
    this.#setRuntime(record, 'stopped');
    this.#rank();
    if (!this.#closed) this.#retryDuplicatesOf(name);
    this.#emitChange();
    await current?.worker.dispose();
  }

  /** A name became free: those that failed because they wanted it load again. */
  #retryDuplicatesOf(name: string): void {
    for (const record of this.#records.values()) {
      if (record.duplicateOf === name && !record.current) void this.#schedule(record.key, 'change');
    }
  }

  #nameTakenBy(name: string, key: string): HostedRecord | undefined {
    for (const record of this.#records.values()) {
      if (record.key !== key && record.current?.owner.id === name) return record;
    }
    return undefined;
  }

  /** A rule's manifest dryRun, unless a run-time toggle was made since the file last changed it. */
  #dryRunFor(record: HostedRecord, manifestValue: boolean | undefined): boolean {
    const override = record.dryRunOverride;
    return override && override.manifestValue === manifestValue ? override.on : (manifestValue ?? false);
  }

  /** Gives every running owner its precedence: declared precedence, then install order; 1 loses every conflict. */
  #rank(): void {
    const running = this.#ordered().filter((record) => record.current);
    running.sort((a, b) => (a.current!.declared.precedence ?? 0) - (b.current!.declared.precedence ?? 0));
    running.forEach((record, index) => {
      record.current!.owner.precedence = index + 1;
    });
  }

  /** Install order: the rules folder's entries by name, then --extension folders as given. */
  #ordered(): HostedRecord[] {
    return [...this.#records.values()].sort((a, b) => a.origin - b.origin || compareRuleFiles(a.key, b.key));
  }

  // ── the folders ───────────────────────────────────────────────────────────

  #rulesFolderChanged(dir: string, file: string): void {
    if (this.#closed) return;
    const scheduled = new Set<string>();
    const schedule = (key: string) => {
      if (scheduled.has(key)) return;
      scheduled.add(key);
      void this.#schedule(key, 'change');
    };
    let target = classifyRulesFolderPath(dir, file);
    // A sub-folder is an extension once it has a manifest.json; until then its files are helpers.
    if (target?.kind === 'extension' && !this.#records.has(target.key) && path.basename(file) !== MANIFEST_FILE) target = undefined;
    if (target) {
      this.#recordFor(target.key, target.kind, 0);
      schedule(target.key);
    }
    for (const key of this.#dependents.get(file) ?? []) schedule(key);
    if (path.dirname(file) === dir && ['tsconfig.json', 'package.json'].includes(path.basename(file))) {
      // Build settings and package resolution changed for every rule.
      for (const record of this.#records.values()) if (record.kind === 'rule' && record.state !== 'unloaded') schedule(record.key);
    } else if (!target && !this.#dependents.has(file)) {
      // A new helper: a rule whose build failed may have been waiting for it.
      for (const record of this.#records.values()) if (record.error && record.state !== 'unloaded') schedule(record.key);
    }
  }

  #trackInputs(record: HostedRecord, inputs: string[]): void {
    for (const input of record.inputs) {
      const keys = this.#dependents.get(input);
      keys?.delete(record.key);
      if (keys?.size === 0) this.#dependents.delete(input);
    }
    record.inputs = inputs;
    for (const input of inputs) {
      let keys = this.#dependents.get(input);
      if (!keys) this.#dependents.set(input, (keys = new Set()));
      keys.add(record.key);
    }
    // Helpers imported from outside the rules folder are watched too; packages are not.
    if (record.kind === 'rule' && this.dir !== undefined) {
      const dir = this.dir;
      const outside = inputs.filter((input) => path.relative(dir, input).startsWith('..') && !input.split(path.sep).includes('node_modules'));
      this.#watches[0]?.watchFiles(outside);
    }
  }

  // ── type checks ───────────────────────────────────────────────────────────

  #typeChecked(file: string, diagnostics: TypeDiagnostic[]): void {
    const record = this.#records.get(file);
    if (!record || record.state === 'unloaded') return;
    const same = JSON.stringify(record.typeErrors) === JSON.stringify(diagnostics);
    record.typeErrors = diagnostics;
    if (same) return;
    for (const diagnostic of diagnostics.slice(0, MAX_TYPE_ERRORS_JOURNALED)) {
      this.#journalRule(record, 'warning', `type error TS${diagnostic.code}: ${diagnostic.message}`, `${diagnostic.file}:${diagnostic.line}:${diagnostic.column}`);
    }
    if (diagnostics.length > MAX_TYPE_ERRORS_JOURNALED) {
      this.#journalRule(record, 'warning', `… and ${diagnostics.length - MAX_TYPE_ERRORS_JOURNALED} more type errors`);
    }
    this.#emitChange();
  }

  // ── bookkeeping ───────────────────────────────────────────────────────────

  #recordFor(key: string, kind: 'rule' | 'extension', origin: number): HostedRecord {
    let record = this.#records.get(key);
    if (!record) {
      record = {
        key,
        kind,
        origin,
        name: path.basename(key).replace(/\.[^.]+$/, ''),
        state: 'unloaded', // until its first load succeeds or fails
        current: undefined,
        error: undefined,
        duplicateOf: undefined,
        loads: 0,
        inputs: [],
        dryRunOverride: this.#dryRunToggles.savedFor(key),
        typeErrors: [],
        running: undefined,
        again: false,
        services: undefined,
        extensionId: undefined,
        policy: new RestartPolicy(this.#options.restartPolicy ?? DEFAULT_RESTART_POLICY),
        runtime: 'stopped',
        restarts: 0,
        fault: undefined,
        restartTimer: undefined,
        successor: undefined,
        ownWorker: false,
        liveAfter: undefined,
      };
      this.#records.set(key, record);
    }
    return record;
  }

  #find(nameOrFile: string): HostedRecord | undefined {
    const candidates = [path.resolve(nameOrFile), ...(this.dir ? [path.resolve(this.dir, nameOrFile)] : [])];
    for (const candidate of candidates) {
      const byKey = this.#records.get(candidate);
      if (byKey) return byKey;
    }
    const records = [...this.#records.values()];
    return records.find((record) => record.current?.owner.id === nameOrFile) ?? records.find((record) => record.name === nameOrFile);
  }

  #describeKey(record: HostedRecord): string {
    return this.dir !== undefined && !path.relative(this.dir, record.key).startsWith('..') ? path.relative(this.dir, record.key) : record.key;
  }

  #status(record: HostedRecord): RuleStatus {
    const current = record.current;
    const name = current?.owner.id ?? record.name;
    const dnr = record.extensionId !== undefined ? this.engine.dnr.describe(record.extensionId) : undefined;
    return {
      name,
      file: record.key,
      kind: record.kind,
      extensionId: current?.pkg.boot.extensionId ?? record.extensionId,
      persona: current?.owner.persona.name ?? this.#options.persona ?? 'spec',
      state: record.state,
      dryRun: current ? current.owner.dryRun : (record.dryRunOverride?.on ?? false),
      precedence: current?.owner.precedence,
      ...(current?.declared.precedence !== undefined && { declaredPrecedence: current.declared.precedence }),
      ...(record.error && { error: { ...record.error } }),
      reloadCount: Math.max(0, record.loads - 1),
      listeners: current ? this.engine.registry.describe(current.owner) : [],
      eventListeners: current ? [...current.worker.eventListeners].map(([event, count]) => ({ event, count })) : [],
      quota: this.engine.quotaState(name),
      lastLoadedAt: current?.loadedAt,
      typeErrors: [...record.typeErrors],
      ...(dnr && { declarativeNetRequest: dnr }),
      ...(current?.owner.permissions.has('storage') && record.services && { storage: { file: record.services.storage.file, ...record.services.storage.counts } }),
      ownRequests: { ...(record.services?.ownRequests ?? { made: 0, failed: 0 }) },
      ...(current && (current.worker.badge.text !== '' || Object.keys(current.worker.badge.byTab).length > 0) && { badge: current.worker.badge }),
      runtime: {
        state: record.runtime,
        restarts: record.restarts,
        heapUsedBytes: current?.worker.heapUsed ?? 0,
        node: current?.declared.node ?? false,
        ...(current?.worker.shared && { shared: true }),
        ...(record.fault && { fault: { ...record.fault } }),
      },
    };
  }

  #journalRule(record: HostedRecord, action: 'loaded' | 'reloaded' | 'failed' | 'unloaded' | 'warning', message: string, location?: string): void {
    this.engine.journal.append({
      kind: 'rule',
      action,
      rule: record.current?.owner.id ?? record.name,
      file: record.key,
      message,
      ...(location && { location }),
    });
  }

  #log(level: 'debug' | 'info' | 'warn' | 'error', source: string, message: string): void {
    this.engine.journal.append({ kind: 'log', level, source, message });
  }

  #emitChange(): void {
    for (const listener of this.#changeListeners) {
      try {
        listener();
      } catch (error) {
        this.#log('warn', 'rules', `a rules onChange listener threw: ${describeError(error)}`);
      }
    }
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
}

/** The files worth a type check: the rule and its TypeScript helpers, not packages. */
function typeCheckedInputs(inputs: readonly string[]): string[] {
  return inputs.filter((input) => /\.[cm]?tsx?$/.test(input) && !input.split(path.sep).includes('node_modules'));
}

/** IndexedDB's databases as the services keep them, for the boot (nothing when there are none). */
async function keptIndexedDb(services: ExtensionServices): Promise<{ indexedDb?: Uint8Array }> {
  const bytes = await services.indexedDb.read();
  return bytes === undefined ? {} : { indexedDb: bytes };
}

/** A background page's localStorage as the services keep it: strings only (a hand edit may hold others). */
function keptLocalStorage(services: ExtensionServices | undefined): Record<string, string> {
  const items = (services?.webStorage.handle('get', 'local', [null]) ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(items).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]));
}
