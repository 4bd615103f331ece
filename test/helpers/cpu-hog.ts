// A loaded machine for a test: child processes that each burn one CPU in a busy loop, bounded in
// time (each ends by itself after `ms`, and stop() ends them earlier), so a test can check what
// wrtui does when its threads wait for a CPU behind them.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface CpuHog {
  /** Ends every hog and waits for them to exit. */
  stop(): Promise<void>;
}

/** Starts `processes` busy loops of `ms` each. */
export function startCpuHog(processes: number, ms: number): CpuHog {
  const children: ChildProcess[] = [];
  const exits: Promise<unknown>[] = [];
  for (let i = 0; i < processes; i++) {
    const child = spawn(process.execPath, ['-e', `const end = Date.now() + ${ms}; let n = 0; while (Date.now() < end) n++;`], { stdio: 'ignore' });
    children.push(child);
    exits.push(new Promise((resolve) => child.once('exit', resolve)));
  }
  return {
    async stop() {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      await Promise.all(exits);
    },
  };
}

/** Threads of the whole machine that are running or waiting for a CPU now (/proc/loadavg's fourth field); undefined off Linux. */
export function runnableThreads(): number | undefined {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[3]!.split('/')[0]);
  } catch {
    return undefined;
  }
}
