// `wrtui replay FILE` in the modes that print only the report (readable diffs and summary,
// --json --diffs-only, --fail-on-diff) is given by the fast path (predict and verify,
// docs/replay-engine.md). What the user sees must be byte for byte what today's engine prints
// (WRTUI_REPLAY_FAST=0), timing aside, with the recorded rules (the fast path runs) and with a
// changed rule (it hands the run over to today's engine). The real command, from a fresh build.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_RULES, recordSession, rule, type Recording } from './session-harness.js';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/wrtui.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function wrtui(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The output with its timing (which differs between any two runs) blanked out. */
function timingAside(text: string): string {
  return text
    .replace(/replayed in \d+ ms \(\d+\/s\)/g, 'replayed in _ ms (_/s)')
    .replace(/"durationMs":\d+/g, '"durationMs":_')
    .replace(/"requestsPerSecond":\d+/g, '"requestsPerSecond":_');
}

/** The same command through the fast path and through today's engine. */
async function bothEngines(args: string[]): Promise<{ fast: Run; today: Run; path: string }> {
  const fast = await wrtui(args, { WRTUI_REPLAY_EXPLAIN: '1' });
  const today = await wrtui(args, { WRTUI_REPLAY_FAST: '0' });
  // The explanation is the one line the fast path's run adds (asked for by WRTUI_REPLAY_EXPLAIN).
  const explained = fast.stderr.split('\n').find((line) => line.startsWith('wrtui: replayed by the ')) ?? '';
  return { fast: { ...fast, stderr: fast.stderr.replace(`${explained}\n`, '') }, today, path: explained };
}

const RULES: Record<string, string> = {
  ...BASE_RULES,
  // Stateful: every request's header depends on all before it.
  'counter.ts': rule('counter', `  let n = 0; chrome.webRequest.onBeforeSendHeaders.addListener((d: any) => ({ requestHeaders: [...d.requestHeaders, { name: 'X-Count', value: String(++n) }] }), { urls: ['<all_urls>'] }, ['blocking', 'requestHeaders']);`),
  'block-after-two.ts': rule('block-after-two', `  let seen = 0; chrome.webRequest.onBeforeRequest.addListener(() => (++seen > 2 ? { cancel: true } : {}), { urls: ['*://*/img/*'] }, ['blocking']);`),
  'count-cookies.ts': rule('count-cookies', `  let changes = 0; chrome.cookies.onChanged.addListener(() => { changes++; });`),
};
const CHANGED_COUNTER = rule('counter', `  let n = 10; chrome.webRequest.onBeforeSendHeaders.addListener((d: any) => ({ requestHeaders: [...d.requestHeaders, { name: 'X-Count', value: String(++n) }] }), { urls: ['<all_urls>'] }, ['blocking', 'requestHeaders']);`);
const MOVED_THRESHOLD = rule('block-after-two', `  let seen = 0; chrome.webRequest.onBeforeRequest.addListener(() => (++seen > 1 ? { cancel: true } : {}), { urls: ['*://*/img/*'] }, ['blocking']);`);

let recording: Recording;
let changedRules: string;

