// Quick rules, loaded: the rules folder's `quick-rules/` extension (quick-rules-file.ts) has no
// code, so it gets no worker. Its manifest and ruleset are read as any extension's are
// (readExtensionManifest, staticRulesets) and handed to the DNR engine on the proxy thread, where
// they act without a message round trip. The folder is watched: an edit of rules.json applies at
// once; an edit that does not parse, or a rule Chrome would reject, keeps the last good version
// acting and is reported with the file, the line and the rule (for the user's own file wrtui does
// not do what Chrome does for a packaged extension, skip the bad rule: that would drop the rule
// the user was editing). The extension host leaves this folder alone (extension-folders.ts).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Engine } from '../engine.js';
import { compileRule, RuleError } from '../dnr/compiled-rule.js';
import type { StaticRuleset } from '../dnr/dnr-engine.js';
import type { DnrRule } from '../dnr/dnr-types.js';
import { exists, FolderWatch } from '../extensions/extension-folders.js';
import { ExtensionManifestError, MANIFEST_FILE, readExtensionManifest, type ExtensionManifest } from '../extensions/extension-manifest.js';
import { PackageError, staticRulesets } from '../extensions/extension-package.js';
import { webAccessiblePatterns, webAccessibleResource } from '../extensions/web-accessible-resources.js';
import { MatchPatternSet } from '../match-pattern.js';
import { addQuickRule, lineOfRule, parseRulesText, QuickRulesFileError, quickRulesDir, removeQuickRule, type NewQuickRule } from './quick-rules-file.js';

export interface QuickRulesetOptions {
  /** The rules folder: the quick rules are its `quick-rules/` sub-folder. */
  rulesDir: string;
  /** Reload on change (default true). */
  watch?: boolean;
  debounceMs?: number;
  pollMs?: number;
  /** Where DNR keeps an extension's dynamic rules (none are made here, but the engine looks). */
  stateDir?: string;
}

export interface QuickRuleEntry {
  rulesetId: string;
  rule: DnrRule;
  /** Its line in the ruleset file (where its "id" is). */
  line: number | undefined;
}

export interface QuickRulesetStatus {
  /** The quick-rules folder. */
  dir: string;
  /** Its ruleset file (rules.json, or the first the manifest names). */
  file: string;
  /** none: no folder (no quick rule written yet); active: rules in effect; failed: none in effect, see error. */
  state: 'none' | 'active' | 'failed';
  /** The last edit's problem; with state active, the last good version still acts. */
  error: { message: string; location?: string } | undefined;
  /** The rules in effect (the last good version), in file order. */
  rules: QuickRuleEntry[];
  extensionId: string | undefined;
  name: string;
  dryRun: boolean;
  loads: number;
  lastLoadedAt: number | undefined;
}

interface LoadedVersion {
  manifest: ExtensionManifest;
  rules: QuickRuleEntry[];
  file: string;
  resources: RegExp[];
}

export class QuickRuleset {
  readonly engine: Engine;
  readonly dir: string;
  readonly #options: QuickRulesetOptions;
  readonly #listeners = new Set<() => void>();
  #current: LoadedVersion | undefined;
  #error: QuickRulesetStatus['error'];
  #dryRun = false;
  #loads = 0;
  #lastLoadedAt: number | undefined;
  #watch: FolderWatch | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #closed = false;
  #restoreHooks: (() => void) | undefined;
  /** The files' text the current version was loaded from: the watcher's echo of wrtui's own write loads nothing again. */
  #loadedText: string | undefined;
  /** Writes of rules.json, one after another (two quick w's must not both take the same id). */
  #writing: Promise<unknown> = Promise.resolve();

  private constructor(engine: Engine, options: QuickRulesetOptions) {
    this.engine = engine;
    this.dir = quickRulesDir(options.rulesDir);
    this.#options = options;
  }

