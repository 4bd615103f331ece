// The real command: `node bin/wrtui.js replay …` and `wrtui headless --record`, as CI would run
// them. Builds dist/ first, so it never tests a stale build.
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ProxyAgent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toJsonLine } from '../../src/app/json-line.js';
import { devToolsHarProblems } from './devtools-har-loader.js';
import { NO_IMAGES_RULE, recordSession, type Recording } from './session-harness.js';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/wrtui.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function wrtui(args: string[], cwd = ROOT): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

let recording: Recording;
let editedRules: string;
let onlyNoImages: string;

beforeAll(async () => {
  const built = spawnSync(process.execPath, ['scripts/build.js'], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
  recording = await recordSession({
    async traffic(harness, origin) {
      await harness.curl([`${origin.url}/page`]);
      await harness.curl(['-H', 'Sec-Fetch-Dest: image', `${origin.url}/img/a.png`]);
      await harness.curl([`${origin.url}/api`]);
    },
  });
  editedRules = await recording.editedRules({ 'no-images.ts': NO_IMAGES_RULE });
  onlyNoImages = join(recording.dir, 'only-no-images');
  await mkdir(onlyNoImages);
  await writeFile(join(onlyNoImages, 'no-images.ts'), NO_IMAGES_RULE);
}, 90_000);

afterAll(() => recording?.cleanup());

describe('wrtui replay', { timeout: 60_000 }, () => {
  it('--json: the replay\'s journal as headless --json prints one (webRequest events first), then one replayDiff per request and the summary', async () => {
    const run = await wrtui(['replay', recording.file, '--rules', recording.rulesDir, '--json']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const all = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { kind: string; event?: string; index?: number; identical?: boolean; changes?: string[] });
    const firstDiff = all.findIndex((line) => line.kind === 'replayDiff');
    // The same jq filter as for a live session finds the events.
    expect(all.slice(0, firstDiff).filter((line) => line.kind === 'webRequest' && line.event === 'onCompleted')).toHaveLength(3);
    for (const line of all.slice(0, firstDiff)) expect(['webRequest', 'rule', 'cookieChanged', 'log', 'handlerBehaviorChanged', 'runtime']).toContain(line.kind);
    const lines = all.slice(firstDiff);
    expect(lines.map((line) => line.kind)).toEqual(['replayDiff', 'replayDiff', 'replayDiff', 'replaySummary']);
    // Numbered on from the replay journal's entries, so the one stream reads in order.
    const lastJournalSeq = Math.max(...all.slice(0, firstDiff).map((line) => (line as { seq?: number }).seq ?? 0));
    const diffSeqs = lines.slice(0, 3).map((line) => (line as { seq?: number }).seq!);
    expect(diffSeqs[0]).toBeGreaterThan(lastJournalSeq);
    expect(diffSeqs).toEqual([diffSeqs[0], diffSeqs[0]! + 1, diffSeqs[0]! + 2]);
    expect(lines.slice(0, 3).map((line) => [line.index, line.identical, line.changes])).toEqual([
      [0, true, []],
      [1, true, []],
      [2, true, []],
    ]);
    expect(lines[3]).toMatchObject({ requests: 3, identical: 3, differing: 0, baseline: 'recording', source: 'wrtui-session' });
  });

  it('--fail-on-diff exits 0 when the rules behave as recorded', async () => {
    const run = await wrtui(['replay', recording.file, '--rules', recording.rulesDir, '--fail-on-diff']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/3 request\(s\) replayed .*: 3 identical, 0 differ/);
  });

  it('--fail-on-diff exits 1 when a rule edit changes anything, and says what', async () => {
    const run = await wrtui(['replay', recording.file, '--rules', editedRules, '--fail-on-diff']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`#1 GET image ${recording.origin.url}/img/a.png\n    newly blocked by no-images at onBeforeRequest (was 200)`);
    expect(run.stdout).toMatch(/2 identical, 1 differ \(newly-blocked 1\)/);
    const withoutFlag = await wrtui(['replay', recording.file, '--rules', editedRules, '--json', '--diffs-only']);
    expect(withoutFlag.code).toBe(0);
    // --diffs-only: nothing but the differences and the summary, for CI logs.
    expect(withoutFlag.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { kind: string }).kind)).toEqual(['replayDiff', 'replayDiff', 'replayDiff', 'replaySummary']);
  });

  it('a rules folder that does not exist is named, not silently replayed without rules', async () => {
    const run = await wrtui(['replay', join(ROOT, 'fixtures/har/chromium.har'), '--rules', '/nonexistent/wrtui-rules']);
    expect(run.stderr).toContain('wrtui: the rules folder /nonexistent/wrtui-rules does not exist: no rules loaded');
  });

  it('replays a browser HAR directly', async () => {
    const run = await wrtui(['replay', join(ROOT, 'fixtures/har/chromium.har'), '--rules', onlyNoImages, '--json', '--fail-on-diff']);
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(summary).toMatchObject({ kind: 'replaySummary', source: 'har', baseline: 'no-rules', requests: 6, differing: 1, changes: { 'newly-blocked': 1 } });
  });

  it('with --json on a terminal: the bar goes to stderr (the terminal), stdout holds only NDJSON', async () => {
    const out = join(recording.dir, 'tty-out.ndjson');
    // `script` gives the command a terminal; stdout is sent to a file, stderr stays on the terminal.
    const command = `${process.execPath} ${join(ROOT, 'bin/wrtui.js')} replay ${recording.file} --rules ${recording.rulesDir} --json > ${out}`;
    const terminal = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', cwd: ROOT, timeout: 30_000 });
    expect(terminal.status).toBe(0);
    // The file is replayed as it is read: how much of it is read, and how many requests are done.
    expect(terminal.stdout).toMatch(/replaying \[#+\] [\d.]+\/[\d.]+ MB  3 requests/);
    const lines = (await readFile(out, 'utf8')).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).kind).filter((kind: string) => kind.startsWith('replay'))).toEqual([...Array(3).fill('replayDiff'), 'replaySummary']);
  });

  it('exits 2 with the JSON path for an invalid HAR, and for a missing file, a folder or no argument', async () => {
    const bad = join(recording.dir, 'bad.har');
    await writeFile(bad, JSON.stringify({ log: { entries: [{ startedDateTime: '2026-01-01T00:00:00Z', request: { method: 'GET' }, response: { status: 200 } }] } }));
    const run = await wrtui(['replay', bad]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is not a valid HAR file: log.entries[0].request.url: missing');
    expect(run.stdout).toBe('');
    expect((await wrtui(['replay', join(recording.dir, 'nope.ndjson')])).code).toBe(2);
    const folder = await wrtui(['replay', recording.dir]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toBe(`wrtui: ${recording.dir} is a folder, not a recording\n`);
    const noFile = await wrtui(['replay']);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain('replay needs a file');
  });

  it('a session file broken midway: exits 2 naming the file and line, after replaying what came before it', async () => {
    const lines = (await readFile(recording.file, 'utf8')).trimEnd().split('\n');
    const brokenAt = lines.length - 3;
    lines[brokenAt - 1] = '{"kind":"webRequest", broken';
    const broken = join(recording.dir, 'broken-midway.ndjson');
    await writeFile(broken, `${lines.join('\n')}\n`);
    const run = await wrtui(['replay', broken, '--rules', recording.rulesDir, '--json']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`broken-midway.ndjson:${brokenAt}: not JSON`);
    expect(run.stdout).not.toContain('"replaySummary"');
  });

  it('--export-har writes the session as HAR 1.2 (0600) that DevTools loads', async () => {
    const out = join(recording.dir, 'out.har');
    const run = await wrtui(['replay', recording.file, '--export-har', out]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`wrote 3 HAR entries (3 requests) to ${out}\n`);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    const har = JSON.parse(await readFile(out, 'utf8'));
    expect(devToolsHarProblems(har)).toEqual([]);
    expect(har.log.entries.map((entry: { request: { url: string } }) => entry.request.url)).toEqual(['/page', '/img/a.png', '/api'].map((path) => recording.origin.url + path));
  });
});

