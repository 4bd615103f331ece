// Where `wrtui replay --json` keeps replayDiff lines until the replay's journal has been printed:
// they come after it in the output, but are known request by request while it is still running.
// A temporary file (in a 0700 folder, itself 0600, removed after) rather than memory, so a long
// recording's verdicts do not pile up; they hold URLs and headers, so only the user may read them.
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import type { RequestDiff } from '../engine/session/request-diff.js';
import { encodeLine } from '../engine/session/session-json.js';

export class DiffSpool {
  readonly #dir: string;
  readonly #file: string;
  readonly #stream: WriteStream;
  #ended = false;
  /** A write that failed (a full disk): said when the lines are to be printed, not lost silently. */
  #error: Error | undefined;

  private constructor(dir: string) {
    this.#dir = dir;
    this.#file = join(dir, 'diffs.ndjson');
    this.#stream = createWriteStream(this.#file, { mode: 0o600, flags: 'wx' });
    this.#stream.on('error', (error) => (this.#error ??= error));
  }

  static async open(): Promise<DiffSpool> {
    return new DiffSpool(await mkdtemp(join(tmpdir(), 'wrtui-replay-')));
  }

  add(diff: RequestDiff): void {
    this.#stream.write(`${encodeLine({ kind: 'replayDiff', ...diff })}\n`);
  }

  /** Each line as a replayDiff entry, numbered on from `lastSeq`, at the replay clock's `time`. */
  /** `out` may make the reading wait (a slow stdout). */
  async print(out: (line: string) => void | Promise<void>, lastSeq: number, time: number): Promise<void> {
    await this.#end();
    if (this.#error) throw new Error(`the replayDiff lines could not be kept in ${this.#file}: ${this.#error.message}`);
    let seq = lastSeq;
    const lines = createInterface({ input: createReadStream(this.#file), crlfDelay: Infinity });
    // `seq` and `time` go last, as in the journal's replayDiff entries: the closing brace makes way for them.
    for await (const line of lines) if (line !== '') await out(`${line.slice(0, -1)},"seq":${++seq},"time":${time}}`);
  }

  async close(): Promise<void> {
    await this.#end();
    await rm(this.#dir, { recursive: true, force: true });
  }

  async #end(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.#stream.end();
    await once(this.#stream, 'close');
  }
}
