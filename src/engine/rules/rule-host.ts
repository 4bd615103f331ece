// RuleHost: the rules folder, loaded into an Engine, each rule behaving like one small extension.
//
// Loading a rule: esbuild bundles it (rule-bundler.ts), the bundle is imported from a temporary
// file (rule-module-loader.ts), its `manifest` is checked (rule-manifest.ts), an Owner is made
// from it (the manifest name is the owner id, so a rule keeps its handlerBehaviorChanged quota
// across reloads), and the default export, the background, runs with that owner's namespaces.
//
// Reloading keeps the last good version serving until the new one has loaded: the new
// background's listeners are staged (rule-version-api.ts), and only once it settled without error
// does the host, in one synchronous step, dispose the old version (every listener of it removed)
// and make the new listeners live; then engine.handlerBehaviorChanged(owner) runs under the
// rule's quota. A build error, a throw or rejection at import or in the background, a background
// that never settles, or a bad manifest leaves the old version untouched and is journaled as a
// `rule` entry with action 'failed', the message and file:line.
//
// Precedence among rules (which verdict wins a conflict; rule-precedence.ts): manifest
// `precedence` first (higher wins, default 0), then file name order, the LATER file winning, as
// Chrome lets the extension installed last win and wrtui installs rules in file-name order. A
// reload never changes a rule's precedence (it is not a reinstall).
//
// A rule's console output goes to the journal as `log` entries whose source is the rule's name
// (rule-globals.ts), its timers stop when its version is unloaded (rule-timers.ts), and its type
// errors are reported as `rule` warnings by a separate process (rule-type-checker.ts).
import { access } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Engine } from '../engine.js';
import { createOwner, type Owner } from '../owner.js';
import type { QuotaState } from '../web-request/handler-behavior-changed.js';
import type { ListenerDescription } from '../web-request/listener-registry.js';
import type { RuleBackground } from './author-types.js';
import { RuleBuildError, bundleRule, type RuleBundle } from './rule-bundler.js';
import { createRuleConsole } from './rule-console.js';
import { isRuleFile, listRuleFiles } from './rule-files.js';
import { provideRuleGlobals } from './rule-globals.js';
import { ManifestError, checkManifest, type ValidManifest } from './rule-manifest.js';
import { RuleModuleLoader } from './rule-module-loader.js';
import { rankRules } from './rule-precedence.js';
import { createRuleTimers, type RuleTimers } from './rule-timers.js';
import { RuleTypeChecker, type TypeDiagnostic } from './rule-type-checker.js';
import { RuleVersionApi } from './rule-version-api.js';
import { RuleWatcher } from './rule-watcher.js';
import { ruleErrorLocation } from './source-location.js';

export interface RuleHostOptions {
  /** The rules folder. */
  dir: string;
  /** Reload on change (default true); the CLI's --no-watch loads once. */
  watch?: boolean;
  /** Quiet time after a file event before the rule is rebuilt (ms, default 40). */
  debounceMs?: number;
  /** How long a background may take before its load counts as failed (ms, default 5000). */
  backgroundTimeoutMs?: number;
  /** Type-check rules in a separate process and report errors as warnings (default true). */
  typeCheck?: boolean;
  /** Quiet time after a rule's reload before it is type-checked (ms, default 300). */
  typeCheckDelayMs?: number;
  /** Where the temporary folder for built rules is made (default: the OS's temp folder). */
  tempDir?: string;
}

export type RuleState = 'active' | 'failed' | 'unloaded';

export interface RuleProblem {
  message: string;
  /** `file:line:col` in the rule or a helper, when known. */
  location?: string;
}

/** What the UI and the CLI see of a rule. */
export interface RuleStatus {
  name: string;
  file: string;
  /**
   * active: a version is running (when `error` is set too, the newest edit failed and the last
   * good version keeps running); failed: no version runs because loading failed; unloaded: the
   * file is gone.
   */
  state: RuleState;
  dryRun: boolean;
  /** Owner.precedence: higher wins conflicts (undefined while no version runs). */
  precedence: number | undefined;
  error?: RuleProblem;
  /** Successful loads after the first. */
  reloadCount: number;
  listeners: ListenerDescription[];
  quota: QuotaState;
  /** Epoch ms of the last successful load. */
  lastLoadedAt: number | undefined;
  /** The latest type check's errors (they do not stop the rule). */
  typeErrors: TypeDiagnostic[];
}

type LoadCause = 'start' | 'change' | 'manual';

interface LoadedVersion {
  owner: Owner;
  manifest: ValidManifest;
  api: RuleVersionApi;
  timers: RuleTimers;
  loadedAt: number;
}