beforeAll(async () => {
  const built = spawnSync(process.execPath, ['scripts/build.js'], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
  recording = await recordSession({
    rules: RULES,
    async traffic(harness, origin) {
      await harness.curl([`${origin.url}/page`]); // sets a cookie
      await harness.curl(['-L', `${origin.url}/r`]); // a redirect followed
      for (const name of ['a', 'b', 'c', 'd']) await harness.curl(['-H', 'Sec-Fetch-Dest: image', `${origin.url}/img/${name}.png`]); // the last two blocked
      await harness.curl(['-d', 'x=1', `${origin.url}/form`]);
      await harness.curl([`${origin.url}/api`]); // reads the cookie
      await harness.curl([`${origin.url}/auth`]); // 401, credentials from a rule, 200
      await harness.curl([`${origin.url}/tracker/pixel.gif`]); // cancelled
      await harness.curl(['http://127.0.0.1:1/refused']); // a network error
    },
  });
  changedRules = await recording.editedRules({ 'counter.ts': CHANGED_COUNTER, 'block-after-two.ts': MOVED_THRESHOLD });
}, 120_000);

afterAll(() => recording?.cleanup());

describe('wrtui replay prints the same report from the fast path as from today\'s engine', { timeout: 90_000 }, () => {
  it('readable, with the recorded rules: the fast path gives it, byte for byte today\'s output', async () => {
    const { fast, today, path } = await bothEngines(['replay', recording.file, '--rules', recording.rulesDir]);
    expect(path).toBe('wrtui: replayed by the fast path');
    expect(today.code).toBe(0);
    expect(today.stdout).toMatch(/identical, 0 differ/);
    expect(fast.code).toBe(today.code);
    expect(timingAside(fast.stdout)).toBe(timingAside(today.stdout));
    expect(fast.stderr).toBe(today.stderr);
  });

  it('--json --diffs-only --fail-on-diff, with the recorded rules: the same replayDiff lines (seq and time included) and summary', async () => {
    const { fast, today, path } = await bothEngines(['replay', recording.file, '--rules', recording.rulesDir, '--json', '--diffs-only', '--fail-on-diff']);
    expect(path).toBe('wrtui: replayed by the fast path');
    expect(today.code).toBe(0);
    expect(today.stdout.split('\n').filter((line) => line.includes('"kind":"replayDiff"')).length).toBeGreaterThan(8);
    expect(fast.code).toBe(today.code);
    expect(timingAside(fast.stdout)).toBe(timingAside(today.stdout));
    expect(fast.stderr).toBe(today.stderr);
  });

  it('readable --fail-on-diff, with two rules changed: handed over to today\'s engine, the same differences and exit status 1', async () => {
    const { fast, today, path } = await bothEngines(['replay', recording.file, '--rules', changedRules, '--fail-on-diff']);
    expect(path).toMatch(/^wrtui: replayed by the slow path: request \S+ \(\w+\): /);
    expect(today.code).toBe(1);
    expect(today.stdout).toMatch(/newly-blocked/);
    expect(fast.code).toBe(today.code);
    expect(timingAside(fast.stdout)).toBe(timingAside(today.stdout));
    expect(fast.stderr).toBe(today.stderr);
  });

  it('--json --diffs-only, with two rules changed: the same replayDiff lines and summary as today\'s engine', async () => {
    const { fast, today, path } = await bothEngines(['replay', recording.file, '--rules', changedRules, '--json', '--diffs-only']);
    expect(path).toMatch(/^wrtui: replayed by the slow path: /);
    expect(today.stdout).toMatch(/"identical":false/);
    expect(fast.code).toBe(today.code);
    expect(timingAside(fast.stdout)).toBe(timingAside(today.stdout));
    expect(fast.stderr).toBe(today.stderr);
  });

  it('a recording past the size read whole (WRTUI_REPLAY_READ_WHOLE_MAX_MB) is streamed through today\'s engine, with the same report', async () => {
    const args = ['replay', recording.file, '--rules', recording.rulesDir];
    const streamed = await wrtui(args, { WRTUI_REPLAY_EXPLAIN: '1', WRTUI_REPLAY_READ_WHOLE_MAX_MB: '0' });
    const today = await wrtui(args, { WRTUI_REPLAY_FAST: '0' });
    expect(streamed.stderr).not.toMatch(/replayed by the/);
    expect(streamed.code).toBe(0);
    expect(timingAside(streamed.stdout)).toBe(timingAside(today.stdout));
  });

  it('a browser persona, which the fast path would hand over, streams through today\'s engine without reading the file whole first', async () => {
    const args = ['replay', recording.file, '--rules', recording.rulesDir, '--persona', 'chrome'];
    const run = await wrtui(args, { WRTUI_REPLAY_EXPLAIN: '1' });
    const today = await wrtui(args, { WRTUI_REPLAY_FAST: '0' });
    expect(run.stderr).not.toMatch(/replayed by the/);
    expect(run.code).toBe(today.code);
    expect(timingAside(run.stdout)).toBe(timingAside(today.stdout));
  });

  it('--json with the journal stays on today\'s engine (the fast path makes no webRequest entries)', async () => {
    const run = await wrtui(['replay', recording.file, '--rules', recording.rulesDir, '--json'], { WRTUI_REPLAY_EXPLAIN: '1' });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toMatch(/replayed by the/);
    expect(run.stdout).toMatch(/"kind":"webRequest"/);
  });
});
