// Recorded sessions' costs, in one run. Run: node --import tsx bench/replay.ts (a few minutes).
//
// 1. Replay throughput: a 10,000-request session is generated (an Engine with 10 rules, requests
//    driven in-process through the lifecycle 8 at a time, recorded by SessionRecorder with bodies),
//    once as text and once compressed (*.gz), then each read back and replayed offline through the
//    same 10 rules, 3 times, and the text file streamed as `wrtui replay --json` replays it (its
//    reading included in the time). Every replayed request
//    must come out identical to its recording. Requests/s counts replayed requests over the whole
//    replay (engine, rule loading, the comparison included; reading the file is shown apart).
//    Then the TUI's save → first verdicts, with its worker pool refilled between runs and without;
//    and save → the whole updated diff in the real TUI (`wrtui replay` in tmux, its status bar read).
// 2. Recording's cost on live throughput: three proxies (CaptureProxy, no rules), one recording with
//    --record's settings (journalBodies, SessionRecorder) as text, one compressed, one not recording,
//    each alone in its own process;
//    an origin and keep-alive clients (node:http, absolute-form requests, concurrency 16) in another;
//    all on 127.0.0.1. Interleaved rounds, the order alternating, so machine noise hits both alike;
//    beside req/s, each proxy's own CPU time per request (process.cpuUsage over the window), which is
//    what limits a proxy on its core and is far steadier than req/s.
// 3. Memory against file size: recordings of 2,500, 10,000 and 40,000 requests, each replayed in a
//    fresh process, peak RSS sampled: the TUI's way (read whole, journal kept) and the printed
//    output's (streamed); and HAR files of 250 and 1,000 entries with 400 KiB bodies (plain and gzip),
//    and of 10,000 and 40,000 entries with 1 KiB bodies, read whole (the TUI) and streamed (printed).
// Bounded: a watchdog kills everything after 10 minutes.
import { execFile, fork, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createGzip } from 'node:zlib';
import { CaptureProxy } from '../src/engine/capture/capture-proxy.js';
import { loadOrCreateCertificateAuthority } from '../src/engine/capture/certificate-authority.js';
import { Engine } from '../src/engine/engine.js';
import { DEFAULT_WORKER_LIMITS } from '../src/engine/extensions/extension-worker.js';
import { WorkerPool } from '../src/engine/extensions/worker-pool.js';
import { openRecording } from '../src/engine/session/open-recording.js';
import { SessionRecorder } from '../src/engine/session/session-recorder.js';
import { openHarFile } from '../src/engine/session/har/har-import.js';
import { streamedHarInput, streamedReplayInput } from '../src/engine/session/replay-input.js';
import { readSessionEntries } from '../src/engine/session/session-reader.js';
import { replay, replaySession } from '../src/engine/session/session-replay.js';
import { replayStatusBar, settledStatus, timeSaveToWholeDiff } from '../test/helpers/replay-screen.js';
import { replayPredicted } from '../src/engine/replay/predicted-replay.js';
import { generateSession, RULES, SESSION_REQUESTS } from './replay-session.js';

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REPLAYS = 3;
const SAVES = 5;
const EDIT_PAUSE_MS = 1_000;
const ROUNDS = 5;
const WARMUP_MS = 400;
const WINDOW_MS = 2_000;
const LOAD_CONCURRENCY = 16;
const WATCHDOG_MS = 10 * 60_000;

type ToProxy = { type: 'usage' } | { type: 'stop' };
type FromProxy = { type: 'ready'; port: number } | { type: 'usage'; cpuMicros: number } | { type: 'stopped'; fileBytes: number; entries: number };
type ToLoad = { type: 'run'; port: number; warmupMs: number; windowMs: number; concurrency: number } | { type: 'stop' };
type FromLoad = { type: 'origin'; port: number } | { type: 'ran'; requests: number; errors: number; mark: 'window-start' | 'done' } | { type: 'window-start' };

// ── 1. replay throughput ────────────────────────────────────────────────────

