// What a new user trips on, in the real `wrtui` binary in a real terminal (tmux): prompts that
// replace their suggestion and use the width they have, the scheme and the resent mark in the
// list, and the mouse (xterm SGR reports sent as the terminal would send them).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { Tmux, tmuxAvailable, wrtuiCommand } from '../helpers/tmux.js';

const run = promisify(execFile);
/** wrtui's start, under load (other end-to-end tests may run beside this file). */
const STARTUP_MS = 45_000;

let server: Tmux;
let origin: Origin;
let workDir: string;

beforeAll(async () => {
  if (!tmuxAvailable()) throw new Error('tmux is needed for the TUI end-to-end test: apt-get install -y tmux (.ci/run installs it)');
  origin = await startOrigin((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(`hello ${req.url}`);
  });
  workDir = await mkdtemp(join(tmpdir(), 'wrtui-papercuts-e2e-'));
  await mkdir(join(workDir, 'rules'));
  server = new Tmux(workDir);
  // A session that stays: tmux's server exits with its last session, and a test starting the next
  // one just then would meet a server on its way out.
  await server.start('keep', 80, 24, workDir, 'sleep 600');
});

afterAll(async () => {
  await server?.close();
  await origin?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** wrtui in its own tmux session; resolves with the proxy's URL once the status bar shows it. */
async function start(session: string, columns: number, extra: string[] = []): Promise<string> {
  const args = ['--port', '0', '--incognito-port', '0', '--rules', join(workDir, 'rules'), '--state-dir', join(workDir, `state-${session}`), ...extra];
  await server.start(session, columns, 30, workDir, wrtuiCommand(args));
  const text = await server.waitForScreen(session, (t) => /proxy 127\.0\.0\.1:\d+/.test(t), 'the status bar', STARTUP_MS);
  return `http://127.0.0.1:${/proxy 127\.0\.0\.1:(\d+)/.exec(text)![1]!}`;
}

const curl = (proxy: string, path: string) => run('curl', ['-s', '--max-time', '10', '-x', proxy, `${origin.url}${path}`]);
/** The list rows (a row starts with the marker, then the clock or the method). */
const listRows = (text: string) => text.split('\n').filter((line) => /^[▶ ] (\d\d:\d\d:\d\d|GET |POST |PUT )/.test(line));
/** An xterm SGR mouse report at 0-based column x, row y. */
const sgr = (code: number, x: number, y: number, release = false) => `\x1b[<${code};${x + 1};${y + 1}${release ? 'm' : 'M'}`;
const paneFlag = async (session: string, flag: string) => (await server.command('display-message', '-p', '-t', session, `#{${flag}}`)).trim();

describe('prompts', () => {
  for (const columns of [80, 120]) {
    it(`at ${columns} columns: typing over "block" writes a block rule (not "blockblock"); the breakpoint prompt shows the whole filter typed`, { timeout: 90_000 }, async () => {
      const session = `prompt${columns}`;
      const proxy = await start(session, columns);
      await curl(proxy, `/shop-${columns}`);
      await server.waitForScreen(session, (t) => t.includes(`/shop-${columns}`), 'the request in the list');
      await server.press(session, 'w');
      await server.waitForScreen(session, (t) => /rule for this URL: block\s*$/m.test(t), 'the quick rule prompt, its suggestion selected');
      for (const char of 'block') await server.type(session, char);
      await server.waitForScreen(session, (t) => /rule for this URL: block\s*$/m.test(t), 'the suggestion replaced by what was typed');
      await server.press(session, 'Enter');
      await server.waitForScreen(session, (t) => /Wrote quick rule \d+ \(block/.test(t.replace(/\n/g, '')), 'the rule written');
      // One block rule for exactly this URL in the quick rules' ruleset (docs/quick-rules.md).
      const ruleset = JSON.parse(await readFile(join(workDir, 'rules', 'quick-rules', 'rules.json'), 'utf8')) as { action: { type: string }; condition: { urlFilter?: string } }[];
      expect(ruleset.filter((rule) => rule.action.type === 'block' && rule.condition.urlFilter?.includes(`/shop-${columns}`))).toHaveLength(1);

      // A command that does nothing says why.
      await server.press(session, 'w');
      await server.waitForScreen(session, (t) => /rule for this URL: block\s*$/m.test(t), 'the quick rule prompt again');
      await server.type(session, 'blockblock');
      await server.press(session, 'Enter');
      await server.waitForScreen(session, (t) => t.includes('No rule written: one of: block'), 'why nothing was written');

      // The breakpoint prompt: a short label, the text gets the rest of the line.
      const filter = 'onBeforeRequest host:shop.example.test path:^/checkout';
      await server.press(session, 'i');
      await server.waitForScreen(session, (t) => t.includes('breakpoint:') && t.includes('stage (request|send|response|auth)'), 'the breakpoint prompt');
      await server.type(session, filter);
      const shown = await server.waitForScreen(session, (t) => t.includes(`breakpoint: ${filter}`), 'the whole filter on the prompt line');
      expect(shown).not.toContain('onBeforeRequest onBeforeRequest');
      await server.press(session, 'Escape');
      await server.command('kill-session', '-t', session);
    });
  }
});

describe('the list', () => {
  it('shows the scheme of every row at 80 columns; a resend is marked "resent" and R selects the request it resent', { timeout: 90_000 }, async () => {
    const session = 'marks';
    const proxy = await start(session, 80);
    await curl(proxy, '/first');
    await curl(proxy, '/second');
    await server.waitForScreen(session, (t) => listRows(t).length === 2 && listRows(t).every((row) => /\s200\s/.test(row)), 'two rows');
    for (const row of listRows(await server.screen(session))) expect(row).toMatch(/ http:\/\/127\.0\.0\.1:\d+\/(first|second) /);
    await server.press(session, 'k'); // /first
    await server.press(session, 'r');
    const text = await server.waitForScreen(session, (t) => listRows(t).length === 3 && /\/first .*resent\s*$/.test(listRows(t)[2] ?? ''), 'the resent row, marked');
    expect(listRows(text)[0]).not.toMatch(/resent/);
    await server.press(session, 'G'); // the resend, newest
    await server.press(session, 'R');
    await server.waitForScreen(session, (t) => (listRows(t)[0] ?? '').startsWith('▶') && listRows(t)[0]!.includes('/first'), 'the original selected');
    await server.command('kill-session', '-t', session);
  });
});

describe('the mouse', () => {
  it('a click selects a row, a second opens it, a click on a tab shows it, the wheel scrolls; mouse reporting is off again after q', { timeout: 90_000 }, async () => {
    const session = 'mouse';
    const proxy = await start(session, 120);
    expect(await paneFlag(session, 'mouse_sgr_flag')).toBe('1');
    for (const path of ['/one', '/two', '/three']) await curl(proxy, path);
    await server.waitForScreen(session, (t) => listRows(t).length === 3 && listRows(t).every((row) => /\s200\s/.test(row)), 'three rows');
    // Rows: the status bar (2 lines), the list's title and header, then the requests.
    await server.type(session, sgr(0, 30, 4) + sgr(0, 30, 4, true));
    await server.waitForScreen(session, (t) => (listRows(t)[0] ?? '').startsWith('▶') && listRows(t)[0]!.includes('/one'), 'the clicked row selected');
    await server.type(session, sgr(0, 30, 4) + sgr(0, 30, 4, true));
    const opened = await server.waitForScreen(session, (t) => t.includes('[Timeline]'), 'the detail pane opened by the second click');
    // The tab bar is the first row of the pane, under the list; click on "Response".
    const lines = opened.split('\n');
    const barRow = lines.findIndex((line) => line.includes('[Timeline]'));
    const column = lines[barRow]!.indexOf(' Response ') + 2;
    await server.type(session, sgr(0, column, barRow) + sgr(0, column, barRow, true));
    await server.waitForScreen(session, (t) => t.includes('[Response]'), 'the Response tab after a click');
    // The wheel over the list moves the selection down.
    await server.type(session, sgr(65, 30, 4));
    await server.waitForScreen(session, (t) => listRows(t).some((row) => row.startsWith('▶') && row.includes('/three')), 'the wheel moved the selection');
    await server.press(session, 'q');
    await server.waitForScreen(session, (t) => t.includes('WRTUI_EXIT='), 'wrtui gone');
    expect(await paneFlag(session, 'mouse_sgr_flag')).toBe('0');
    expect(await paneFlag(session, 'mouse_standard_flag')).toBe('0');
    await server.command('kill-session', '-t', session);
  });

  it('--no-mouse does not ask the terminal for mouse reports; SIGHUP turns the reports off again', { timeout: 90_000 }, async () => {
    await start('nomouse', 100, ['--no-mouse']);
    expect(await paneFlag('nomouse', 'mouse_standard_flag')).toBe('0');
    await server.command('kill-session', '-t', 'nomouse');
    await start('hup', 100);
    expect(await paneFlag('hup', 'mouse_standard_flag')).toBe('1');
    const shell = (await server.command('display-message', '-p', '-t', 'hup', '#{pane_pid}')).trim();
    const { stdout } = await run('ps', ['-o', 'pid=', '--ppid', shell]);
    process.kill(Number(stdout.trim().split('\n')[0]), 'SIGHUP');
    await server.waitForScreen('hup', (t) => t.includes('WRTUI_EXIT='), 'wrtui gone after SIGHUP');
    expect(await paneFlag('hup', 'mouse_standard_flag')).toBe('0');
    await server.command('kill-session', '-t', 'hup');
  });
});

describe('WebSocket messages', () => {
  it('a real echo through the proxy: the 101 row counts the bytes exchanged, the Response tab lists each message both ways, ws: filters on their text', { timeout: 90_000 }, async () => {
    const echo = http.createServer((_req, res) => res.end('not a socket'));
    const sockets = new WebSocketServer({ server: echo });
    sockets.on('connection', (ws) => ws.on('message', (message) => ws.send(`echo ${String(message)}`)));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const echoPort = (echo.address() as AddressInfo).port;
    try {
      const session = 'ws';
      const proxy = await start(session, 120);
      const proxyPort = Number(new URL(proxy).port);
      await curl(proxy, '/plain');
      const replies: string[] = [];
      const ws = new WebSocket(`ws://127.0.0.1:${echoPort}/chat`, { createConnection: () => net.connect(proxyPort, '127.0.0.1') });
      await new Promise<void>((resolve, reject) => {
        ws.on('open', () => ws.send('hello wrtui'));
        ws.on('message', (message) => {
          replies.push(String(message));
          if (replies.length === 1) ws.send('second');
          else resolve();
        });
        ws.on('error', reject);
      });
      expect(replies).toEqual(['echo hello wrtui', 'echo second']);
      // 11 + 6 sent, 16 + 11 received: 44 bytes of messages.
      await server.waitForScreen(session, (t) => listRows(t).some((row) => /GET\s+101\s+ws\s+ws:\/\/127\.0\.0\.1:\d+\/chat\s+44 B/.test(row)), 'the WebSocket row with the bytes exchanged');
      await server.press(session, 'Enter');
      await server.waitForScreen(session, (t) => t.includes('[Timeline]'), 'the detail pane');
      await server.press(session, 'Tab', 'Tab');
      const tab = await server.waitForScreen(session, (t) => t.includes('[Response]') && t.includes('Messages (4: 2 sent'), 'the messages in the Response tab');
      expect(tab).toMatch(/→ \d\d:\d\d:\d\d\.\d{3}\s+11 B text\s+hello wrtui/);
      expect(tab).toMatch(/← \d\d:\d\d:\d\d\.\d{3}\s+16 B text\s+echo hello wrtui/);
      await server.press(session, 'Escape');
      await server.press(session, '/');
      await server.type(session, 'ws:"echo second"');
      await server.press(session, 'Enter');
      await server.waitForScreen(session, (t) => listRows(t).length === 1 && listRows(t)[0]!.includes('/chat'), 'only the WebSocket left by ws:');
      ws.close();
      await server.command('kill-session', '-t', session);
    } finally {
      sockets.close();
      echo.closeAllConnections();
      echo.close();
    }
  });
});