interface RuleRecord {
  readonly file: string;
  /** The name of the newest manifest read (or the file's base name before any). */
  name: string;
  state: RuleState;
  current: LoadedVersion | undefined;
  error: RuleProblem | undefined;
  /** Set when the newest load failed because another rule has the name. */
  duplicateOf: string | undefined;
  loads: number;
  /** Files of the last successful build: the rule and its local helpers. */
  inputs: string[];
  dryRunOverride: { on: boolean; manifestValue: boolean | undefined } | undefined;
  typeErrors: TypeDiagnostic[];
  running: Promise<void> | undefined;
  again: boolean;
}

const MAX_TYPE_ERRORS_JOURNALED = 10;

export class RuleHost {
  readonly engine: Engine;
  readonly dir: string;
  readonly #options: RuleHostOptions;
  readonly #records = new Map<string, RuleRecord>();
  /** Input file → the rule files whose last build included it. */
  readonly #dependents = new Map<string, Set<string>>();
  readonly #changeListeners = new Set<() => void>();
  readonly #loader: RuleModuleLoader;
  readonly #typeChecker: RuleTypeChecker | undefined;
  #watcher: RuleWatcher | undefined;
  #closed = false;

  private constructor(engine: Engine, options: RuleHostOptions) {
    this.engine = engine;
    this.dir = path.resolve(options.dir);
    this.#options = options;
    this.#loader = new RuleModuleLoader(options.tempDir);
    this.#typeChecker =
      options.typeCheck === false
        ? undefined
        : new RuleTypeChecker({
            rulesDir: this.dir,
            ...(options.typeCheckDelayMs !== undefined && { delayMs: options.typeCheckDelayMs }),
            onResult: (file, diagnostics) => this.#typeChecked(file, diagnostics),
            onUnavailable: (reason) => this.#log('info', 'rules', `type checks of rules are off: ${reason}`),
          });
  }

  /** Loads every rule of `options.dir` into `engine` and, unless `watch: false`, keeps them in sync with the folder. */
  static async start(engine: Engine, options: RuleHostOptions): Promise<RuleHost> {
    const host = new RuleHost(engine, options);
    await host.#start();
    return host;
  }

