// Measurements from inside the process, for bench/tui.ts: with WRTUI_PERF_LOG=<file> the TUI
// appends one JSON line a second with the event loop's lag (perf_hooks), frames drawn and memory.
// The same probe runs in `wrtui headless` through a preload, so the two compare like for like.
import { appendFileSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export const PERF_LOG_ENV = 'WRTUI_PERF_LOG';

export interface PerfSample {
  /** Epoch ms at the end of the interval. */
  t: number;
  label: string;
  intervalMs: number;
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  /** Frames Ink drew in the interval (0 when nothing renders). */
  renders: number;
  /** CPU time (user + system) this process used in the interval. */
  cpuMs: number;
  rssBytes: number;
  heapUsedBytes: number;
  [extra: string]: unknown;
}

export interface PerfProbe {
  countRender(): void;
  stop(): void;
}

export function startPerfProbe(options: { file: string; label: string; intervalMs?: number; extra?: () => Record<string, unknown> }): PerfProbe {
  const intervalMs = options.intervalMs ?? 1000;
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let renders = 0;
  let cpu = process.cpuUsage();
  writeFileSync(options.file, '');
  const timer = setInterval(() => {
    const memory = process.memoryUsage();
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    const sample: PerfSample = {
      t: Date.now(),
      label: options.label,
      intervalMs,
      lagP50Ms: histogram.percentile(50) / 1e6,
      lagP99Ms: histogram.percentile(99) / 1e6,
      lagMaxMs: histogram.max / 1e6,
      renders,
      cpuMs: (used.user + used.system) / 1000,
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      ...options.extra?.(),
    };
    histogram.reset();
    renders = 0;
    appendFileSync(options.file, `${JSON.stringify(sample)}\n`);
  }, intervalMs);
  timer.unref();
  return {
    countRender: () => void renders++,
    stop: () => {
      clearInterval(timer);
      histogram.disable();
    },
  };
}
