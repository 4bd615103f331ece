// Output that says success is complete. Through a pipe whose reader is late, slow, stalled or gone:
// `wrtui replay --json` waits for its reader and exits only once every line is handed over;
// `| head -c 100` ends it quietly (exit 141, as a Unix tool ends on SIGPIPE, no stack trace);
// `wrtui headless --json` into a stalled reader keeps its memory bounded and, once the reader
// resumes, says in one line how many entries it dropped. Real processes, real pipes.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ProxyAgent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { WRTUI_BIN } from '../helpers/tmux.js';
import { writeSyntheticRecording } from '../session/synthetic-recording.js';

const REQUESTS = 3000;
/** Each synthetic request is 6 webRequest entries (its body entry is not printed), then a replayDiff line each, then the summary. */
const REPLAY_LINES = REQUESTS * 6 + REQUESTS + 1;

let workDir: string;
let recording: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'wrtui-stdout-pipe-'));
  await mkdir(join(workDir, 'no-rules'));
  recording = await writeSyntheticRecording(join(workDir, 'synthetic.ndjson'), REQUESTS);
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

/** `wrtui <args>`, its stdout a pipe the test reads, or the file descriptor `stdout`. */
function wrtui(args: string[], stdout?: number): { child: ChildProcessWithoutNullStreams; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>; stderr: () => string } {
  const child = spawn(process.execPath, [WRTUI_BIN, ...args], { cwd: workDir, stdio: ['pipe', stdout ?? 'pipe', 'pipe'] }) as ChildProcessWithoutNullStreams;
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited, stderr: () => stderr };
}

/** A process's CPU time so far (clock ticks), or undefined once it is gone. */
async function cpuTicks(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime, stime
}

/** Resident memory of a process (bytes), from /proc. */
async function rss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/**
 * Waits until the writer has nothing left to do but wait for the reader: it ended, or it spent no
 * CPU over three polls in a row (stuck on a full pipe). The reader then starts late, for sure.
 */
async function untilWriterWaitsOrEnds(pid: number, exited: Promise<unknown>): Promise<void> {
  let ended = false;
  void exited.then(() => (ended = true));
  let last = -1;
  let still = 0;
  const deadline = Date.now() + 60_000;
  while (!ended && still < 3) {
    if (Date.now() > deadline) throw new Error('the writer neither ended nor waited');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const ticks = await cpuTicks(pid);
    if (ticks === undefined) break;
    still = ticks === last ? still + 1 : 0;
    last = ticks;
  }
}

describe('wrtui replay --json into a pipe', () => {
  it('a reader that starts late gets every line and the summary; the exit status comes after the last line', { timeout: 120_000 }, async () => {
    // The reader is a process of its own, as in `wrtui replay … | (sleep 3; wc -l)`: it opens the
    // pipe (a FIFO) at once and reads nothing until told to.
    const fifo = join(workDir, 'late.fifo');
    const go = join(workDir, 'late.go');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('sh', ['-c', 'exec 3<"$0"; while [ ! -e "$1" ]; do sleep 0.05; done; exec cat <&3', fifo, go]);
    const lines: string[] = [];
    createInterface({ input: reader.stdout }).on('line', (line) => lines.push(line));
    const readerDone = new Promise((resolve) => reader.on('exit', resolve));
    const writeEnd = openSync(fifo, 'w'); // once the reader has it open
    const run = wrtui(['replay', recording, '--json', '--rules', join(workDir, 'no-rules')], writeEnd);
    closeSync(writeEnd);
    await untilWriterWaitsOrEnds(run.child.pid!, run.exited);

    await writeFile(go, '');
    const { code } = await run.exited;
    await readerDone;
    expect(run.stderr()).toBe('');
    expect(code).toBe(0);
    expect(lines).toHaveLength(REPLAY_LINES);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ kind: 'replaySummary', requests: REQUESTS, identical: REQUESTS });
  });

  it('a reader that closes early (| head -c 100) ends it quietly with status 141, no stack trace', { timeout: 60_000 }, async () => {
    const run = wrtui(['replay', recording, '--json', '--rules', join(workDir, 'no-rules')]);
    let taken = 0;
    run.child.stdout.on('data', (chunk: Buffer) => {
      taken += chunk.length;
      if (taken >= 100) run.child.stdout.destroy(); // as head does once it has its bytes
    });
    expect(await run.exited).toEqual({ code: 141, signal: null });
    expect(run.stderr()).toBe('');
  });
});