  /**
   * Loads the quick rules and, unless `watch: false`, follows the folder. Start it after the
   * extension host: it joins the host's lookups of extension files and dry-run.
   */
  static async start(engine: Engine, options: QuickRulesetOptions): Promise<QuickRuleset> {
    const quick = new QuickRuleset(engine, options);
    quick.#hook();
    if (options.watch !== false) {
      quick.#watch = await FolderWatch.start(quick.dir, {
        ...(options.debounceMs !== undefined && { debounceMs: options.debounceMs }),
        ...(options.pollMs !== undefined && { pollMs: options.pollMs }),
        onChange: () => void quick.reload(),
        onError: (error) => quick.#log('warn', `watching ${quick.dir}: ${error.message}`),
        onAppeared: () => void quick.reload(),
      });
    }
    await quick.reload();
    return quick;
  }

  status(): QuickRulesetStatus {
    const current = this.#current;
    return {
      dir: this.dir,
      file: current?.file ?? path.join(this.dir, 'rules.json'),
      state: current ? 'active' : this.#error ? 'failed' : 'none',
      error: this.#error,
      rules: current?.rules ?? [],
      extensionId: current?.manifest.id,
      name: current?.manifest.name ?? 'quick-rules',
      dryRun: this.#dryRun,
      loads: this.#loads,
      lastLoadedAt: this.#lastLoadedAt,
    };
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reads the folder again now (after wrtui wrote it, or on the user's r); resolves once done. */
  async reload(): Promise<QuickRulesetStatus> {
    if (this.#running) {
      this.#again = true;
      await this.#running;
      return this.status();
    }
    this.#running = (async () => {
      try {
        do {
          this.#again = false;
          try {
            await this.#load();
          } catch (error) {
            this.#failed({ message: `wrtui could not load the quick rules: ${(error as Error).message}` });
          }
        } while (this.#again && !this.#closed);
      } finally {
        this.#running = undefined;
      }
    })();
    await this.#running;
    return this.status();
  }

  /** Appends a rule to rules.json (the manifest written with the first) and loads it; resolves with the rule and the file. */
  async add(rule: NewQuickRule): Promise<{ rule: DnrRule; file: string; status: QuickRulesetStatus }> {
    const written = await this.#serialized(() => addQuickRule(this.dir, rule));
    const status = await this.reload();
    return { ...written, status };
  }

  /** Takes the rule with `id` out of rules.json and reloads; resolves with it. */
  async remove(id: number): Promise<DnrRule | undefined> {
    const removed = await this.#serialized(() => removeQuickRule(this.dir, id));
    await this.reload();
    return removed;
  }

  /** Dry-run for every quick rule: their matches are journaled as "would …", none applied. */
  setDryRun(on: boolean): QuickRulesetStatus {
    this.#dryRun = on;
    this.#log('info', `dry-run ${on ? 'on' : 'off'}`);
    this.#emit();
    return this.status();
  }

  #serialized<T>(write: () => Promise<T>): Promise<T> {
    const result = this.#writing.then(write, write);
    this.#writing = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#watch?.close();
    await this.#running;
    if (this.#current) this.engine.dnr.removeExtension(this.#current.manifest.id);
    this.#current = undefined;
    this.#restoreHooks?.();
    this.#listeners.clear();
  }

  // ── loading ───────────────────────────────────────────────────────────────

  async #load(): Promise<void> {
    if (this.#closed) return;
    if (!(await exists(path.join(this.dir, MANIFEST_FILE)))) {
      const had = this.#current;
      this.#current = undefined;
      this.#loadedText = undefined;
      this.#error = undefined;
      if (had) {
        this.engine.dnr.removeExtension(had.manifest.id);
        this.#journal('unloaded', `${MANIFEST_FILE} was removed`);
      }
      this.#emit();
      return;
    }
    let manifest: ExtensionManifest;
    let rulesets: StaticRuleset[];
    try {
      manifest = await readExtensionManifest(this.dir);
      rulesets = await staticRulesets(manifest);
    } catch (error) {
      if (error instanceof PackageError && error.location && error.location !== path.join(this.dir, MANIFEST_FILE)) return this.#failed(await this.#located(error.location, error.message));
      if (error instanceof ExtensionManifestError || error instanceof PackageError) return this.#failed({ message: error.message, ...(error.location && { location: error.location }) });
      throw error;
    }
    if (!manifest.permissions.includes('declarativeNetRequest') && !manifest.permissions.includes('declarativeNetRequestWithHostAccess')) {
      return this.#failed({ message: 'the manifest lacks the "declarativeNetRequest" permission: its rules would not load in Chrome either', location: path.join(this.dir, MANIFEST_FILE) });
    }
    const texts = await Promise.all(rulesets.map((ruleset) => readFile(path.join(this.dir, ruleset.path), 'utf8').catch(() => '')));
    const loadedText = JSON.stringify([manifest.raw, rulesets.map((ruleset) => [ruleset.id, ruleset.enabled, ruleset.path]), texts]);
    if (this.#current && !this.#error && loadedText === this.#loadedText) return;
    const rules: QuickRuleEntry[] = [];
    const problems: { message: string; location: string }[] = [];
    for (const [rulesetIndex, ruleset] of rulesets.entries()) {
      const file = path.join(this.dir, ruleset.path);
      const text = texts[rulesetIndex]!;
      if (!Array.isArray(ruleset.rules)) {
        problems.push({ message: `${ruleset.path} must be a JSON list of declarativeNetRequest rules`, location: file });
        continue;
      }
      const ids = new Set<number>();
      for (const [index, input] of ruleset.rules.entries()) {
        const id = (input as { id?: unknown } | null)?.id;
        const line = typeof id === 'number' ? lineOfRule(text, id) : undefined;
        const location = line === undefined ? file : `${file}:${line}`;
        try {
          const compiled = compileRule(input, { rulesetId: ruleset.id, extensionId: manifest.id });
          if (ids.has(compiled.id)) throw new RuleError(compiled.id, 'id', `is used twice in ${ruleset.path}: each rule needs its own`);
          ids.add(compiled.id);
          if (ruleset.enabled) rules.push({ rulesetId: ruleset.id, rule: input as DnrRule, line });
        } catch (error) {
          if (!(error instanceof RuleError)) throw error;
          const which = error.ruleId === undefined ? `the ${ordinal(index + 1)} rule` : `rule ${error.ruleId}`;
          problems.push({ message: `${ruleset.path}${line === undefined ? '' : `:${line}`}: ${which}: ${error.message.replace(/^(a rule|rule \d+): /, '')}`, location });
        }
      }
    }
    if (problems.length > 0) return this.#failed({ message: problems.map((problem) => problem.message).join('\n'), location: problems[0]!.location });

    const hostPermissions = new MatchPatternSet(manifest.hostPermissions);
    const { warnings } = await this.engine.dnr.addExtension({
      extensionId: manifest.id,
      name: manifest.name,
      baseUrl: `chrome-extension://${manifest.id}/`,
      rulesets,
      ...(this.#options.stateDir !== undefined && { stateDir: this.#options.stateDir }),
      hostAccess: (url) => hostPermissions.matches(url),
    });
    if (this.#closed) {
      this.engine.dnr.removeExtension(manifest.id);
      return;
    }
    const previous = this.#current;
    if (previous && previous.manifest.id !== manifest.id) this.engine.dnr.removeExtension(previous.manifest.id);
    const firstFile = rulesets[0] ? path.join(this.dir, rulesets[0].path) : path.join(this.dir, 'rules.json');
    this.#current = { manifest, rules, file: firstFile, resources: webAccessiblePatterns(manifest.raw) };
    this.#loadedText = loadedText;
    this.#error = undefined;
    this.#loads++;
    this.#lastLoadedAt = Date.now();
    this.#journal(this.#loads > 1 ? 'reloaded' : 'loaded', `${rules.length} declarativeNetRequest rule${rules.length === 1 ? '' : 's'}, no worker`);
    if (manifest.background.kind !== 'none') this.#journal('warning', 'the quick rules run no code: the manifest\'s background is ignored (an extension with code needs a folder of its own)', path.join(this.dir, MANIFEST_FILE));
    for (const warning of [...manifest.warnings, ...warnings]) this.#journal('warning', warning, path.join(this.dir, MANIFEST_FILE));
    this.#emit();
  }

  /** A ruleset file that did not parse: where, by line and column. */
  async #located(file: string, fallback: string): Promise<{ message: string; location: string }> {
    try {
      parseRulesText(await readFile(file, 'utf8'), file);
    } catch (error) {
      if (error instanceof QuickRulesFileError) return { message: error.message, location: error.location };
    }
    return { message: fallback, location: file };
  }

  #failed(problem: { message: string; location?: string }): void {
    this.#error = problem;
    this.#journal('failed', this.#current ? `${problem.message} (the last good version stays active)` : problem.message, problem.location);
    this.#emit();
  }

  // ── what the extension host set up, joined ───────────────────────────────

  #hook(): void {
    const { lifecycle, dnr } = this.engine;
    const resources = lifecycle.extensionResources;
    const isDryRun = dnr.isDryRun;
    const ours = (host: string) => this.#current !== undefined && host === this.#current.manifest.id;
    const lookup: NonNullable<typeof resources> = async (url) => (ours(url.host) ? webAccessibleResource(this.dir, this.#current!.resources, url) : resources?.(url));
    const dryRun = (extensionId: string) => (this.#current !== undefined && extensionId === this.#current.manifest.id ? this.engine.dryRun || this.#dryRun : isDryRun(extensionId));
    lifecycle.extensionResources = lookup;
    dnr.isDryRun = dryRun;
    this.#restoreHooks = () => {
      if (lifecycle.extensionResources === lookup) lifecycle.extensionResources = resources;
      if (dnr.isDryRun === dryRun) dnr.isDryRun = isDryRun;
    };
  }

  #journal(action: 'loaded' | 'reloaded' | 'failed' | 'unloaded' | 'warning', message: string, location?: string): void {
    this.engine.journal.append({ kind: 'rule', action, rule: this.#current?.manifest.name ?? 'quick-rules', file: this.#current?.file ?? path.join(this.dir, 'rules.json'), message, ...(location !== undefined && { location }) });
  }

  #log(level: 'info' | 'warn', message: string): void {
    this.engine.journal.append({ kind: 'log', level, source: 'quick-rules', message });
  }

  #emit(): void {
    for (const listener of this.#listeners) listener();
  }
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}