  async #start(): Promise<void> {
    // Stack traces of rule code name the .ts file and line, through each bundle's source map.
    process.setSourceMapsEnabled(true);
    try {
      await access(this.dir);
    } catch {
      this.#log('warn', 'rules', `the rules folder ${this.dir} does not exist: no rules loaded`);
      return;
    }
    if (this.#options.watch !== false) {
      this.#watcher = await RuleWatcher.start(this.dir, {
        ...(this.#options.debounceMs !== undefined && { debounceMs: this.#options.debounceMs }),
        onChange: (file) => this.#fileChanged(file),
        onError: (error) => this.#log('warn', 'rules', `watching ${this.dir}: ${error.message}`),
      });
    }
    // One after the other, in file-name order: the outcome of a name clash does not depend on timing.
    for (const file of await listRuleFiles(this.dir)) await this.#schedule(file, 'start');
  }

  // ── for the UI and the CLI ────────────────────────────────────────────────

  /** Every rule file seen, in file-name order. */
  rules(): RuleStatus[] {
    return [...this.#records.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)).map((record) => this.#status(record));
  }

  /** One rule by manifest name or file path. */
  rule(nameOrFile: string): RuleStatus | undefined {
    const record = this.#find(nameOrFile);
    return record && this.#status(record);
  }

  /** Rebuilds and reloads a rule now (by name or file); resolves with its status afterwards. */
  async reload(nameOrFile: string): Promise<RuleStatus> {
    const record = this.#find(nameOrFile);
    if (!record) throw new Error(`no rule named ${JSON.stringify(nameOrFile)}`);
    await this.#schedule(record.file, 'manual');
    return this.#status(record);
  }

  /**
   * Dry-run on or off for one rule, at once and without a reload. The choice survives reloads
   * until the file's own `dryRun` changes (the author's newer decision wins).
   */
  setDryRun(nameOrFile: string, on: boolean): RuleStatus {
    const record = this.#find(nameOrFile);
    if (!record) throw new Error(`no rule named ${JSON.stringify(nameOrFile)}`);
    record.dryRunOverride = { on, manifestValue: record.current?.manifest.dryRun };
    if (record.current) record.current.owner.dryRun = on;
    this.#log('info', record.name, `dry-run ${on ? 'on' : 'off'}`);
    this.#emitChange();
    return this.#status(record);
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

  /** Stops watching and type-checking, unloads every rule, removes the temporary files. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#watcher?.close();
    await this.#typeChecker?.close();
    await this.idle();
    for (const record of this.#records.values()) this.#unload(record, 'wrtui is closing the rules');
    await this.#loader.close();
    this.#changeListeners.clear();
  }

  // ── loading ───────────────────────────────────────────────────────────────

  /** Runs loads of one file one after another; a change during a load runs one more afterwards. */
  #schedule(file: string, cause: LoadCause): Promise<void> {
    const record = this.#recordFor(file);
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
            this.#fail(record, { message: `wrtui could not load the rule: ${describeError(error)}` });
          }
          next = cause === 'manual' ? 'manual' : 'change';
        } while (record.again && !this.#closed);
      } finally {
        record.running = undefined;
      }
    })();
    return record.running;
  }

  /** Makes the engine match the file on disk: load it, or unload it when it is gone. */
  async #sync(record: RuleRecord, cause: LoadCause): Promise<void> {
    if (this.#closed) return;
    const present = await access(record.file).then(() => true, () => false);
    if (!present) return this.#unload(record, 'the file was removed');
    await this.#load(record, cause);
  }

  async #load(record: RuleRecord, cause: LoadCause): Promise<void> {
    const outFile = await this.#loader.nextOutFile(record.file);
    let bundle: RuleBundle;
    try {
      bundle = await bundleRule(record.file, outFile);
    } catch (error) {
      if (!(error instanceof RuleBuildError)) throw error;
      return this.#fail(record, { message: error.message, ...(error.location && { location: error.location }) });
    }
    this.#trackInputs(record, bundle.inputs);

    // The console and timers the bundle's code gets (rule-globals.ts); the console names the rule.
    let consoleSource = record.current?.owner.id ?? record.name;
    const timers = createRuleTimers();
    const ruleConsole = createRuleConsole((level, message) => this.engine.journal.append({ kind: 'log', level, source: consoleSource, message }));
    const withdraw = provideRuleGlobals(pathToFileURL(outFile).href, { console: ruleConsole, timers });
    const loaded = { file: outFile, map: bundle.map };
    const failWith = (what: string, error: unknown) => {
      timers.dispose();
      const location = ruleErrorLocation(error, loaded);
      this.#fail(record, { message: `${what} ${describeError(error)}`, ...(location && { location }) });
    };

    let exports: Record<string, unknown>;
    try {
      exports = await this.#loader.import(outFile, bundle);
    } catch (error) {
      return failWith('loading the rule threw', error);
    } finally {
      withdraw();
    }

    let manifest: ValidManifest;
    let warnings: string[];
    try {
      ({ manifest, warnings } = checkManifest(exports.manifest));
    } catch (error) {
      timers.dispose();
      if (!(error instanceof ManifestError)) throw error;
      return this.#fail(record, { message: error.message, location: record.file });
    }
    record.name = manifest.name;
    consoleSource = manifest.name;
    const background = exports.default;
    if (typeof background !== 'function') {
      timers.dispose();
      return this.#fail(record, {
        message: 'the default export must be the background function: export default function background({ chrome, browser }) { … }',
        location: record.file,
      });
    }
    const taken = this.#nameTakenBy(manifest.name, record.file);
    if (taken) return this.#failDuplicate(record, timers, taken);

    const owner = createOwner(
      { name: manifest.name, permissions: manifest.permissions, host_permissions: manifest.host_permissions, dryRun: this.#dryRunFor(record, manifest) },
      { precedence: 0 }, // set by #rank() when the version goes live
    );
    const api = new RuleVersionApi(this.engine.extensionApi(owner), owner, (what) => this.#log('warn', owner.id, `${what}: ignored`));
    try {
      await settleWithin(
        () => (background as RuleBackground)({ chrome: api.chrome, browser: api.browser }),
        this.#options.backgroundTimeoutMs ?? 5000,
      );
    } catch (error) {
      api.dispose(); // staged listeners never reached the engine
      if (error instanceof BackgroundTimeout) {
        timers.dispose();
        return this.#fail(record, { message: error.message, location: record.file });
      }
      return failWith('the background threw', error);
    }
    if (this.#closed) {
      api.dispose();
      timers.dispose();
      return;
    }

    // The swap: synchronous from here on, so no request sees both versions or neither.
    const clash = this.#nameTakenBy(manifest.name, record.file); // another file may have taken it meanwhile
    if (clash) {
      api.dispose();
      return this.#failDuplicate(record, timers, clash);
    }
    const previous = record.current;
    if (previous) {
      previous.api.dispose();
      previous.timers.dispose();
    }
    api.commit();
    record.current = { owner, manifest, api, timers, loadedAt: Date.now() };
    // The file changed its own dryRun: that newer decision replaces the run-time toggle.
    if (record.dryRunOverride && record.dryRunOverride.manifestValue !== manifest.dryRun) record.dryRunOverride = undefined;
    record.state = 'active';
    record.error = undefined;
    record.duplicateOf = undefined;
    record.loads++;
    this.#rank();
    const listeners = this.engine.registry.describe(owner).length;
    this.engine.journal.append({
      kind: 'rule',
      action: record.loads > 1 ? 'reloaded' : 'loaded',
      rule: owner.id,
      file: record.file,
      message: `${listeners} listener${listeners === 1 ? '' : 's'}${owner.dryRun ? ', dry-run' : ''}, precedence ${owner.precedence}`,
    });
    if (previous && previous.owner.id !== owner.id) this.#retryDuplicatesOf(previous.owner.id);
    for (const warning of warnings) this.engine.journal.append({ kind: 'rule', action: 'warning', rule: owner.id, file: record.file, message: warning, location: record.file });
    // A rule that changed while traffic flowed: cached behaviour may be stale (under the rule's quota).
    if (cause !== 'start') this.engine.handlerBehaviorChanged(owner);
    this.#typeChecker?.schedule(record.file, typeCheckedInputs(record.inputs));
    this.#emitChange();
  }

  #fail(record: RuleRecord, problem: RuleProblem): void {
    record.error = problem;
    if (!record.current) record.state = 'failed';
    this.engine.journal.append({
      kind: 'rule',
      action: 'failed',
      rule: record.name,
      file: record.file,
      message: record.current ? `${problem.message} (the last good version stays active)` : problem.message,
      ...(problem.location && { location: problem.location }),
    });
    this.#emitChange();
  }

  #failDuplicate(record: RuleRecord, timers: RuleTimers, other: RuleRecord): void {
    timers.dispose();
    this.#fail(record, {
      message: `duplicate rule name ${JSON.stringify(record.name)}: ${path.relative(this.dir, other.file)} already uses it; each rule needs its own manifest.name`,
      location: record.file,
    });
    record.duplicateOf = record.name;
  }

  #unload(record: RuleRecord, why: string): void {
    if (record.state === 'unloaded' && !record.current) return;
    const name = record.current?.owner.id ?? record.name;
    if (record.current) {
      record.current.api.dispose();
      record.current.timers.dispose();
      record.current = undefined;
    }
    record.state = 'unloaded';
    record.error = undefined;
    record.duplicateOf = undefined;
    record.typeErrors = [];
    this.#trackInputs(record, []);
    this.engine.journal.append({ kind: 'rule', action: 'unloaded', rule: name, file: record.file, message: why });
    this.#rank();
    if (!this.#closed) this.#retryDuplicatesOf(name);
    this.#emitChange();
  }

  /** A name became free: rules that failed because they wanted it load again. */
  #retryDuplicatesOf(name: string): void {
    for (const record of this.#records.values()) {
      if (record.duplicateOf === name && !record.current) void this.#schedule(record.file, 'change');
    }
  }

  #nameTakenBy(name: string, file: string): RuleRecord | undefined {
    for (const record of this.#records.values()) {
      if (record.file !== file && record.current?.owner.id === name) return record;
    }
    return undefined;
  }

  /** The manifest's dryRun, unless a run-time toggle was made since the file last changed it. */
  #dryRunFor(record: RuleRecord, manifest: ValidManifest): boolean {
    const override = record.dryRunOverride;
    return override && override.manifestValue === manifest.dryRun ? override.on : (manifest.dryRun ?? false);
  }

  /** Gives every running rule its Owner.precedence (rule-precedence.ts). */
  #rank(): void {
    const running = [...this.#records.values()].filter((record) => record.current);
    const ranks = rankRules(running.map((record) => ({ file: record.file, declared: record.current!.manifest.precedence })));
    for (const record of running) record.current!.owner.precedence = ranks.get(record.file)!;
  }

  // ── the folder ────────────────────────────────────────────────────────────

  #fileChanged(file: string): void {
    if (this.#closed) return;
    const scheduled = new Set<string>();
    const schedule = (ruleFile: string) => {
      if (scheduled.has(ruleFile)) return;
      scheduled.add(ruleFile);
      void this.#schedule(ruleFile, 'change');
    };
    if (isRuleFile(this.dir, file)) schedule(file);
    for (const ruleFile of this.#dependents.get(file) ?? []) schedule(ruleFile);
    const inFolder = path.dirname(file) === this.dir;
    if (inFolder && ['tsconfig.json', 'package.json'].includes(path.basename(file))) {
      // Build settings and package resolution changed for every rule.
      for (const record of this.#records.values()) if (record.state !== 'unloaded') schedule(record.file);
    } else if (!isRuleFile(this.dir, file) && !this.#dependents.has(file)) {
      // A new helper: a rule whose build failed may have been waiting for it.
      for (const record of this.#records.values()) if (record.error && record.state !== 'unloaded') schedule(record.file);
    }
  }

  #trackInputs(record: RuleRecord, inputs: string[]): void {
    for (const input of record.inputs) {
      const rules = this.#dependents.get(input);
      rules?.delete(record.file);
      if (rules?.size === 0) this.#dependents.delete(input);
    }
    record.inputs = inputs;
    for (const input of inputs) {
      let rules = this.#dependents.get(input);
      if (!rules) this.#dependents.set(input, (rules = new Set()));
      rules.add(record.file);
    }
    // Helpers imported from outside the folder are watched too; packages are not.
    const outside = inputs.filter((input) => path.relative(this.dir, input).startsWith('..') && !input.split(path.sep).includes('node_modules'));
    this.#watcher?.watchFiles(outside);
  }

  // ── type checks ───────────────────────────────────────────────────────────

  #typeChecked(file: string, diagnostics: TypeDiagnostic[]): void {
    const record = this.#records.get(file);
    if (!record || record.state === 'unloaded') return;
    const same = JSON.stringify(record.typeErrors) === JSON.stringify(diagnostics);
    record.typeErrors = diagnostics;
    if (same) return;
    for (const diagnostic of diagnostics.slice(0, MAX_TYPE_ERRORS_JOURNALED)) {
      this.engine.journal.append({
        kind: 'rule',
        action: 'warning',
        rule: record.name,
        file: record.file,
        message: `type error TS${diagnostic.code}: ${diagnostic.message}`,
        location: `${diagnostic.file}:${diagnostic.line}:${diagnostic.column}`,
      });
    }
    if (diagnostics.length > MAX_TYPE_ERRORS_JOURNALED) {
      this.engine.journal.append({ kind: 'rule', action: 'warning', rule: record.name, file: record.file, message: `… and ${diagnostics.length - MAX_TYPE_ERRORS_JOURNALED} more type errors` });
    }
    this.#emitChange();
  }

  // ── bookkeeping ───────────────────────────────────────────────────────────

  #recordFor(file: string): RuleRecord {
    let record = this.#records.get(file);
    if (!record) {
      record = {
        file,
        name: path.basename(file).replace(/\.[^.]+$/, ''),
        state: 'unloaded', // until its first load succeeds or fails
        current: undefined,
        error: undefined,
        duplicateOf: undefined,
        loads: 0,
        inputs: [],
        dryRunOverride: undefined,
        typeErrors: [],
        running: undefined,
        again: false,
      };
      this.#records.set(file, record);
    }
    return record;
  }

  #find(nameOrFile: string): RuleRecord | undefined {
    const byFile = this.#records.get(path.resolve(this.dir, nameOrFile));
    if (byFile) return byFile;
    const records = [...this.#records.values()];
    return records.find((record) => record.current?.owner.id === nameOrFile) ?? records.find((record) => record.name === nameOrFile);
  }

  #status(record: RuleRecord): RuleStatus {
    const current = record.current;
    const name = current?.owner.id ?? record.name;
    return {
      name,
      file: record.file,
      state: record.state,
      dryRun: current ? current.owner.dryRun : (record.dryRunOverride?.on ?? false),
      precedence: current?.owner.precedence,
      ...(record.error && { error: { ...record.error } }),
      reloadCount: Math.max(0, record.loads - 1),
      listeners: current ? this.engine.registry.describe(current.owner) : [],
      quota: this.engine.quotaState(name),
      lastLoadedAt: current?.loadedAt,
      typeErrors: [...record.typeErrors],
    };
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

class BackgroundTimeout extends Error {
  constructor(ms: number) {
    super(`the background did not settle within ${ms} ms (an async background must resolve; see backgroundTimeoutMs)`);
    this.name = 'BackgroundTimeout';
  }
}

/** Runs `run` (sync or async) and waits for it, at most `ms`. */
async function settleWithin(run: () => unknown, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BackgroundTimeout(ms)), ms);
  });
  try {
    await Promise.race([(async () => run())(), timeout]);
  } finally {
    clearTimeout(timer);
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
