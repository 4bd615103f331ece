// `wrtui headless`'s output when its reader falls behind. Traffic does not wait for a reader (the
// proxy cannot stop serving because `| jq` is slow), so lines wait in memory, up to a bound; past
// it, lines are dropped and counted until the reader has taken everything that waited, and then
// one line says how many were dropped (and which journal entries, by seq) before output goes on.
// Memory stays bounded however long the reader stalls; every line printed is whole and in order.
import type { StdoutLines } from './stdout-lines.js';

/** What may wait for a slow reader (in characters of output, about as many bytes): 8 MiB. */
export const OUTPUT_BOUND = 8 * 1024 * 1024;

export interface Dropped {
  lines: number;
  /** The journal seqs of the first and last line dropped, when the lines were journal entries. */
  firstSeq?: number;
  lastSeq?: number;
}

export class BoundedLines {
  readonly #out: StdoutLines;
  readonly #bound: number;
  readonly #notice: (dropped: Dropped) => string;
  #queue: string[] = [];
  #queued = 0;
  #pumping = false;
  #dropped: Dropped | undefined;

  /** `notice` makes the line that says what was dropped. */
  constructor(out: StdoutLines, options: { bound?: number; notice: (dropped: Dropped) => string }) {
    this.#out = out;
    this.#bound = options.bound ?? OUTPUT_BOUND;
    this.#notice = options.notice;
  }

  /** Prints `line()` now, or queues it, or (past the bound, or until the queue is empty again) drops it unmade. */
  write(line: () => string, seq?: number): void {
    if (this.#out.gone) return;
    if (this.#dropped) {
      // Dropping lasts until the reader has taken everything that waited: then the notice, then this line.
      if (this.#queue.length > 0 || this.#out.backedUp) return this.#drop(seq);
      this.#writeQueued();
    }
    if (this.#queue.length === 0 && !this.#out.backedUp) return this.#out.write(line());
    const text = line();
    if (this.#queued + text.length > this.#bound) return this.#drop(seq);
    this.#queue.push(text);
    this.#queued += text.length;
    void this.#pump();
  }

  /** Resolves once everything queued (and the notice of what was dropped) is printed, or the output is gone. */
  async drain(): Promise<void> {
    while (!this.#out.gone && (this.#queue.length > 0 || this.#dropped)) {
      await this.#out.ready();
      this.#writeQueued();
    }
  }

  #drop(seq: number | undefined): void {
    const dropped = (this.#dropped ??= { lines: 0 });
    dropped.lines++;
    if (seq !== undefined) {
      dropped.firstSeq ??= seq;
      dropped.lastSeq = seq;
    }
    void this.#pump();
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      await this.drain();
    } finally {
      this.#pumping = false;
    }
  }

  /** Hands queued lines to stdout while it takes them; once none is left, says what was dropped. */
  #writeQueued(): void {
    let taken = 0;
    while (taken < this.#queue.length && !this.#out.backedUp) {
      const text = this.#queue[taken++]!;
      this.#queued -= text.length;
      this.#out.write(text);
    }
    this.#queue = taken === this.#queue.length ? [] : this.#queue.slice(taken);
    if (this.#queue.length === 0 && this.#dropped && !this.#out.backedUp) {
      const dropped = this.#dropped;
      this.#dropped = undefined;
      this.#out.write(this.#notice(dropped));
    }
  }
}