async function replayThroughput(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wrtui-bench-replay-'));
  try {
    const rulesDir = join(dir, 'rules');
    await mkdir(rulesDir);
    for (const [name, source] of Object.entries(RULES)) await writeFile(join(rulesDir, name), source);
    // The same generated traffic recorded twice: as text, and compressed (a name ending in .gz).
    const files = { text: join(dir, 'session.ndjson'), gzip: join(dir, 'session.ndjson.gz') };
    const generated = performance.now();
    await generateSession(files.text, rulesDir);
    const generationMs = performance.now() - generated;
    await generateSession(files.gzip, rulesDir);
    const bytes = { text: (await stat(files.text)).size, gzip: (await stat(files.gzip)).size };
    const rows: string[][] = [];
    const rates: number[] = [];
    const firstVerdicts: number[] = [];
    const streamedRates: number[] = [];
    const fastRates: number[] = [];
    for (let i = 1; i <= REPLAYS; i++) {
      for (const kind of ['text', 'gzip'] as const) {
        const read = performance.now();
        const session = await openRecording(files[kind]);
        const readMs = performance.now() - read;
        const replayed = performance.now();
        // The TUI's re-run on save shows each verdict as it is told: the first of them is when the list starts to say something.
        let firstVerdictMs: number | undefined;
        const result = await replaySession(session, { rulesDir, onDiff: () => (firstVerdictMs ??= performance.now() - replayed) });
        const replayMs = performance.now() - replayed;
        if (kind === 'text' && firstVerdictMs !== undefined) firstVerdicts.push(firstVerdictMs);
        const events = result.journal.filter((entry) => entry.kind === 'webRequest').length;
        if (result.summary.identical !== SESSION_REQUESTS) throw new Error(`replay ${i} (${kind}): ${result.summary.differing} requests differ from the recording`);
        if (kind === 'text') rates.push((session.requests.length / replayMs) * 1000);
        rows.push([`replay ${i}, ${kind}`, fmt(session.requests.length), fmt(events), fmt(readMs), fmt(replayMs), fmt((session.requests.length / replayMs) * 1000), `${result.summary.identical}/${result.summary.requests}`]);
        if (kind !== 'text') continue;
        // The same session through replay v2's fast path (predict and verify, src/engine/replay/).
        const predicted = performance.now();
        const fast = await replayPredicted(session, { rulesDir });
        const fastMs = performance.now() - predicted;
        if (fast.path !== 'fast' || fast.summary.identical !== SESSION_REQUESTS) throw new Error(`replay ${i} (fast path): ${fast.path}, ${fast.fellBack?.reason ?? `${fast.summary.differing} differ`}`);
        fastRates.push((session.requests.length / fastMs) * 1000);
        rows.push([`replay ${i}, text, fast path`, fmt(session.requests.length), '-', fmt(readMs), fmt(fastMs), fmt((session.requests.length / fastMs) * 1000), `${fast.summary.identical}/${fast.summary.requests}`]);
      }
      // As `wrtui replay --json` runs it: the file read while it replays (its reading is in "replay ms").
      const streamed = performance.now();
      const result = await replay(streamedReplayInput(files.text, readSessionEntries(files.text)), { rulesDir, keepJournal: false });
      const streamedMs = performance.now() - streamed;
      if (result.summary.identical !== SESSION_REQUESTS) throw new Error(`replay ${i} (streamed): ${result.summary.differing} requests differ from the recording`);
      streamedRates.push((result.summary.requests / streamedMs) * 1000);
      rows.push([`replay ${i}, streamed`, fmt(result.summary.requests), '-', '(within)', fmt(streamedMs), fmt((result.summary.requests / streamedMs) * 1000), `${result.summary.identical}/${result.summary.requests}`]);
    }
    // The TUI's re-run on save, up to its first verdicts: with the worker pool it refills after
    // each run (the workers boot while the user edits), and without (each run boots its workers),
    // alternating, a pause for the edit before each. Each run stops at its first verdict.
    const session = await openRecording(files.text);
    const pool = await WorkerPool.open(DEFAULT_WORKER_LIMITS.heapLimitMb);
    const firstVerdict = async (workerPool: WorkerPool | undefined): Promise<number> => {
      const stop = new AbortController();
      const started = performance.now();
      let ms = 0;
      await replaySession(session, {
        rulesDir,
        keepJournal: false,
        signal: stop.signal,
        ...(workerPool && { workerPool }),
        onDiff: () => {
          ms ||= performance.now() - started;
          stop.abort();
        },
      });
      workerPool?.refill();
      return ms;
    };
    await firstVerdict(pool); // the session's baseline is traced once, before either is timed
    const saves = { pooled: [] as number[], cold: [] as number[] };
    for (let i = 0; i < SAVES; i++) {
      for (const pooled of i % 2 === 0 ? [true, false] : [false, true]) {
        await sleep(EDIT_PAUSE_MS);
        saves[pooled ? 'pooled' : 'cold'].push(await firstVerdict(pooled ? pool : undefined));
      }
    }
    await pool.close();
    const inTui = await saveToWholeDiffInTui(dir, files.text, rulesDir);
    return [
      `1. Replay throughput: ${fmt(SESSION_REQUESTS)} requests through ${Object.keys(RULES).length} rules, offline`,
      `   session file ${(bytes.text / 1024 / 1024).toFixed(1)} MB (${fmt(bytes.text / SESSION_REQUESTS)} bytes/request); compressed (.gz) ${(bytes.gzip / 1024 / 1024).toFixed(1)} MB ` +
        `(${fmt(bytes.gzip / SESSION_REQUESTS)} bytes/request, ${(bytes.text / bytes.gzip).toFixed(1)}× smaller); generated in ${fmt(generationMs)} ms`,
      table(['run', 'requests', 'events', 'read ms', 'replay ms', 'requests/s', 'identical'], rows),
      `   fast path (replay v2, predict and verify; bench/replay-fast.ts has its CPU per request): ${fmt(median(fastRates))} requests/s median, ${(median(fastRates) / median(rates)).toFixed(1)}× today's engine`,
      `   median (text): ${fmt(median(rates))} requests/s; the first verdicts are there ${fmt(median(firstVerdicts))} ms after it starts (median, text: rules loaded,`,
      `   first requests replayed)`,
      `   streamed (printed output: the file read as it replays, reading included): ${fmt(median(streamedRates))} requests/s (median)`,
      `   save → first verdicts as the TUI re-runs (${SAVES} saves each, alternating, ${EDIT_PAUSE_MS} ms of editing before each): ${fmt(median(saves.pooled))} ms with its`,
      `   worker pool refilled while the user edits (${saves.pooled.map(fmt).join(' ')}), ${fmt(median(saves.cold))} ms booting each run's workers then (${saves.cold.map(fmt).join(' ')})`,
      inTui,
    ].join('\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * What a user waits for: the real `wrtui replay` in tmux (150×40), a rule file saved, until the
 * screen shows the whole updated diff, settled (test/helpers/replay-screen.ts: the re-run seen
 * counting its own verdicts, then the status bar without "compared" for 1.5 s, timed to when that
 * first showed). Reading "all identical" alone took a moment between two runs for the end (a save
 * seen twice stops the first run): it said 548 ms where the screen took 14–18 s. Skipped, saying
 * so, without tmux.
 */
async function saveToWholeDiffInTui(dir: string, file: string, rulesDir: string, requests = SESSION_REQUESTS): Promise<string> {
  const tmuxSocket = join(dir, 'tmux.sock');
  const tmux = (...args: string[]) => execFileAsync('tmux', ['-S', tmuxSocket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  try {
    await tmux('-V');
  } catch {
    return '   save → whole updated diff in the TUI: skipped (no tmux)';
  }
  await execFileAsync(process.execPath, [join(ROOT, 'scripts/build.js')]);
  const command = `env -u CI -u CONTINUOUS_INTEGRATION ${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'bin/wrtui.js'))} replay ${JSON.stringify(file)} --rules ${JSON.stringify(rulesDir)}; sleep 30`;
  const reader = { screen: async () => (await tmux('capture-pane', '-p', '-t', 'replay')).stdout };
  try {
    await tmux('new-session', '-d', '-s', 'replay', '-x', '150', '-y', '40', command);
    const deadline = performance.now() + 180_000;
    // The first whole run: its count seen, then a settled status.
    while (!settledStatus(replayStatusBar(await reader.screen())) || !(await firstRunSeen(reader, requests))) {
      if (performance.now() > deadline) throw new Error(`the replay TUI: no first whole run; its screen: ${await reader.screen()}`);
      await sleep(200);
    }
    const times: number[] = [];
    const name = Object.keys(RULES)[0]!;
    for (let save = 1; save <= 3; save++) {
      await sleep(EDIT_PAUSE_MS);
      const timing = await timeSaveToWholeDiff(reader, () => writeFile(join(rulesDir, name), `${RULES[name]}\n// edit ${save}\n`));
      times.push(timing.ms);
    }
    await tmux('send-keys', '-t', 'replay', 'q');
    return `   save → whole updated diff in the TUI (the real wrtui replay in tmux 150×40, 3 saves of one rule changing nothing, read off the screen): ${fmt(median(times))} ms median (${times.map(fmt).join(' ')}); goal < 1,000`;
  } finally {
    await tmux('kill-server').catch(() => {});
  }
}

/** The first run has listed the whole session (its rows are on screen, the run ended). */
async function firstRunSeen(reader: { screen(): Promise<string> }, requests: number): Promise<boolean> {
  const screen = await reader.screen();
  return / REPLAY /.test(screen) && replayStatusBar(screen).includes(`${requests} requests`);
}

// ── 3. memory against file size ─────────────────────────────────────────────

/** In a child of its own: replays `file` and reports the process's peak RSS while it ran. */
async function replayRssChild(file: string, rulesDir: string, keepJournal: boolean, requests: number): Promise<void> {
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  // The peak so far at each quarter of the requests: flat memory stops rising once the replay is under way.
  const quarters: number[] = [];
  let done = 0;
  const onDiff = () => {
    if (++done % Math.ceil(requests / 4) === 0) quarters.push(Math.max(peak, process.memoryUsage().rss));
  };
  // The TUI reads the recording whole and keeps it (it re-runs it); printed output streams it.
  const streamed = async () => (/\.har(\.gz)?$/.test(file) ? streamedHarInput(await openHarFile(file)) : streamedReplayInput(file, readSessionEntries(file)));
  const result = keepJournal ? await replaySession(await openRecording(file), { rulesDir, onDiff }) : await replay(await streamed(), { rulesDir, keepJournal: false, onDiff });
  peak = Math.max(peak, process.memoryUsage().rss);
  clearInterval(sampler);
  process.send!({ type: 'rss', baseline, peak, quarters, requests: result.summary.requests, identical: result.summary.identical });
  process.exit(0);
}

async function memoryAgainstSize(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wrtui-bench-rss-'));
  try {
    const rulesDir = join(dir, 'rules');
    await mkdir(rulesDir);
    for (const [name, source] of Object.entries(RULES)) await writeFile(join(rulesDir, name), source);
    const rows: string[][] = [];
    for (const requests of [2_500, 10_000, 40_000]) {
      const file = join(dir, `session-${requests}.ndjson`);
      await generateSession(file, rulesDir, requests);
      const bytes = (await stat(file)).size;
      const MiB = 1024 * 1024;
      // The TUI holds the whole session by design; the largest file is for the streamed replay.
      for (const mode of requests > 10_000 ? (['print'] as const) : (['keep', 'print'] as const)) {
        const proc = child(['replay-rss', file, rulesDir, mode, String(requests)]);
        const result = await next<{ type: 'rss'; baseline: number; peak: number; quarters: number[]; requests: number; identical: number }>(proc, 'rss');
        rows.push([fmt(requests), mode === 'keep' ? 'TUI (read whole, journal kept)' : 'printed (streamed)', (bytes / MiB).toFixed(1), (result.baseline / MiB).toFixed(0), result.quarters.map((rss) => (rss / MiB).toFixed(0)).join(' '), (result.peak / MiB).toFixed(0), `${result.identical}/${result.requests}`]);
      }
    }
    // HAR exports with content: bodies are most of such a file. Large bodies are read again when
    // used, not held: from the file, or a gzipped one's private decompressed copy. Then HARs of many
    // small entries, where the entries themselves are what a whole read holds.
    const hars: [entries: number, gzipped: boolean, mode: 'keep' | 'print', bodies: boolean][] = [
      [250, false, 'keep', true],
      [1_000, false, 'keep', true],
      [1_000, false, 'print', true],
      [250, true, 'print', true],
      [10_000, false, 'keep', false],
      [10_000, false, 'print', false],
      [40_000, false, 'print', false],
    ];
    for (const [entries, gzipped, mode, bodies] of hars) {
      const file = join(dir, `${bodies ? 'bodies' : 'small'}-${entries}.har${gzipped ? '.gz' : ''}`);
      await writeHar(file, entries, { gzipped, bodyBytes: bodies ? HAR_BODY_BYTES : 1024 });
      const bytes = (await stat(file)).size;
      const proc = child(['replay-rss', file, rulesDir, mode, String(entries)]);
      const result = await next<{ type: 'rss'; baseline: number; peak: number; quarters: number[]; requests: number; identical: number }>(proc, 'rss');
      const MiB = 1024 * 1024;
      const what = `HAR${gzipped ? ' (gzip)' : ''}, ${bodies ? `${HAR_BODY_BYTES / 1024} KiB` : '1 KiB'} bodies, ${mode === 'keep' ? 'TUI (read whole)' : 'printed (streamed)'}`;
      rows.push([fmt(entries), what, (bytes / MiB).toFixed(1), (result.baseline / MiB).toFixed(0), result.quarters.map((rss) => (rss / MiB).toFixed(0)).join(' '), (result.peak / MiB).toFixed(0), `${result.identical}/${result.requests}`]);
    }
    return [
      '3. Memory against file size: each replay in a fresh process (text recordings, the 10 rules), RSS sampled every 20 ms;',
      '   the TUI reads the file whole and keeps the replay\'s whole journal (it shows it and re-runs it)',
      table(['requests', 'replay for', 'file MB', 'RSS before MiB', 'peak RSS MiB at ¼ ½ ¾ of it', 'peak RSS MiB', 'identical'], rows),
      '   "RSS before" is before the 10 rules\' workers start (each its own V8 heap); printed output streams the recording (read as it is',
      '   replayed, each request let go once compared), so its peak should stop rising once under way and not grow with the file',
      '   A HAR is compared with its own replay without rules, so the 10 rules (a header added to every request) change every one;',
      '   its large bodies are read again when used (from the file, or a gzipped one\'s decompressed copy). Printed, a HAR is read as',
      '   a stream twice (without rules, then with them; the first pass\'s traces wait in a private file), so its peak should not grow',
      '   with the file either',
    ].join('\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const HAR_BODY_BYTES = 400 * 1024;

/** A HAR of `entries` GETs whose responses carry `bodyBytes` each (base64), as DevTools' "with content" export. */
async function writeHar(file: string, entries: number, { gzipped, bodyBytes }: { gzipped: boolean; bodyBytes: number }): Promise<void> {
  const text = Buffer.alloc(bodyBytes, 'wrtui har body ').toString('base64');
  // Written entry by entry: the whole document would pass V8's longest string.
  const out = createWriteStream(file);
  const sink = gzipped ? createGzip() : undefined;
  sink?.pipe(out);
  const target = sink ?? out;
  const write = (chunk: string) => (target.write(chunk) ? Promise.resolve() : new Promise<void>((resolve) => target.once('drain', () => resolve())));
  await write('{"log":{"version":"1.2","creator":{"name":"bench","version":"1"},"entries":[');
  for (let i = 0; i < entries; i++) {
    await write((i > 0 ? ',' : '') + JSON.stringify({
      startedDateTime: new Date(1_800_000_000_000 + i * 10).toISOString(),
      time: 5,
      request: { method: 'GET', url: `http://bodies.test/static/${i}.bin`, httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
      response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', headers: [{ name: 'Content-Type', value: 'application/octet-stream' }], cookies: [], content: { size: bodyBytes, mimeType: 'application/octet-stream', text, encoding: 'base64' }, redirectURL: '', headersSize: -1, bodySize: bodyBytes },
      cache: {},
      timings: { send: 1, wait: 2, receive: 2 },
    }));
  }
  const closed = new Promise<void>((resolve, reject) => out.once('close', resolve).once('error', reject));
  target.end(']}}');
  await closed;
}

// ── 2. recording's cost on live throughput ──────────────────────────────────

async function proxyChild(record: boolean, dir: string, gzip = false): Promise<void> {
  const send = (message: FromProxy) => process.send!(message);
  const engine = await Engine.open({});
  const ca = await loadOrCreateCertificateAuthority(dir);
  const file = join(dir, `live-${process.pid}.ndjson${gzip ? '.gz' : ''}`);
  const recorder = record ? await SessionRecorder.start(engine, { file, redact: false, maxBodySize: 1024 * 1024 }) : undefined;
  let entries = 0;
  engine.journal.subscribe(() => void entries++);
  const proxy = new CaptureProxy({ lifecycle: engine.lifecycle, ca, port: 0, journalBodies: record });
  await proxy.start();
  process.on('message', async (message: ToProxy) => {
    if (message.type === 'usage') {
      const { user, system } = process.cpuUsage();
      send({ type: 'usage', cpuMicros: user + system });
    } else {
      await proxy.stop();
      await recorder?.close();
      await engine.close();
      send({ type: 'stopped', fileBytes: record ? (await stat(file)).size : 0, entries });
      process.exit(0);
    }
  });
  send({ type: 'ready', port: proxy.port });
}

async function loadChild(): Promise<void> {
  const send = (message: FromLoad) => process.send!(message);
  const body = 'x'.repeat(512);
  const origin = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(body.length), 'Set-Cookie': 'b=1; Path=/' });
    res.end(body);
  });
  origin.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  const originPort = (origin.address() as AddressInfo).port;
  process.on('message', async (message: ToLoad) => {
    if (message.type === 'stop') {
      origin.close();
      process.exit(0);
    }
    if (message.type !== 'run') return;
    let counting = false;
    let stop = false;
    let requests = 0;
    let errors = 0;
    const worker = async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      while (!stop) {
        try {
          await new Promise<void>((resolve, reject) => {
            // Absolute-form target to a plain-HTTP proxy; Host names the origin, as a browser's does.
            const request = http.request({ host: '127.0.0.1', port: message.port, path: `http://127.0.0.1:${originPort}/small`, headers: { host: `127.0.0.1:${originPort}` }, agent }, (response) => {
              response.resume();
              response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(String(response.statusCode)))));
            });
            request.on('error', reject);
            request.end();
          });
          if (counting) requests++;
        } catch {
          if (counting) errors++;
        }
      }
      agent.destroy();
    };
    const workers = Array.from({ length: message.concurrency }, worker);
    await sleep(message.warmupMs);
    counting = true;
    send({ type: 'window-start' });
    await sleep(message.windowMs);
    counting = false;
    stop = true;
    await Promise.all(workers);
    send({ type: 'ran', requests, errors, mark: 'done' });
  });
  send({ type: 'origin', port: originPort });
}

const children = new Set<ChildProcess>();
function child(args: string[]): ChildProcess {
  const proc = fork(fileURLToPath(import.meta.url), args, { execArgv: process.execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  children.add(proc);
  proc.once('exit', () => children.delete(proc));
  return proc;
}
function next<T extends { type: string }>(proc: ChildProcess, type: T['type']): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: T) => {
      if (message.type !== type) return;
      proc.off('message', onMessage);
      proc.off('exit', onExit);
      resolve(message);
    };
    const onExit = (code: number | null) => reject(new Error(`child exited (${code}) while waiting for "${type}"`));
    proc.on('message', onMessage);
    proc.once('exit', onExit);
  });
}

