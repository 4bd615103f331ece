// Every stop is a clean stop: a closed terminal window (SIGHUP, the end of the terminal's input)
// stops headless, the TUI and `wrtui browser` as SIGTERM does: the cookie just set is in
// cookies.json and the recording's record in sessions.json has `ended`. Real processes: headless
// with a pipe, the TUI in a real terminal (tmux; kill-window closes it as a window manager would).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ProxyAgent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { Tmux, tmuxAvailable, wrtuiCommand, WRTUI_BIN } from '../helpers/tmux.js';

const CHROMIUM = '/usr/lib/chromium/chromium';
const FIREFOX = '/usr/bin/firefox-esr';

let origin: Origin;
let workDir: string;
let cookieCount = 0;
beforeAll(async () => {
  // Each request sets a new cookie: the one set last, just before the stop, is the one to find.
  origin = await startOrigin((req, res) => res.writeHead(200, { 'Set-Cookie': `${new URL(req.url ?? '/', 'http://x').searchParams.get('name')}=1; Max-Age=3600` }).end('ok'));
  workDir = await mkdtemp(join(tmpdir(), 'wrtui-clean-stop-'));
});
afterAll(async () => {
  await origin.close();
  await rm(workDir, { recursive: true, force: true });
});

/** Sets a cookie of a new name through the proxy; resolves with its name once the response is in. */
async function setCookieThrough(proxyUrl: string): Promise<string> {
  const name = `fresh${++cookieCount}`;
  const response = await request(`${origin.url}/set?name=${name}`, { dispatcher: new ProxyAgent({ uri: proxyUrl, proxyTunnel: false }) });
  await response.body.text();
  expect(response.headers['set-cookie']).toContain(name);
  return name;
}

/** What the state dir says after the stop: the cookies' names, the recordings' records. */
async function stateAfter(stateDir: string): Promise<{ cookies: string[]; sessions: { file: string; ended: string | null; requests: number }[] }> {
  const cookies = JSON.parse(await readFile(join(stateDir, 'cookies.json'), 'utf8')) as { cookies: { key: string }[] };
  const index = JSON.parse(await readFile(join(stateDir, 'sessions.json'), 'utf8')) as { sessions: { file: string; ended: string | null; requests: number }[] };
  return { cookies: cookies.cookies.map((cookie) => cookie.key), sessions: index.sessions };
}

async function waitUntil<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('headless', () => {
  it('SIGHUP stops it as SIGTERM does: the cookie just set is saved, the recording ended in sessions.json, then it ends by the hangup (129)', async () => {
    const dir = join(workDir, 'headless');
    await mkdir(dir);
    const child = spawn(process.execPath, [WRTUI_BIN, 'headless', '--json', '--port', '0', '--incognito-port', '0', '--rules', join(dir, 'no-rules'), '--record', 'session.ndjson'], { cwd: dir });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    const lines = createInterface({ input: child.stdout });
    const seen: string[] = [];
    let listening: string | undefined;
    lines.on('line', (line) => {
      seen.push(line);
      if (line.includes('"kind":"listening"')) listening = (JSON.parse(line) as { url: string }).url;
    });
    const proxyUrl = await waitUntil(() => listening, 'the listening line');

    const name = await setCookieThrough(proxyUrl);
    await waitUntil(() => seen.find((line) => line.includes('"cookieChanged"') && line.includes(name)), 'the cookie in the journal');
    child.kill('SIGHUP'); // at once: well within the jar's write-behind (50 ms)

    expect(await exited, stderr).toEqual({ code: null, signal: 'SIGHUP' });
    expect(stderr).toMatch(/^wrtui stopped on SIGHUP; cookie store saved in /m);
    const state = await stateAfter(join(dir, '.wrtui'));
    expect(state.cookies).toContain(name);
    expect(state.sessions).toEqual([expect.objectContaining({ file: join(dir, 'session.ndjson'), ended: expect.any(String), requests: 1 })]);
  });
});

describe.skipIf(!tmuxAvailable())('a terminal window closing (tmux kill-window: SIGHUP, the end of input, EIO)', () => {
  const commands = [
    { name: 'the TUI', args: [] as string[] },
    ...(existsSync(CHROMIUM) ? [{ name: 'wrtui browser', args: ['browser', 'about:blank', '--headless-browser', '--chromium', CHROMIUM] }] : []),
    ...(existsSync(FIREFOX) ? [{ name: 'wrtui browser --firefox', args: ['browser', 'about:blank', '--headless-browser', '--firefox'] }] : []),
  ];
  it.each(commands)('$name stops cleanly: the cookie just set is saved, the recording ended in sessions.json, nothing on stderr', { timeout: 60_000 }, async ({ name: command, args }) => {
    const dir = join(workDir, command.replace(/\W+/g, '-'));
    await mkdir(dir);
    const tmux = new Tmux(dir);
    try {
      const wrtui = wrtuiCommand([...args, '--port', '0', '--incognito-port', '0', '--rules', join(dir, 'no-rules'), '--record', 'session.ndjson']);
      // stderr to a file: a crash while stopping (EIO, a native assertion) would show there.
      await tmux.start('w', 120, 40, dir, `exec 2>${JSON.stringify(join(dir, 'stderr.txt'))}; ${wrtui}`);
      const screen = await tmux.waitForScreen('w', (text) => /proxy 127\.0\.0\.1:\d+/.test(text), 'the status bar');
      const proxyUrl = `http://${/proxy (127\.0\.0\.1:\d+)/.exec(screen)![1]}`;
      // The pane's shell runs wrtui as its child: watched until it is gone.
      const shellPid = Number((await tmux.command('display-message', '-p', '-t', 'w', '#{pane_pid}')).trim());
      const wrtuiPid = Number((await readFile(`/proc/${shellPid}/task/${shellPid}/children`, 'utf8')).trim().split(' ')[0]);
      expect(wrtuiPid).toBeGreaterThan(0);

      const name = await setCookieThrough(proxyUrl);
      await tmux.command('kill-window', '-t', 'w');

      await waitUntil(() => (alive(wrtuiPid) ? undefined : true), 'wrtui to end', 30_000);
      const state = await stateAfter(join(dir, '.wrtui'));
      expect(state.cookies).toContain(name);
      expect(state.sessions).toEqual([expect.objectContaining({ file: join(dir, 'session.ndjson'), ended: expect.any(String), requests: expect.any(Number) })]);
      expect(await readFile(join(dir, 'stderr.txt'), 'utf8')).toBe('');
    } finally {
      await tmux.close();
    }
  });
});
