// wrtui's stdout when it carries output a program reads (replay's report, headless's journal): a
// pipe's reader may be slow, late, stalled or gone. process.stdout.write never blocks and never
// refuses: what the reader has not taken yet waits in memory, and process.exit drops it. Here a
// writer can wait until the reader keeps up (ready), everything is handed to the kernel before
// wrtui exits (flush), and a reader that went away (EPIPE: `| head`) ends the output quietly:
// no stack trace, and the command exits EXIT_CLOSED_PIPE, as a Unix tool killed by SIGPIPE does.

/** A closed pipe's status: 128 + SIGPIPE (13), what a shell reports for `yes | head -1`'s yes. */
export const EXIT_CLOSED_PIPE = 141;

export class StdoutLines {
  readonly #stream: NodeJS.WritableStream & { writableNeedDrain: boolean; writableLength: number };
  #gone: NodeJS.ErrnoException | undefined;
  readonly #goneListeners = new Set<(error: NodeJS.ErrnoException) => void>();

  constructor(stream: NodeJS.WritableStream & { writableNeedDrain: boolean; writableLength: number }) {
    this.#stream = stream;
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (this.#gone) return;
      this.#gone = error;
      for (const listener of this.#goneListeners) listener(error);
    });
  }

  /** Why nothing more can be written (EPIPE: the reader closed; EIO: the terminal went away), once that happened. */
  get gone(): NodeJS.ErrnoException | undefined {
    return this.#gone;
  }

  /** Told once, when the output goes away. */
  onGone(listener: (error: NodeJS.ErrnoException) => void): () => void {
    this.#goneListeners.add(listener);
    return () => this.#goneListeners.delete(listener);
  }

  /** Writes one line (its newline added). Never blocks; ready() says when to wait. Nothing once gone. */
  write(line: string): void {
    if (!this.#gone) this.#stream.write(`${line}\n`);
  }

  /** More is waiting than the stream's high-water mark: the reader is behind. */
  get backedUp(): boolean {
    return !this.#gone && this.#stream.writableNeedDrain;
  }

  /** Resolves once the reader has caught up (or the output is gone). */
  ready(): Promise<void> {
    if (!this.backedUp) return Promise.resolve();
    return this.#settled((done) => this.#stream.once('drain', done));
  }

  /** Resolves once every line written so far is in the kernel's hands (or the output is gone). */
  flush(): Promise<void> {
    if (this.#gone || this.#stream.writableLength === 0) return Promise.resolve();
    // Write callbacks run in order: an empty write's runs once everything before it is written.
    return this.#settled((done) => this.#stream.write('', () => done()));
  }

  #settled(start: (done: () => void) => void): Promise<void> {
    return new Promise<void>((resolve) => {
      const stop = this.onGone(() => resolve());
      start(() => {
        stop();
        resolve();
      });
    });
  }
}

let processStdout: StdoutLines | undefined;

/**
 * The one StdoutLines of process.stdout (it owns the stream's error listener). stderr gets one too:
 * it is where wrtui says what went wrong, so when it cannot be written (a terminal that closed)
 * there is nowhere left to say so, and an unheard 'error' would crash the clean stop.
 */
export function stdoutLines(): StdoutLines {
  if (!processStdout) {
    processStdout = new StdoutLines(process.stdout);
    process.stderr.on('error', () => {});
  }
  return processStdout;
}

/** The exit status for output that went away: EPIPE is a closed pipe; anything else is said on stderr once. */
export function statusOfLostOutput(error: NodeJS.ErrnoException): number {
  if (error.code === 'EPIPE') return EXIT_CLOSED_PIPE;
  process.stderr.write(`wrtui: cannot write to stdout: ${error.message}\n`);
  return 1;
}
