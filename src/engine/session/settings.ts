// `<state-dir>/settings.json`: wrtui's settings that outlive one run, in lowdb over the project's
// atomic adapter. Each part of wrtui owns one section and leaves the others as it found them, so
// the UI can add its own section later. The recording section: whether --record redacts by
// default (the --redact / --no-redact flags override it for one run). The ruleDryRun section: the
// Rules view's per-rule dry-run toggles (extension-host.ts), so a restart keeps them.
//
// Security settings fail safe: a file wrtui cannot read is kept aside and replaced by one that
// redacts recordings (it may have said so; nobody can tell), and a recording section whose
// `redact` is not a boolean redacts too. Only a file that says `"redact": false` turns it off.
import { resolve } from 'node:path';
import { Low } from 'lowdb';
import { AtomicJsonFile, CorruptJsonFileError, setAside } from '../cookies/atomic-json-file.js';

export const SETTINGS_FILE = 'settings.json';

export interface RecordingSettings {
  /** Redact credentials in recorded sessions unless --no-redact is given. */
  redact: boolean;
}

export interface Settings {
  recording: RecordingSettings;
  /** Other parts' sections, kept as they are. */
  [section: string]: unknown;
}

export const DEFAULT_RECORDING_SETTINGS: RecordingSettings = { redact: false };

export class SettingsFile {
  readonly file: string;
  readonly #db: Low<Record<string, unknown>>;
  readonly #onProblem: (message: string) => void;

  private constructor(file: string, onProblem: (message: string) => void) {
    this.file = file;
    this.#db = new Low<Record<string, unknown>>(new AtomicJsonFile<Record<string, unknown>>(file), {});
    this.#onProblem = onProblem;
  }

  /** `onProblem` hears of a file that could not be used (it is kept aside, never overwritten). */
  static forStateDir(stateDir: string, onProblem: (message: string) => void = () => {}): SettingsFile {
    return new SettingsFile(resolve(stateDir, SETTINGS_FILE), onProblem);
  }

  /** The settings, with defaults for whatever the file lacks; redaction on where the file is unreadable (see above). */
  async read(): Promise<Settings> {
    const data = await this.#readRaw();
    return { ...data, recording: { redact: redactionOf(data.recording) } };
  }

  /** Changes the recording section, keeping every other section. */
  async updateRecording(change: Partial<RecordingSettings>): Promise<Settings> {
    const data = await this.#readRaw();
    const current = (await this.read()).recording;
    this.#db.data = { ...data, recording: { ...current, ...change } };
    await this.#db.write();
    return this.read();
  }

  /** One section as stored (undefined when absent), for parts that check their own shape. */
  async section(name: string): Promise<unknown> {
    return (await this.#readRaw())[name];
  }

  /** Replaces one section (undefined removes it), keeping every other section. */
  async updateSection(name: string, value: unknown): Promise<void> {
    const data = { ...(await this.#readRaw()) };
    if (value === undefined) delete data[name];
    else data[name] = value;
    this.#db.data = data;
    await this.#db.write();
  }

  async #readRaw(): Promise<Record<string, unknown>> {
    let problem: string | undefined;
    try {
      await this.#db.read();
      const data = this.#db.data as unknown;
      if (data !== null && (typeof data !== 'object' || Array.isArray(data))) problem = 'it does not hold an object of settings';
    } catch (error) {
      if (!(error instanceof CorruptJsonFileError)) throw error;
      problem = error.message;
    }
    if (problem !== undefined) {
      const aside = await setAside(this.file);
      // Written at once, so that the safe value outlasts this run whoever reads the file next.
      this.#db.data = { recording: { redact: true } };
      const unwritten = await this.#db.write().then(
        () => '',
        (error: unknown) => ` (${this.file} could not be written: ${(error as Error).message})`,
      );
      this.#onProblem(`${this.file} could not be used (${problem}); it was kept as ${aside}; the defaults apply, except that recordings are redacted (recording.redact: true) until settings.json or --no-redact says otherwise${unwritten}`);
    }
    if (!this.#db.data) this.#db.data = {};
    return this.#db.data;
  }
}

/** What a recording section says of redaction: absent is the default; anything but a boolean is on. */
function redactionOf(recording: unknown): boolean {
  if (recording === undefined) return DEFAULT_RECORDING_SETTINGS.redact;
  if (recording === null || typeof recording !== 'object' || Array.isArray(recording)) return true;
  const redact = (recording as { redact?: unknown }).redact;
  return redact === undefined ? DEFAULT_RECORDING_SETTINGS.redact : redact !== false;
}
