// `<state-dir>/sessions.json`: the recordings made with this state dir (file, started, ended,
// request count), so a UI can list them. lowdb over the project's atomic adapter; it holds a few
// numbers per session, never bodies, and is written twice per recording (start and end). A
// recording that never ended (a crash) keeps `ended: null`.
import { resolve } from 'node:path';
import { Low } from 'lowdb';
import { AtomicJsonFile, CorruptJsonFileError, setAside } from '../cookies/atomic-json-file.js';

export const SESSION_INDEX_FILE = 'sessions.json';
const FORMAT = 'wrtui-sessions';
const VERSION = 1;

export interface IndexedSession {
  /** Absolute path of the session file. */
  file: string;
  /** ISO 8601 */
  started: string;
  ended: string | null;
  requests: number;
  redacted: boolean;
}

interface SessionIndexData {
  format: typeof FORMAT;
  version: typeof VERSION;
  sessions: IndexedSession[];
}

export class SessionIndex {
  readonly file: string;
  readonly #db: Low<SessionIndexData>;
  readonly #onProblem: (message: string) => void;

  private constructor(file: string, onProblem: (message: string) => void) {
    this.file = file;
    this.#db = new Low<SessionIndexData>(new AtomicJsonFile<SessionIndexData>(file), emptyIndex());
    this.#onProblem = onProblem;
  }

  /** `onProblem` hears of a file that could not be used (it is kept aside, never overwritten). */
  static forStateDir(stateDir: string, onProblem: (message: string) => void = () => {}): SessionIndex {
    return new SessionIndex(resolve(stateDir, SESSION_INDEX_FILE), onProblem);
  }

  /** Every indexed session, oldest first. A corrupt or foreign file is set aside (kept) and the index starts empty. */
  async list(): Promise<IndexedSession[]> {
    await this.#read();
    return [...this.#db.data.sessions];
  }

  /** Adds a session (or replaces the entry of the same file). */
  async add(session: IndexedSession): Promise<void> {
    await this.#update((sessions) => [...sessions.filter((s) => s.file !== session.file), session]);
  }

  /** Records how a session ended. */
  async finish(file: string, ended: string, requests: number): Promise<void> {
    await this.#update((sessions) => sessions.map((s) => (s.file === file ? { ...s, ended, requests } : s)));
  }

  // Read before every write: another wrtui with the same state dir may have added its own session.
  async #update(change: (sessions: IndexedSession[]) => IndexedSession[]): Promise<void> {
    await this.#read();
    this.#db.data = { format: FORMAT, version: VERSION, sessions: change(this.#db.data.sessions) };
    await this.#db.write();
  }

  async #read(): Promise<void> {
    let problem: string | undefined;
    try {
      await this.#db.read();
      const data = this.#db.data as Partial<SessionIndexData> | null;
      if (data && (data.format !== FORMAT || !Array.isArray(data.sessions))) problem = 'it is not an index of wrtui sessions';
    } catch (error) {
      if (!(error instanceof CorruptJsonFileError)) throw error;
      problem = error.message;
    }
    if (problem !== undefined) {
      const aside = await setAside(this.file);
      this.#onProblem(`${this.file} could not be used (${problem}); it was kept as ${aside} and the index of recordings starts empty`);
    }
    if (problem !== undefined || !this.#db.data) this.#db.data = emptyIndex();
  }
}

function emptyIndex(): SessionIndexData {
  return { format: FORMAT, version: VERSION, sessions: [] };
}
