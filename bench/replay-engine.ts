// Today's replay engine, its CPU per request per thread, side by side for two trees of the code
// (before and after a change), in one run. Run:
//   node --import tsx bench/replay-engine.ts <recording> <rules dir> [<tree> …]
// (a recording and its rules: node --import tsx bench/replay.ts generate <file> <requests> <rules dir>;
// trees default to this one). Each measurement runs in a fresh process, the trees alternating,
// ROUNDS rounds:
// - "no rules, whole": the file parsed whole first (openRecording: its CPU said apart, it is not
//   the engine), then replayed without rules: the engine's floor;
// - "rules, whole": the same through the rules (each in its own worker);
// - "rules, streamed": as `wrtui replay --json` runs it, the file read while it replays (reading
//   included); "no-rules-streamed" the same without rules.
// Per thread, from /proc/self/task/<tid>/schedstat (ns on a CPU): the replay thread (the main
// one), the rules' workers and Node's own threads (GC, libuv) together; µs per request. Wall time
// too, but on this shared machine it swings 3× between identical runs: CPU is what to compare.
// And the process's peak RSS.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const HERE = fileURLToPath(import.meta.url);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const MODES = (process.env.MODES ?? 'no-rules-whole,rules-whole,rules-streamed').split(',');

interface Measured {
  requests: number;
  identical: number;
  wallMs: number;
  parseMainUs: number;
  mainUs: number;
  othersUs: number;
  peakRssMb: number;
}

/** CPU ns of every thread of this process, by tid. */
function threadCpu(): Map<string, number> {
  const cpu = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      cpu.set(tid, Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // ended between the listing and the read
    }
  }
  return cpu;
}

/** The child: one measurement. */
async function child(tree: string, mode: string, file: string, rulesDir: string): Promise<void> {
  const { openRecording } = (await import(join(tree, 'src/engine/session/open-recording.ts'))) as typeof import('../src/engine/session/open-recording.js');
  const { replay, replaySession } = (await import(join(tree, 'src/engine/session/session-replay.ts'))) as typeof import('../src/engine/session/session-replay.js');
  const { streamedReplayInput } = (await import(join(tree, 'src/engine/session/replay-input.ts'))) as typeof import('../src/engine/session/replay-input.js');
  const { readSessionEntries } = (await import(join(tree, 'src/engine/session/session-reader.ts'))) as typeof import('../src/engine/session/session-reader.js');
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const main = String(process.pid);
  const started = performance.now();
  let before = threadCpu();
  let parseMainUs = 0;
  let result;
  if (mode.endsWith('-streamed')) {
    result = await replay(streamedReplayInput(file, readSessionEntries(file)), { ...(mode === 'rules-streamed' && { rulesDir }), keepJournal: false });
  } else {
    const session = await openRecording(file);
    const parsed = threadCpu();
    parseMainUs = ((parsed.get(main) ?? 0) - (before.get(main) ?? 0)) / 1000;
    before = parsed;
    result = await replaySession(session, { ...(mode === 'rules-whole' && { rulesDir }), keepJournal: false });
  }
  const after = threadCpu();
  const wallMs = performance.now() - started;
  clearInterval(sampler);
  let mainUs = 0;
  let othersUs = 0;
  for (const [tid, ns] of after) {
    const used = (ns - (before.get(tid) ?? 0)) / 1000;
    if (tid === main) mainUs += used;
    else othersUs += used;
  }
  const measured: Measured = { requests: result.summary.requests, identical: result.summary.identical, wallMs, parseMainUs, mainUs, othersUs, peakRssMb: peak / 2 ** 20 };
  process.stdout.write(`${JSON.stringify(measured)}\n`);
  process.exit(0);
}

async function conduct(file: string, rulesDir: string, trees: string[]): Promise<void> {
  const results = new Map<string, Measured[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of MODES) {
      // Alternating which tree goes first, so the machine's swings hit both alike.
      const order = round % 2 === 0 ? trees : [...trees].reverse();
      for (const tree of order) {
        const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', HERE, 'child', tree, mode, file, rulesDir], { maxBuffer: 1 << 24 });
        const measured = JSON.parse(stdout.trim().split('\n').pop()!) as Measured;
        const key = `${mode}\t${tree}`;
        results.set(key, [...(results.get(key) ?? []), measured]);
      }
    }
  }
  const header = ['mode', 'tree', 'identical', 'parse µs/req (main)', 'replay µs/req (main)', 'others µs/req', 'wall ms', 'peak RSS MB'];
  const rows = [...results].map(([key, runs]) => {
    const [mode, tree] = key.split('\t') as [string, string];
    const perRequest = (pick: (m: Measured) => number) => median(runs.map((m) => pick(m) / m.requests));
    return [
      mode,
      tree,
      `${runs[0]!.identical}/${runs[0]!.requests}`,
      fmt(perRequest((m) => m.parseMainUs)),
      fmt(perRequest((m) => m.mainUs)),
      fmt(perRequest((m) => m.othersUs)),
      fmt(median(runs.map((m) => m.wallMs))),
      fmt(median(runs.map((m) => m.peakRssMb))),
    ];
  });
  console.log(`${ROUNDS} rounds, medians; ${file}`);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  for (const row of [header, ...rows]) console.log(row.map((cell, i) => (i <= 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

if (process.argv[2] === 'child') await child(process.argv[3]!, process.argv[4]!, process.argv[5]!, process.argv[6]!);
else {
  const [file, rulesDir, ...trees] = process.argv.slice(2);
  if (!file || !rulesDir) throw new Error('usage: node --import tsx bench/replay-engine.ts <recording> <rules dir> [<tree> …]');
  await conduct(resolve(file), resolve(rulesDir), trees.length > 0 ? trees.map((tree) => resolve(tree)) : [fileURLToPath(new URL('..', import.meta.url))]);
}
