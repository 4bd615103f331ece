// How long-running session work (reading a file, replaying it) reports how far it got. The engine
// only calls back; drawing is progress-bar.ts's job, and only on a terminal.

export interface Progress {
  /** What is being done: "reading", "importing", "replaying", … */
  phase: string;
  done: number;
  total: number;
  /** What `done` and `total` count. */
  unit: 'bytes' | 'requests';
  /** Requests done so far, when `done` and `total` count bytes (a file replayed as it is read). */
  requests?: number;
}

export type ProgressListener = (progress: Progress) => void;

/** How many bytes read between two reports of a file's reading. */
const REPORT_EVERY_BYTES = 4 * 1024 * 1024;

/**
 * An `onRead(bytes)` for a file of `total` bytes being read: tells `onProgress` "reading" every
 * few MiB and at the end, not for every chunk.
 */
export function readingProgress(total: number, onProgress: ProgressListener | undefined): (bytes: number) => void {
  let read = 0;
  let lastReport = 0;
  return (bytes) => {
    read += bytes;
    if (onProgress && (read - lastReport > REPORT_EVERY_BYTES || read === total)) {
      lastReport = read;
      onProgress({ phase: 'reading', done: read, total, unit: 'bytes' });
    }
  };
}