async function recordingCost(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wrtui-bench-record-'));
  try {
    const load = child(['load']);
    await next<FromLoad & { type: 'origin' }>(load, 'origin');
    const variants = (['plain', 'record', 'record-gz'] as const).map((kind) => ({ kind, proc: child(['proxy', kind, dir]), port: 0, rates: [] as number[], cpu: [] as number[], errors: 0 }));
    for (const variant of variants) variant.port = (await next<FromProxy & { type: 'ready' }>(variant.proc, 'ready')).port;
    const usage = async (proc: ChildProcess) => {
      const answer = next<FromProxy & { type: 'usage' }>(proc, 'usage');
      proc.send({ type: 'usage' } satisfies ToProxy);
      return (await answer).cpuMicros;
    };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? variants : [...variants].reverse();
      for (const variant of order) {
        const windowStart = next<FromLoad>(load, 'window-start');
        const ran = next<FromLoad & { type: 'ran' }>(load, 'ran');
        load.send({ type: 'run', port: variant.port, warmupMs: WARMUP_MS, windowMs: WINDOW_MS, concurrency: LOAD_CONCURRENCY } satisfies ToLoad);
        await windowStart;
        const cpuBefore = await usage(variant.proc);
        const result = await ran;
        const cpuAfter = await usage(variant.proc);
        variant.rates.push((result.requests / WINDOW_MS) * 1000);
        variant.cpu.push((cpuAfter - cpuBefore) / Math.max(1, result.requests));
        variant.errors += result.errors;
      }
    }
    const stopped: Record<string, FromProxy & { type: 'stopped' }> = {};
    for (const variant of variants) {
      const answer = next<FromProxy & { type: 'stopped' }>(variant.proc, 'stopped');
      variant.proc.send({ type: 'stop' } satisfies ToProxy);
      stopped[variant.kind] = await answer;
    }
    load.send({ type: 'stop' } satisfies ToLoad);
    const [plain, record, recordGz] = variants;
    const rows = variants.map((variant) => [
      variant.kind === 'plain' ? 'proxy' : variant.kind === 'record' ? 'proxy --record x.ndjson' : 'proxy --record x.ndjson.gz',
      fmt(median(variant.rates)),
      variant.rates.map((rate) => fmt(rate)).join(' '),
      fmt(median(variant.cpu)),
      String(variant.errors),
    ]);
    const recorded = stopped.record!;
    const recordedGz = stopped['record-gz']!;
    return [
      `2. Recording's cost on live throughput: small GETs (512-byte body, a Set-Cookie), keep-alive, concurrency ${LOAD_CONCURRENCY}, 127.0.0.1,`,
      `   ${ROUNDS} interleaved rounds of ${WINDOW_MS / 1000} s per variant (after ${WARMUP_MS} ms warm-up)`,
      table(['variant', 'req/s (median)', 'req/s per round', 'proxy CPU µs/req', 'errors'], rows),
      `   with --record: ${fmt((median(record!.rates) / median(plain!.rates)) * 100)} % of the throughput, ${fmt(median(record!.cpu) - median(plain!.cpu))} µs more CPU per request;`,
      `   with --record *.gz: ${fmt((median(recordGz!.rates) / median(plain!.rates)) * 100)} % of the throughput, ${fmt(median(recordGz!.cpu) - median(plain!.cpu))} µs more CPU per request (compression runs on libuv's pool, counted here);`,
      `   session file ${(recorded.fileBytes / 1024 / 1024).toFixed(1)} MB for ${fmt(recorded.entries)} journal entries (${fmt(recorded.fileBytes / Math.max(1, recorded.entries))} bytes/entry); ` +
        `compressed ${(recordedGz.fileBytes / 1024 / 1024).toFixed(1)} MB for ${fmt(recordedGz.entries)} (${fmt(recordedGz.fileBytes / Math.max(1, recordedGz.entries))} bytes/entry)`,
    ].join('\n');
  } finally {
    for (const proc of children) proc.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}