describe('wrtui headless --json into a stalled reader', () => {
  let origin: Origin;
  beforeAll(async () => {
    origin = await startOrigin((_req, res) => res.end('ok'));
  });
  afterAll(async () => {
    await origin.close();
  });

  it('keeps its memory bounded while the reader stalls, and says how many entries it dropped once the reader resumes', { timeout: 180_000 }, async () => {
    const run = wrtui(['headless', '--json', '--port', '0', '--incognito-port', '0', '--rules', join(workDir, 'no-rules'), '--state-dir', join(workDir, 'headless-state')]);
    const lines: string[] = [];
    const reader = createInterface({ input: run.child.stdout });
    reader.on('line', (line) => lines.push(line));
    const proxyUrl = await new Promise<string>((resolve) => reader.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url)));
    run.child.stdout.pause(); // the reader stalls

    // About 6 journal entries of ~16 KB each per request (a long URL in each): ~150 MB of output
    // no one reads in each half of the run, far past the 8 MiB bound. The first half warms the
    // process up (the journal keeps its latest 2,000 entries; the heap grows to its working size);
    // in the second, memory must stay where it was. Measured on 2026-11-28 (5 runs): the old code's
    // RSS grew 146–322 MiB over the second half (every line kept for the reader), this code's 19–20.
    const dispatcher = new ProxyAgent({ uri: proxyUrl, proxyTunnel: false });
    const padding = 'p'.repeat(16_000);
    const BATCHES = 160;
    let half = 0;
    let peak = 0;
    for (let batch = 0; batch < BATCHES; batch++) {
      await Promise.all(Array.from({ length: 20 }, async (_, i) => (await request(`${origin.url}/stalled/${batch}/${i}?${padding}`, { dispatcher })).body.text()));
      if (batch === BATCHES / 2 - 1) half = await rss(run.child.pid!);
      else if (batch >= BATCHES / 2 && batch % 10 === 9) peak = Math.max(peak, await rss(run.child.pid!));
    }
    await dispatcher.close();
    expect(peak - half, `RSS ${Math.round(half / 1048576)} MiB at half time, at most ${Math.round(peak / 1048576)} MiB after`).toBeLessThan(100 * 1024 * 1024);

    run.child.stdout.resume();
    const deadline = Date.now() + 60_000;
    while (!lines.some((line) => line.includes('"kind":"dropped"'))) {
      if (Date.now() > deadline) throw new Error(`no "dropped" line; ${lines.length} lines read`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    run.child.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);

    const dropped = lines.filter((line) => line.includes('"kind":"dropped"')).map((line) => JSON.parse(line) as { entries: number; firstSeq: number; lastSeq: number });
    expect(dropped).toHaveLength(1);
    expect(dropped[0]!.entries).toBeGreaterThan(1000);
    // The lines printed and the ones dropped are every entry, in order, each line whole JSON.
    // (The listening line comes first, out of seq order, by contract: sorted back.)
    const seqs = lines
      .map((line) => JSON.parse(line) as { seq?: number })
      .flatMap((entry) => (entry.seq === undefined ? [] : [entry.seq]))
      .sort((a, b) => a - b);
    const gaps = seqs.flatMap((seq, i) => (i > 0 && seq !== seqs[i - 1]! + 1 ? [[seqs[i - 1]! + 1, seq - 1]] : []));
    expect(seqs[0]).toBe(1);
    expect(gaps).toEqual([[dropped[0]!.firstSeq, dropped[0]!.lastSeq]]);
    expect(dropped[0]!.lastSeq - dropped[0]!.firstSeq + 1).toBe(dropped[0]!.entries);
  });
});
