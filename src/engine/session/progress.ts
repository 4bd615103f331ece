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