describe('wrtui replay --export-journal', { timeout: 60_000 }, () => {
  it("writes the recording's journal with every entry whole, as headless --json printed it live (one jq filter serves both), to a new 0600 file", async () => {
    const out = join(recording.dir, 'journal.ndjson');
    const run = await wrtui(['replay', recording.file, '--export-journal', out]);
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    const lines = (await readFile(out, 'utf8')).trim().split('\n');
    // The file itself (format 2) names a request's URL once; the export names it on every event.
    expect((await readFile(recording.file, 'utf8')).includes('"delta"')).toBe(true);
    expect(lines.some((line) => line.includes('"delta"'))).toBe(false);
    const live = recording.live.slice(0, lines.length).map((entry) => toJsonLine(entry));
    expect(lines).toEqual(live);
    const completed = lines.map((line) => JSON.parse(line)).filter((entry) => entry.kind === 'webRequest' && entry.event === 'onCompleted');
    expect(completed.map((entry) => new URL(entry.details.url).pathname)).toEqual(['/page', '/img/a.png', '/api']);
  });

  it('- writes it to stdout; an existing file is not overwritten; a HAR, which has no journal, is refused saying why', async () => {
    const toStdout = await wrtui(['replay', recording.file, '--export-journal', '-']);
    expect(toStdout.code).toBe(0);
    expect(toStdout.stdout.trim().split('\n').map((line) => JSON.parse(line).kind)).toContain('webRequest');
    const existing = join(recording.dir, 'existing.ndjson');
    await writeFile(existing, 'keep me\n');
    const refused = await wrtui(['replay', recording.file, '--export-journal', existing]);
    expect(refused).toMatchObject({ code: 2, stderr: `wrtui: ${existing} exists: not overwritten (--force replaces it)\n` });
    expect(await readFile(existing, 'utf8')).toBe('keep me\n');
    const har = await wrtui(['replay', join(ROOT, 'fixtures/har/chromium.har'), '--export-journal', '-']);
    expect(har.code).toBe(2);
    expect(har.stdout).toBe('');
    expect(har.stderr).toMatch(/chromium\.har is a HAR file: it has no journal \(no events, no listener outcomes\); --export-har converts it/);
  });
});

