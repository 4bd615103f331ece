// The per-rule dry-run switches the user flips at run time (the TUI, the CLI), kept in
// `<state-dir>/settings.json` (section ruleDryRun) by rule file, so a restart of wrtui keeps them
// until the rule file changes its own `dryRun` (the author's newer decision wins).
import { SettingsFile } from '../session/settings.js';

/** settings.json's section of per-rule dry-run toggles. */
const DRY_RUN_SECTION = 'ruleDryRun';

/** A run-time toggle, and the manifest's dryRun it was made against. */
export interface DryRunToggle {
  on: boolean;
  manifestValue: boolean | undefined;
}

export class DryRunToggles {
  readonly #settings: SettingsFile | undefined;
  readonly #warn: (message: string) => void;
  /** Toggles read at start, by rule file, applied when the file first loads. */
  readonly #saved = new Map<string, DryRunToggle>();
  #saving: Promise<void> = Promise.resolve();

  /** Without a state dir nothing is kept (toggles last until wrtui quits). */
  constructor(stateDir: string | undefined, warn: (message: string) => void) {
    this.#warn = warn;
    this.#settings = stateDir === undefined ? undefined : SettingsFile.forStateDir(stateDir, warn);
  }

  /** Toggles survive a restart of wrtui. */
  get kept(): boolean {
    return this.#settings !== undefined;
  }

  /** The toggles saved by earlier runs; a section that cannot be read is said, and the rule files' own dryRun applies. */
  async load(): Promise<void> {
    if (!this.#settings) return;
    try {
      const section = await this.#settings.section(DRY_RUN_SECTION);
      if (section === undefined) return;
      if (typeof section !== 'object' || section === null || Array.isArray(section)) throw new Error('it is not an object of rule files');
      for (const [file, toggle] of Object.entries(section as Record<string, unknown>)) {
        const { on, manifestValue } = (toggle ?? {}) as { on?: unknown; manifestValue?: unknown };
        if (typeof on !== 'boolean' || !(manifestValue === undefined || manifestValue === null || typeof manifestValue === 'boolean')) continue;
        this.#saved.set(file, { on, manifestValue: manifestValue ?? undefined });
      }
    } catch (error) {
      this.#warn(`the saved dry-run toggles in ${this.#settings.file} could not be read (${(error as Error).message}); the rule files' own dryRun applies`);
    }
  }

  /** The toggle an earlier run saved for `file`. */
  savedFor(file: string): DryRunToggle | undefined {
    return this.#saved.get(file);
  }

  /** `file`'s own dryRun changed: its saved toggle is no longer wanted. */
  forget(file: string): void {
    this.#saved.delete(file);
  }

  /** Writes the toggles: those saved by earlier runs, overridden by `current` (undefined: none for that file); one write at a time, the latest last. */
  save(current: Iterable<[file: string, toggle: DryRunToggle | undefined]>): void {
    const settings = this.#settings;
    if (!settings) return;
    const toggles: Record<string, { on: boolean; manifestValue: boolean | null }> = {};
    for (const [file, toggle] of this.#saved) toggles[file] = { on: toggle.on, manifestValue: toggle.manifestValue ?? null };
    for (const [file, toggle] of current) {
      if (toggle) toggles[file] = { on: toggle.on, manifestValue: toggle.manifestValue ?? null };
      else delete toggles[file];
    }
    this.#saving = this.#saving
      .then(() => settings.updateSection(DRY_RUN_SECTION, Object.keys(toggles).length > 0 ? toggles : undefined))
      .catch((error: Error) => this.#warn(`could not save the dry-run toggles to ${settings.file}: ${error.message}`));
  }

  /** The last write has finished. */
  settled(): Promise<void> {
    return this.#saving;
  }
}
