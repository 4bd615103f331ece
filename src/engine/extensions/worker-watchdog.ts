// Whether a worker answers, and when one that does not is stuck: judged by what the worker does,
// never by the wall clock alone.
//
//   - Waiting: the host has given the worker items (events, replies, pings) it has not taken up
//     yet (worker-progress.ts). The heartbeat keeps a ping in flight, so a worker busy in one task
//     always has something waiting.
//   - Stalled time: the worker's own time (thread-clock.ts: the time it ran or slept of its own
//     accord, not the time it waited for a CPU) since it was seen waiting without taking anything
//     up. A loaded machine adds none; neither does a proxy thread slow to read the answers.
//   - Not responding (events skip it, a failed outcome and no wait): a blocking call to it timed
//     out (--listener-timeout) and it has stalled 1 s since. Never while it is starting: from its
//     first run until its event loop first idles (an extension compiling its filter lists), a
//     request waits for it, up to the listener timeout, as a browser waits for a busy extension.
//   - Stuck (terminated and started again): stalled 5 s with no sign of progress between two looks
//     at it a second of its own time apart (the same frames, and under 256 KiB allocated: `while
//     (true) {}`; looks a wall-clock second apart could be milliseconds of its time on a loaded
//     machine, too few to tell), or
//     stalled 30 s whatever it does: Chromium 156 stops a service worker whose thread has not
//     answered its ping for 30 s (docs/extensions-and-host.md, "Extension host"). Work that moves and allocates (a
//     compile) runs on until then.
import type { ThreadClock } from './thread-clock.js';
import type { WorkerSample } from './stuck-stack.js';

export interface WatchdogLimits {
  /** Stalled this long (own time) after a call timed out: events skip it meanwhile (ms). */
  unresponsiveAfterMs: number;
  /** Stalled this long (own time) with no sign of progress: stuck (ms). */
  stuckAfterMs: number;
  /** Stalled this long (own time), whatever it does: stuck (ms). */
  hangLimitMs: number;
}

/** What the watchdog reads of its worker. */
export interface WatchdogProbe {
  /** Items the worker has taken up so far (worker-progress.ts). */
  taken(): number;
  clock(): ThreadClock;
  /** The share of the time since the last call its event loop was busy (0–1). */
  utilization(): number;
  /** A look at where it is and how much heap it uses (the inspector), or undefined. */
  sample(): Promise<WorkerSample | undefined>;
  /** No more looks for now: the inspector's session may go. */
  stopSampling(): void;
}

export interface StuckVerdict {
  /** `no-progress`: the same place, nothing allocated; `limit`: stalled hangLimitMs. */
  why: 'no-progress' | 'limit';
  stalledMs: number;
  /** The latest look at it, for where it was. */
  sample: WorkerSample | undefined;
}

/** More allocated between two looks than this is progress (a look itself costs the worker ~30 KB). */
const ALLOCATION_IS_PROGRESS = 256 * 1024;
/** Looks at a stalled worker are this many to the stuck threshold apart, in its own time (1 s for 5 s). */
const LOOKS_PER_THRESHOLD = 5;
/** A busy share of the event loop at or under this, over one heartbeat, ends "starting". */
const IDLE_UTILIZATION = 0.5;

export class WorkerWatchdog {
  readonly #probe: WatchdogProbe;
  readonly #limits: WatchdogLimits;
  /** Items given to the worker, wrapping as the worker's Int32 count does. */
  #given = 0;
  #taken = 0;
  /** Own time (ms) when it was first seen with items waiting and none taken up since. */
  #stallBase: number | undefined;
  #stalledMs = 0;
  #timedOut = false;
  /** From its first run until its event loop first idles once live: events wait for it, never skip it. */
  #starting = true;
  /** The latest two looks at it, each with its own time when it was taken. */
  #samples: { own: number; sample: WorkerSample }[] = [];
  #sampling = false;

  constructor(probe: WatchdogProbe, limits: WatchdogLimits) {
    this.#probe = probe;
    this.#limits = limits;
  }

  /** The host gave it an item. */
  given(): void {
    this.#given = (this.#given + 1) | 0;
  }

