// A one-line progress bar with rate and ETA, redrawn in place on a terminal (stderr), for reading
// and replaying big sessions. Nothing is drawn when the stream is not a TTY, so `--json` output
// and logs stay clean; stdout is never touched.
import type { Progress } from './progress.js';

const REDRAW_MS = 100;
const WIDTH = 24;

export class ProgressBar {
  readonly #stream: NodeJS.WriteStream;
  readonly #now: () => number;
  #phase: string | undefined;
  #phaseStarted = 0;
  #lastDraw = 0;
  #drawn = false;

  constructor(stream: NodeJS.WriteStream = process.stderr, now: () => number = () => performance.now()) {
    this.#stream = stream;
    this.#now = now;
  }

  get enabled(): boolean {
    return this.#stream.isTTY === true;
  }

  /** A ProgressListener: redraws at most every 100 ms, and always at the end of a phase. */
  readonly update = (progress: Progress): void => {
    if (!this.enabled) return;
    const now = this.#now();
    if (progress.phase !== this.#phase) {
      this.#phase = progress.phase;
      this.#phaseStarted = now;
    }
    const finished = progress.done >= progress.total;
    if (!finished && now - this.#lastDraw < REDRAW_MS) return;
    this.#lastDraw = now;
    this.#stream.write(`\r\x1b[2K${formatProgress(progress, (now - this.#phaseStarted) / 1000)}`);
    this.#drawn = true;
  };

  /** Clears the bar so that what follows starts on a clean line. */
  clear(): void {
    if (!this.#drawn) return;
    this.#stream.write('\r\x1b[2K');
    this.#drawn = false;
  }
}

/**
 * `replaying [#########---------------]  3,120/10,000 requests  4,210/s  ETA 2s`, or for a file
 * replayed as it is read `replaying [###------]  12.3/41.1 MB  3,120 requests  1,650/s  ETA 6s`.
 */
export function formatProgress(progress: Progress, elapsedSeconds: number): string {
  const fraction = progress.total > 0 ? Math.min(1, progress.done / progress.total) : 1;
  const filled = Math.round(fraction * WIDTH);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}]`;
  const rate = elapsedSeconds > 0 ? progress.done / elapsedSeconds : 0;
  const eta = rate > 0 ? (progress.total - progress.done) / rate : undefined;
  const count = (n: number) => n.toLocaleString('en-US');
  const amount =
    progress.unit === 'requests'
      ? `${count(progress.done)}/${count(progress.total)} requests  ${count(Math.round(rate))}/s`
      : progress.requests !== undefined
        ? `${megabytes(progress.done)}/${megabytes(progress.total)} MB  ${count(progress.requests)} requests  ${count(Math.round(elapsedSeconds > 0 ? progress.requests / elapsedSeconds : 0))}/s`
        : `${megabytes(progress.done)}/${megabytes(progress.total)} MB  ${megabytes(rate)} MB/s`;
  return `${progress.phase.padEnd(9)} ${bar} ${amount}${eta === undefined ? '' : `  ETA ${duration(eta)}`}`;
}

function megabytes(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

function duration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m${String(Math.ceil(seconds - minutes * 60)).padStart(2, '0')}s`;
}