// ── conductor ───────────────────────────────────────────────────────────────

async function conduct(): Promise<void> {
  const watchdog = setTimeout(() => {
    console.error(`bench/replay.ts: still running after ${WATCHDOG_MS / 1000} s, giving up`);
    for (const proc of children) proc.kill('SIGKILL');
    process.exit(1);
  }, WATCHDOG_MS);
  watchdog.unref();
  const sections = new Set((process.env.BENCH_SECTIONS ?? '1,2,3').split(',').map((section) => section.trim()));
  if (sections.has('1')) console.log(await replayThroughput(), '\n');
  if (sections.has('2')) console.log(await recordingCost(), '\n');
  if (sections.has('3')) console.log(await memoryAgainstSize());
  process.exit(0);
}

// ── formatting ──────────────────────────────────────────────────────────────

function fmt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-';
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `   ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')}`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ── entry: the conductor, or one of its children ────────────────────────────

const role = process.argv[2];
if (role === 'proxy') await proxyChild(process.argv[3] !== 'plain', process.argv[4]!, process.argv[3] === 'record-gz');
else if (role === 'load') await loadChild();
else if (role === 'generate') {
  // A recording to try things on: node --import tsx bench/replay.ts generate <file> <requests> <rules dir>
  // (NO_RULES=1: recorded without rules, the rules folder left empty: the no-rules floor's recording).
  await mkdir(process.argv[5]!, { recursive: true });
  if (!process.env.NO_RULES) for (const [name, source] of Object.entries(RULES)) await writeFile(join(process.argv[5]!, name), source);
  await generateSession(process.argv[3]!, process.argv[5]!, Number(process.argv[4]));
  process.exit(0);
} else if (role === 'tui-save') {
  // save → whole updated diff alone: node --import tsx bench/replay.ts tui-save <recording> <requests> <rules dir> (the first rule is saved)
  const dir = await mkdtemp(join(tmpdir(), 'wrtui-bench-tui-save-'));
  console.log(await saveToWholeDiffInTui(dir, process.argv[3]!, process.argv[5]!, Number(process.argv[4])));
  await rm(dir, { recursive: true, force: true });
  process.exit(0);
} else if (role === 'replay-rss') await replayRssChild(process.argv[3]!, process.argv[4]!, process.argv[5] === 'keep', Number(process.argv[6]));
else await conduct();
