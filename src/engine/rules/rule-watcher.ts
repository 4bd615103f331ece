// Watches the rules folder with chokidar 4 (FACTS.md: fs.watch on single files misbehaves after an
// editor's write-and-rename save) and reports each changed path once it has been quiet for a few
// milliseconds. Reports carry no event type on purpose: a save can arrive as change, as unlink
// then add (write-and-rename), or as several writes; whoever handles the report looks at what is
// on disk now. awaitWriteFinish is off: it polls file sizes and would add its whole threshold to
// every reload, while a half-written file only costs one failed build followed by a good one.
//
// chokidar drops a 'change' that follows another of the same file within 50 ms (its change
// throttle emits no trailing event), so a quick second save — a formatter rewriting the file
// right after the editor saved it — would go unnoticed. Each event therefore also schedules a
// look at the file once that window has passed; if its content differs from what was last
// reported, it is reported again.
//
// A save through a temp file (`sed -i`, an editor's atomic save) creates a file beside the one it
// replaces and renames it over that one. The temp file is not reported: a path that appeared in
// this burst of events and is gone when the burst is quiet never held a rule, and naming it
// ("rules/sedbOl2J1 changed") would hide the file the user saved.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { isIgnoredPath } from './rule-files.js';

export interface RuleWatcherOptions {
  /** Quiet time per path before it is reported (ms). */
  debounceMs?: number;
  onChange: (file: string) => void;
  onError: (error: Error) => void;
}

export class RuleWatcher {
  readonly #watcher: FSWatcher;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #debounceMs: number;
  readonly #onChange: (file: string) => void;
  readonly #extra = new Set<string>();
  readonly #rechecks = new Map<string, NodeJS.Timeout>();
  /** A digest of each path's content when it was last reported ('missing' when it was gone). */
  readonly #reported = new Map<string, Promise<string>>();
  /** Paths first seen by an 'add' in the burst under way (not there when it began). */
  readonly #bornInBurst = new Set<string>();

  private constructor(watcher: FSWatcher, options: RuleWatcherOptions) {
    this.#watcher = watcher;
    this.#debounceMs = options.debounceMs ?? 40;
    this.#onChange = options.onChange;
  }

  /** Resolves once the initial scan is done, so that any later change is reported. */
  static async start(dir: string, options: RuleWatcherOptions): Promise<RuleWatcher> {
    const root = path.resolve(dir);
    const chokidar = watch(root, {
      ignoreInitial: true,
      ignored: (file: string) => isIgnoredPath(root, file),
      awaitWriteFinish: false,
    });
    const watcher = new RuleWatcher(chokidar, options);
    for (const event of ['add', 'change', 'unlink'] as const) chokidar.on(event, (file: string) => watcher.#changed(file, event === 'add'));
    chokidar.on('error', (error) => options.onError(error instanceof Error ? error : new Error(String(error))));
    await new Promise<void>((resolve) => chokidar.once('ready', () => resolve()));
    return watcher;
  }

  /** Also watches files outside the folder (helpers a rule imports from elsewhere). */
  watchFiles(files: Iterable<string>): void {
    const added = [...files].filter((file) => !this.#extra.has(file));
    if (added.length === 0) return;
    for (const file of added) this.#extra.add(file);
    this.#watcher.add(added);
  }

  async close(): Promise<void> {
    for (const timer of [...this.#timers.values(), ...this.#rechecks.values()]) clearTimeout(timer);
    this.#timers.clear();
    this.#bornInBurst.clear();
    this.#rechecks.clear();
    await this.#watcher.close();
  }

  #changed(file: string, added = false): void {
    const absolute = path.resolve(file);
    if (added && !this.#timers.has(absolute) && !this.#reported.has(absolute)) this.#bornInBurst.add(absolute);
    clearTimeout(this.#timers.get(absolute));
    this.#timers.set(
      absolute,
      setTimeout(() => {
        this.#timers.delete(absolute);
        const born = this.#bornInBurst.delete(absolute);
        if (born && !existsSync(absolute)) return; // a temp file that came and went (renamed over another)
        this.#reported.set(absolute, digestOf(absolute));
        this.#onChange(absolute);
      }, this.#debounceMs),
    );
    clearTimeout(this.#rechecks.get(absolute));
    this.#rechecks.set(
      absolute,
      setTimeout(() => {
        this.#rechecks.delete(absolute);
        void this.#recheck(absolute);
      }, CHOKIDAR_CHANGE_THROTTLE_MS + this.#debounceMs),
    );
  }

  async #recheck(file: string): Promise<void> {
    if (this.#timers.has(file)) return; // a report is still due; it will look at the file itself
    const reported = await this.#reported.get(file);
    if (reported !== undefined && (await digestOf(file)) !== reported) this.#changed(file);
  }
}

/** chokidar's per-file 'change' throttle (handler `_throttle(EV.CHANGE, path, 50)`), plus a margin. */
const CHOKIDAR_CHANGE_THROTTLE_MS = 60;

async function digestOf(file: string): Promise<string> {
  try {
    return createHash('sha1').update(await readFile(file)).digest('hex');
  } catch {
    return 'missing';
  }
}
