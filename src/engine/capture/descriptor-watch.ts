// Says so, once, when wrtui nears its limit of open file descriptors, and what holds them. Out of
// descriptors, a proxy fails quietly (accept and connect both fail with EMFILE), so the user is
// told before: every few seconds the count in /proc/self/fd is compared with the soft limit
// ("Max open files" in /proc/self/limits). Linux only; elsewhere it watches nothing.
import { readdir, readFile } from 'node:fs/promises';

/** Warn at this share of the limit; warn again only after falling below REARM_AT. */
const WARN_AT = 0.8;
const REARM_AT = 0.6;

/** The soft limit of open files, from /proc/self/limits; undefined where there is none to read. */
export async function openFileLimit(): Promise<number | undefined> {
  const limits = await readFile('/proc/self/limits', 'utf8').catch(() => '');
  const match = /^Max open files\s+(\d+|unlimited)/m.exec(limits);
  return match && match[1] !== 'unlimited' ? Number(match[1]) : undefined;
}

export async function openDescriptors(): Promise<number | undefined> {
  return (await readdir('/proc/self/fd').catch(() => undefined))?.length;
}

export interface DescriptorWatchOptions {
  intervalMs?: number;
  /** The limit to compare with (tests); by default the process's own. */
  limit?: number;
  /** What holds descriptors now, in words ("1,100 client connections, 12 upstream (5 idle)"). */
  holders: () => string;
  /** Told once each time the count crosses WARN_AT of the limit (again after it fell below REARM_AT). */
  warn: (message: string) => void;
}

export class DescriptorWatch {
  readonly #timer: NodeJS.Timeout | undefined;
  #warned = false;

  private constructor(limit: number, options: DescriptorWatchOptions) {
    this.#timer = setInterval(() => void this.#check(limit, options), options.intervalMs ?? 5_000).unref();
  }

  static async start(options: DescriptorWatchOptions): Promise<DescriptorWatch | undefined> {
    const limit = options.limit ?? (await openFileLimit());
    return limit === undefined ? undefined : new DescriptorWatch(limit, options);
  }

  async #check(limit: number, options: DescriptorWatchOptions): Promise<void> {
    const open = await openDescriptors();
    if (open === undefined) return;
    if (!this.#warned && open >= limit * WARN_AT) {
      this.#warned = true;
      options.warn(`${open} of wrtui's ${limit} file descriptors are open (ulimit -n): ${options.holders()}. Past the limit new connections fail; raise it (ulimit -n) or close what holds them`);
    } else if (this.#warned && open < limit * REARM_AT) {
      this.#warned = false;
    }
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