describe('wrtui headless --record', { timeout: 60_000 }, () => {
  it('records what the proxy sees to a 0600 file, indexed in the state dir, that replays identically', async () => {
    const work = join(recording.dir, 'headless');
    await mkdir(join(work, 'rules'), { recursive: true });
    const file = join(work, 'live.ndjson');
    const child = spawn(process.execPath, [BIN, 'headless', '--port', '0', '--incognito-port', '0', '--json', '--record', file, '--redact'], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const lines = createInterface({ input: child.stdout });
    const listening = await new Promise<{ url: string }>((resolve) => lines.once('line', (line) => resolve(JSON.parse(line))));
    const response = await request(`${recording.origin.url}/page`, { dispatcher: new ProxyAgent({ uri: listening.url, proxyTunnel: false }) });
    expect(await response.body.text()).toContain('page');
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill('SIGINT');
    expect(await exited).toBe(0);

    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ format: 'wrtui-session', redacted: true });
    expect(text).toContain('session=REDACTED; Path=/');
    expect(text).not.toContain('abc123"');
    const index = JSON.parse(await readFile(join(work, '.wrtui/sessions.json'), 'utf8'));
    expect(index.sessions).toEqual([{ file, started: expect.any(String), ended: expect.any(String), requests: 1, redacted: true }]);

    const replay = await wrtui(['replay', file, '--rules', join(work, 'rules'), '--fail-on-diff', '--json'], work);
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout.trim().split('\n').at(-1)!)).toMatchObject({ requests: 1, identical: 1 });
  });
});