  /** A blocking call to it timed out. */
  timedOut(): void {
    this.#timedOut = true;
  }

  /** Items given to it wait: it has not taken them up yet. */
  get waiting(): boolean {
    this.#progressed();
    return this.#waiting();
  }

  /** Own time (ms) it has stalled, as of the latest heartbeat. */
  get stalledMs(): number {
    return this.#stalledMs;
  }

  /** Events skip it: a call timed out, and it has stalled unresponsiveAfterMs of its own time since (never while starting). */
  get notResponding(): boolean {
    if (!this.#timedOut || this.#starting) return false;
    if (this.#progressed() || !this.#waiting() || this.#stallBase === undefined) return false;
    this.#stalledMs = this.#probe.clock().ownMs() - this.#stallBase;
    return this.#stalledMs >= this.#limits.unresponsiveAfterMs;
  }

  /**
   * Every heartbeat (after the host gave it a ping if none was in flight): whether it is stuck.
   * `live`: its top level ran (only then can it finish starting).
   */
  beat(live: boolean): StuckVerdict | undefined {
    this.#progressed();
    if (live && this.#starting && this.#probe.utilization() <= IDLE_UTILIZATION) this.#starting = false;
    if (!this.#waiting()) {
      this.#stallBase = undefined;
      this.#stalledMs = 0;
      return undefined;
    }
    const own = this.#probe.clock().ownMs();
    if (this.#stallBase === undefined) {
      this.#stallBase = own;
      return undefined;
    }
    const stalled = (this.#stalledMs = own - this.#stallBase);
    const latest = this.#samples.at(-1);
    if (stalled >= this.#limits.hangLimitMs) return { why: 'limit', stalledMs: stalled, sample: latest?.sample };
    // Three looks in a row that agree: two can by chance land on the same line at the same heap
    // size (a busy compiler's allocations between them collected), three at once hardly.
    const [first, second] = [this.#samples.at(-3), this.#samples.at(-2)];
    if (stalled >= this.#limits.stuckAfterMs && latest && first && second && !progressBetween(first.sample, second.sample) && !progressBetween(second.sample, latest.sample)) return { why: 'no-progress', stalledMs: stalled, sample: latest.sample };
    const spacing = this.#limits.stuckAfterMs / LOOKS_PER_THRESHOLD;
    if (stalled >= this.#limits.stuckAfterMs / 2 && (!latest || own - latest.own >= spacing)) void this.#look(own);
    return undefined;
  }

  /** Stops watching (the worker is gone). */
  close(): void {
    this.#samples = [];
    this.#probe.stopSampling();
  }

  /** Reads how many items it took up; anything new resets the stall. */
  #progressed(): boolean {
    const taken = this.#probe.taken();
    if (taken === this.#taken) return false;
    this.#taken = taken;
    this.#stallBase = undefined;
    this.#stalledMs = 0;
    this.#timedOut = false;
    if (this.#samples.length > 0 || this.#sampling) {
      this.#samples = [];
      this.#probe.stopSampling();
    }
    return true;
  }

  #waiting(): boolean {
    return ((this.#given - this.#taken) | 0) > 0;
  }

  /** A look at it through the inspector; `own`: its own time now. */
  async #look(own: number): Promise<void> {
    if (this.#sampling) return;
    this.#sampling = true;
    try {
      const sample = await this.#probe.sample();
      // A look that straddled progress says nothing about this stall.
      if (sample && !this.#progressed()) this.#samples = [...this.#samples.slice(-2), { own, sample }];
    } finally {
      this.#sampling = false;
    }
  }
}

/** Whether the worker moved between two looks: other frames, or more than a look's own allocations. */
export function progressBetween(before: WorkerSample, after: WorkerSample): boolean {
  if (before.heapUsed === undefined || after.heapUsed === undefined) return true;
  if (Math.abs(after.heapUsed - before.heapUsed) > ALLOCATION_IS_PROGRESS) return true;
  if (before.frames.length !== after.frames.length) return true;
  return before.frames.some((frame, i) => {
    const other = after.frames[i]!;
    return frame.url !== other.url || frame.line !== other.line || frame.column !== other.column || frame.functionName !== other.functionName;
  });
}
