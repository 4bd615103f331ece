// Where rules and extensions come from, on disk. The rules folder holds rule files (one-file
// extensions) and sub-folders with a manifest.json (unpacked extensions); `--extension <dir>`
// names more extension folders. A folder that does not exist yet is waited for (polled, since
// there is nothing to watch) and loaded when it appears; a folder that exists is watched with
// chokidar (rule-watcher.ts) and each changed path reported.
import { access, readdir } from 'node:fs/promises';
import path from 'node:path';
import { isRuleFile, listRuleFiles } from '../rules/rule-files.js';
import { RuleWatcher } from '../rules/rule-watcher.js';
import { QUICK_RULES_FOLDER } from '../rules/quick-rules-file.js';
import { MANIFEST_FILE } from './extension-manifest.js';

export async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** The rule files and extension sub-folders of the rules folder, in name order. */
export async function listRulesFolder(dir: string): Promise<{ kind: 'rule' | 'extension'; key: string }[]> {
  const ruleFiles = (await listRuleFiles(dir)).map((key) => ({ kind: 'rule' as const, key }));
  const extensions: { kind: 'extension'; key: string }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    // The quick rules' folder is an extension with no code: loaded without a worker (quick-ruleset.ts).
    if (!entry.isDirectory() || entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === QUICK_RULES_FOLDER) continue;
    const folder = path.join(dir, entry.name);
    if (await exists(path.join(folder, MANIFEST_FILE))) extensions.push({ kind: 'extension', key: folder });
  }
  return [...ruleFiles, ...extensions].sort((a, b) => (path.basename(a.key) < path.basename(b.key) ? -1 : path.basename(a.key) > path.basename(b.key) ? 1 : 0));
}

/** How many workers loading these takes: one per rule file and extension sub-folder of the rules folder (if it exists), one per extension folder. */
export async function workersToStart(rulesDir: string | undefined, extensions: readonly string[]): Promise<number> {
  const inRulesFolder = rulesDir !== undefined && (await exists(rulesDir)) ? (await listRulesFolder(rulesDir)).length : 0;
  return inRulesFolder + extensions.length;
}

/** What a changed path inside the rules folder is: a rule file, a file of an extension sub-folder, or neither. */
export function classifyRulesFolderPath(dir: string, file: string): { kind: 'rule' | 'extension'; key: string } | undefined {
  if (isRuleFile(dir, file)) return { kind: 'rule', key: path.resolve(file) };
  const relative = path.relative(dir, file);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  const [first, ...rest] = relative.split(path.sep);
  if (rest.length === 0 || first === QUICK_RULES_FOLDER) return undefined;
  return { kind: 'extension', key: path.join(dir, first!) };
}

export interface FolderWatchOptions {
  debounceMs?: number;
  /** How often a missing folder is looked for (ms). */
  pollMs?: number;
  onChange: (file: string) => void;
  onError: (error: Error) => void;
  /** The folder was missing at start and exists now (it is watched from now on). */
  onAppeared: () => void;
}

/** Watches `dir` (or waits for it to appear, then watches it); reports each changed path. */
export class FolderWatch {
  readonly #dir: string;
  readonly #options: FolderWatchOptions;
  #watcher: RuleWatcher | undefined;
  #poll: NodeJS.Timeout | undefined;
  #closed = false;

  private constructor(dir: string, options: FolderWatchOptions) {
    this.#dir = dir;
    this.#options = options;
  }

  /** Starts watching; when `dir` is missing, polls every `pollMs` and calls onAppeared once it exists. */
  static async start(dir: string, options: FolderWatchOptions): Promise<FolderWatch> {
    const watch = new FolderWatch(dir, options);
    if (await exists(dir)) await watch.#watch();
    else {
      watch.#poll = setInterval(() => {
        void exists(dir).then(async (present) => {
          if (!present || watch.#closed || watch.#watcher || !watch.#poll) return;
          clearInterval(watch.#poll);
          watch.#poll = undefined;
          await watch.#watch();
          if (!watch.#closed) options.onAppeared();
        });
      }, options.pollMs ?? 500);
      watch.#poll.unref();
    }
    return watch;
  }

  /** Also watches files outside the folder (helpers a rule imports from elsewhere). */
  watchFiles(files: Iterable<string>): void {
    this.#watcher?.watchFiles(files);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#poll);
    await this.#watcher?.close();
  }

  async #watch(): Promise<void> {
    this.#watcher = await RuleWatcher.start(this.#dir, {
      ...(this.#options.debounceMs !== undefined && { debounceMs: this.#options.debounceMs }),
      onChange: this.#options.onChange,
      onError: this.#options.onError,
    });
  }
}
