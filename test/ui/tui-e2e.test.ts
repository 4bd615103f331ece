// The real `wrtui` binary in a real terminal (tmux): real traffic through the proxy with curl,
// and what the screen shows read back with capture-pane (test/helpers/tmux.ts).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { Tmux, tmuxAvailable, wrtuiCommand as wrtuiShellCommand } from '../helpers/tmux.js';

const run = promisify(execFile);
const SESSION = 'wrtui';

let server: Tmux;
const tmux = (...args: string[]) => server.command(...args);
const screen = (session = SESSION) => server.screen(session);
/** wrtui's start, under CI's load (two browsers' differential tests may run beside this file). */
const STARTUP_MS = 45_000;
const waitForScreen = (test: (text: string) => boolean, what: string, timeoutMs = 20_000, session = SESSION) => server.waitForScreen(session, test, what, timeoutMs);
const press = (...keys: string[]) => server.press(SESSION, ...keys);
const type = (text: string) => server.type(SESSION, text);

/** The list rows (they start with a time at 120 columns, with the method when narrower). */
function listRows(text: string): string[] {
  return text.split('\n').filter((line) => /^[▶ ] (\d\d:\d\d:\d\d|GET |POST )/.test(line));
}

let origin: Origin;
let workDir: string;

beforeAll(async () => {
  if (!tmuxAvailable()) throw new Error('tmux is needed for the TUI end-to-end test: apt-get install -y tmux (.ci/run installs it)');
  origin = await startOrigin((req, res) => {
    if (req.url === '/moved') return res.writeHead(302, { Location: '/hello' }).end();
    if (req.url === '/big.log') {
      // 5 MiB of log lines, one needle near the end.
      const lines = Array.from({ length: 80_000 }, (_, index) => `${String(index).padStart(6, '0')} ${'x'.repeat(58)}`);
      lines[79_000] = `079000 the NEEDLE-42 is here ${'x'.repeat(34)}`;
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      return res.end(lines.join('\n'));
    }
    if (req.url === '/data.json') {
      // Chunked (no Content-Length) and gzip: what Node, nginx and CDNs send most.
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      return res.end(gzipSync(JSON.stringify({ user: { name: 'ann', roles: ['admin', 'dev'] }, padding: 'x'.repeat(2000) })));
    }
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Set-Cookie': 'seen=1; Max-Age=600' });
    res.end(`hello ${req.url}`);
  });
  workDir = await mkdtemp(join(tmpdir(), 'wrtui-tui-e2e-'));
  server = new Tmux(workDir);
  const rulesDir = join(workDir, 'rules');
  await mkdir(rulesDir);
  // One rule, in dry-run: it would cancel /blocked, and the list marks it.
  await writeFile(
    join(rulesDir, 'would-block.ts'),
    `export const manifest = { name: 'would-block', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'], dryRun: true };
export default function background({ chrome }: any) {
  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['*://*/blocked*'] }, ['blocking']);
}
`,
  );
  // In dry-run too: it would add a header and drop one on /other; the Request tab must say which.
  await writeFile(
    join(rulesDir, 'would-tag.ts'),
    `export const manifest = { name: 'would-tag', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'], dryRun: true };
export default function background({ chrome }: any) {
  chrome.webRequest.onBeforeSendHeaders.addListener(
    (d: any) => ({ requestHeaders: [...d.requestHeaders.filter((h: any) => h.name.toLowerCase() !== 'accept'), { name: 'X-Served-Via', value: 'wrtui' }] }),
    { urls: ['*://*/other*'] },
    ['blocking', 'requestHeaders'],
  );
}
`,
  );
  // A rule that calls handlerBehaviorChanged 26 times: 20 accepted, 6 refused.
  await writeFile(
    join(rulesDir, 'hbc-loop.ts'),
    `export const manifest = { name: 'hbc-loop', permissions: ['webRequest'], host_permissions: ['<all_urls>'] };
export default async function background({ chrome }: any) {
  for (let call = 0; call < 26; call++) await new Promise((resolve) => chrome.webRequest.handlerBehaviorChanged(resolve));
}
`,
  );
  await tmux('new-session', '-d', '-s', SESSION, '-x', '120', '-y', '40', '-c', workDir, wrtuiCommand('state'));
});

/** wrtui as a user starts it (tmux.ts), with this test's rules and a state dir of its own. */
function wrtuiCommand(stateDir: string, env: Record<string, string> = {}): string {
  return wrtuiShellCommand(['--port', '0', '--incognito-port', '0', '--rules', join(workDir, 'rules'), '--state-dir', join(workDir, stateDir)], env);
}

afterAll(async () => {
  await server?.close();
  await origin?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('wrtui in a terminal', () => {
  it('shows live requests, their detail and timeline, filters, helps and quits cleanly', { timeout: 90_000 }, async () => {
    // The status bar names the port the proxy really got (--port 0).
    const started = await waitForScreen((text) => /proxy 127\.0\.0\.1:\d+/.test(text) && text.includes('rules 3 active'), 'the status bar', STARTUP_MS);
    const port = /proxy 127\.0\.0\.1:(\d+)/.exec(started)![1]!;
    expect(Number(port)).toBeGreaterThan(0);
    expect(started).toContain(' LIVE ');

    for (const path of ['/hello', '/other', '/blocked']) {
      const { stdout } = await run('curl', ['-s', '--max-time', '10', '-x', `http://127.0.0.1:${port}`, `${origin.url}${path}`]);
      expect(stdout).toBe(`hello ${path}`); // dry-run: the rule would cancel /blocked, but does not
    }
    let text = await waitForScreen((t) => listRows(t).length >= 3 && listRows(t).every((row) => /\s200\s/.test(row)), 'three finished rows');
    const rows = listRows(text);
    expect(rows[0]).toMatch(/GET\s+200\s+other\s+http:\/\/127\.0\.0\.1:\d+\/hello/);
    expect(rows[2]).toMatch(/\/blocked.*~cancel/);
    expect(rows[2]!.startsWith('▶')).toBe(true); // following the newest

    // Up twice to /hello, enter: the detail pane opens on the timeline.
    await press('k', 'k', 'Enter');
    text = await waitForScreen((t) => t.includes('[Timeline]') && t.includes('onCompleted'), 'the timeline');
    for (const event of ['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onResponseStarted', 'onCompleted']) {
      expect(text).toContain(event);
    }
    expect(text).toContain(`GET ${origin.url}/hello`);
    await press('Tab', 'Tab');
    await waitForScreen((t) => t.includes('[Response]') && t.includes('HTTP/1.1 200 OK'), 'the response tab');
    await press('Escape');
    await waitForScreen((t) => !t.includes('[Response]'), 'the detail pane to close');

    // curl sent no cookie for /other: wrtui added the one its jar got from /hello, and says so.
    await press('j', 'Enter', 'BTab'); // the pane opens on the tab last shown (Response)
    text = await waitForScreen((t) => t.includes('[Request]') && t.includes('from the jar'), 'the Request tab of /other');
    expect(text).toMatch(/jar\s+Cookie: seen=1\s+\(from the jar: seen\)/);
    expect(text).toMatch(/client\s+User-Agent: curl/);
    expect(text).toMatch(/~ dry-run\s+would-tag: would add X-Served-Via: wrtui; remove Accept \(request\)/);
    await press('Escape');
    await waitForScreen((t) => !t.includes('[Request]'), 'the detail pane to close again');

    // The filter hides what does not match.
    await press('/');
    await waitForScreen((t) => t.includes('enter apply'), 'the filter prompt');
    await type('hello');
    await press('Enter');
    text = await waitForScreen((t) => t.includes('filter: hello') && listRows(t).length === 1, 'the filtered list');
    expect(listRows(text)[0]).toContain('/hello');
    expect(text).not.toMatch(/127\.0\.0\.1:\d+\/other/);
    await press('f');
    await waitForScreen((t) => listRows(t).length === 3, 'the filter turned off');

    // Help, from the key table.
    await press('?');
    text = await waitForScreen((t) => t.includes('Everywhere') && t.includes('Quit (also Ctrl-C)'), 'the help screen');
    expect(text).toContain('Open the detail pane of the selected request');
    await press('G'); // scrolls the help to its end: the legend of short error names
    await waitForScreen((t) => t.includes('any other: the Response tab names it'), 'the end of the help');
    await press('Escape');
    await waitForScreen((t) => listRows(t).length === 3, 'the list again');

    // q: the terminal is restored (the shell screen again) and wrtui exits 0.
    // The quota after 26 calls: calls left, not used; the 6 refusals counted; spelled out once.
    await press('3');
    text = await waitForScreen((t) => t.includes('hBC = handlerBehaviorChanged'), 'the rules view');
    expect(text).toMatch(/hbc-loop\s.*hBC ▯{10}\s+0 left next in (9m5\ds|10m00s) 6 refused/);
    expect(text).toMatch(/hBC left: hbc-loop 0\/20 \(next in (9m5\ds|10m00s)\) 6 refused/);
    await press('1');

    await press('q');
    text = await waitForScreen((t) => t.includes('WRTUI_EXIT='), 'wrtui to exit');
    expect(text).toContain('WRTUI_EXIT=0');
    expect(text).toMatch(/wrtui stopped: 3 requests seen/);
    expect(text).not.toContain('onCompleted'); // the alternate screen is gone
  });

  it('a 302 curl does not follow stays a completed 302 after 15 s; a followed one is one row, first -> last', { timeout: 90_000 }, async () => {
    await tmux('new-session', '-d', '-s', 'redirects', '-x', '100', '-y', '30', '-c', workDir, wrtuiCommand('state-redirects'));
    const started = await waitForScreen((text) => /proxy 127\.0\.0\.1:\d+/.test(text), 'the status bar', STARTUP_MS, 'redirects');
    const proxy = `http://127.0.0.1:${/proxy 127\.0\.0\.1:(\d+)/.exec(started)![1]!}`;
    await run('curl', ['-s', '--max-time', '10', '-x', proxy, `${origin.url}/moved`]);
    await run('curl', ['-s', '-L', '--max-time', '10', '-x', proxy, `${origin.url}/moved`]);
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    const rows = listRows(await screen('redirects'));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/GET\s+302\s+other\s+http:\/\/127\.0\.0\.1:\d+\/moved -\/-> \/hello\s+0 B\s+\d+ ms\s+unfollowed/);
    expect(rows[0]).not.toMatch(/aborted|ERR|\d+\.\d s/);
    expect(rows[1]).toMatch(/GET\s+200\s+other\s+http:\/\/127\.0\.0\.1:\d+\/moved -> \/hello\s/);
    await tmux('kill-session', '-t', 'redirects');
  });

  it('shows a gzip JSON response pretty without --record, with the bytes transferred in the size column; finds a search hit inside a 5 MiB body', { timeout: 90_000 }, async () => {
    await tmux('new-session', '-d', '-s', 'bodies', '-x', '120', '-y', '40', '-c', workDir, wrtuiCommand('state-bodies'));
    const started = await waitForScreen((text) => /proxy 127\.0\.0\.1:\d+/.test(text), 'the status bar', STARTUP_MS, 'bodies');
    const proxy = `http://127.0.0.1:${/proxy 127\.0\.0\.1:(\d+)/.exec(started)![1]!}`;
    const { stdout } = await run('curl', ['-s', '--compressed', '--max-time', '10', '-x', proxy, `${origin.url}/data.json`]);
    expect(JSON.parse(stdout).user.name).toBe('ann');
    const gzipped = gzipSync(JSON.stringify({ user: { name: 'ann', roles: ['admin', 'dev'] }, padding: 'x'.repeat(2000) })).length;
    const list = await waitForScreen((t) => /\/data\.json\s+\d+ B/.test(t), 'the size of the chunked response', 20_000, 'bodies');
    expect(list).toMatch(new RegExp(`/data\\.json\\s+${gzipped} B`));
    await tmux('send-keys', '-t', 'bodies', 'Enter');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await tmux('send-keys', '-t', 'bodies', 'Tab');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await tmux('send-keys', '-t', 'bodies', 'Tab');
    const text = await waitForScreen((t) => t.includes('[Response]') && t.includes('"roles"'), 'the pretty JSON body', 20_000, 'bodies');
    expect(text).toMatch(/Body \(\d+ B as received\)/);
    expect(text).toMatch(/^\s+"user": \{$/m);
    expect(text).toMatch(/^\s+"name": "ann",$/m);

    // A 5 MiB body, no flags: the search finds the one hit near its end, with its line number.
    await run('curl', ['-s', '-o', '/dev/null', '--max-time', '10', '-x', proxy, `${origin.url}/big.log`]);
    await tmux('send-keys', '-t', 'bodies', 'Escape');
    await waitForScreen((t) => /\/big\.log\s+5\.\d MB/.test(t), 'the 5 MB response', 20_000, 'bodies');
    for (const key of ['G', 'Enter']) {
      await tmux('send-keys', '-t', 'bodies', key);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    await waitForScreen((t) => t.includes('[Response]') && t.includes('000000 xxxx'), 'the big body', 20_000, 'bodies');
    await tmux('send-keys', '-t', 'bodies', '/');
    await waitForScreen((t) => t.includes('search:'), 'the search prompt', 20_000, 'bodies');
    await tmux('send-keys', '-t', 'bodies', '-l', 'needle-42');
    await tmux('send-keys', '-t', 'bodies', 'Enter');
    const found = await waitForScreen((t) => t.includes('/needle-42 line 1/1 · 1 in body'), 'the search hit', 20_000, 'bodies');
    expect(found).toMatch(/line 79001: .*the NEEDLE-42 is here/);
    await tmux('kill-session', '-t', 'bodies');
  });

  it('r resends a request the origin receives again; e edits it in $EDITOR first (here a script that makes it a PUT); w writes a rule that blocks it', { timeout: 90_000 }, async () => {
    const editor = join(workDir, 'edit-request.sh');
    // An editor a person types into: it edits, then reads a line from the terminal.
    await writeFile(
      editor,
      '#!/bin/sh\nsed -i -e "1s/^GET/PUT/" -e "s/^X-Resend: 1$/X-Resend: edited/" "$1"\nprintf "edited body" >> "$1"\necho EDITOR-WAITING\nIFS= read -r typed\nprintf " %s" "$typed" >> "$1"\n',
      { mode: 0o755 },
    );
    await tmux('new-session', '-d', '-s', 'resend', '-x', '120', '-y', '40', '-c', workDir, wrtuiCommand('state-resend', { EDITOR: editor }));
    const started = await waitForScreen((text) => /proxy 127\.0\.0\.1:\d+/.test(text), 'the status bar', STARTUP_MS, 'resend');
    const proxy = `http://127.0.0.1:${/proxy 127\.0\.0\.1:(\d+)/.exec(started)![1]!}`;
    const before = origin.received.length;
    await run('curl', ['-s', '--max-time', '10', '-x', proxy, '-H', 'X-Resend: 1', `${origin.url}/again`]);
    await waitForScreen((t) => /\/again\s/.test(t), 'the request in the list', 20_000, 'resend');
    await tmux('send-keys', '-t', 'resend', 'r');
    await waitForScreen((t) => t.includes('Resent #') && listRows(t).filter((row) => row.includes('/again')).length === 2, 'the resent request', 20_000, 'resend');
    const again = origin.received.slice(before).filter((r) => r.url === '/again');
    expect(again.map((r) => [r.method, r.headers['x-resend']])).toEqual([['GET', '1'], ['GET', '1']]);

    await tmux('send-keys', '-t', 'resend', 'e');
    await waitForScreen((t) => t.includes('EDITOR-WAITING'), 'the editor', 20_000, 'resend');
    // While the user edits, the proxy goes on serving (the editor does not block wrtui's thread).
    const during = await run('curl', ['-s', '--max-time', '5', '-x', proxy, `${origin.url}/while-editing`]);
    expect(during.stdout).toBe('hello /while-editing');
    // The keys go to the editor, not to the TUI behind it.
    await tmux('send-keys', '-t', 'resend', '-l', 'typed-by-user');
    await tmux('send-keys', '-t', 'resend', 'Enter');
    await waitForScreen((t) => t.includes('(edited)') && listRows(t).some((row) => /PUT\s+200\s+\S+\s+\S+\/again/.test(row)), 'the edited request', 20_000, 'resend');
    const edited = origin.received.slice(before).filter((r) => r.url === '/again').at(-1)!;
    expect([edited.method, edited.headers['x-resend'], edited.body.toString()]).toEqual(['PUT', 'edited', 'edited body typed-by-user']);

    // w: a quick rule (declarative) written from the request, acting at once: the URL is blocked from now on.
    await tmux('send-keys', '-t', 'resend', 'w');
    await waitForScreen((t) => t.includes('rule for this URL'), 'the quick rule prompt', 20_000, 'resend');
    await tmux('send-keys', '-t', 'resend', 'Enter');
    await waitForScreen((t) => /Wrote quick rule 1 \(block\) to \S+quick-rules\/rules\.json/.test(t), 'the rule written and loaded', 20_000, 'resend');
    const blocked = await run('curl', ['-s', '--max-time', '10', '-x', proxy, `${origin.url}/again`]).then(() => 'served', () => 'blocked');
    expect(blocked).toBe('blocked');
    await rm(join(workDir, 'rules', 'quick-rules'), { recursive: true });
    await tmux('kill-session', '-t', 'resend');
  });

  it('wrtui stopped (SIGTERM) while $EDITOR holds a request: the editor ends and its file, with the request\'s cookies and tokens, is removed at once', { timeout: 60_000 }, async () => {
    const editor = join(workDir, 'stuck-editor.sh');
    const told = join(workDir, 'stuck-editor-file');
    // An editor the user never leaves: it says which file it got, then waits.
    await writeFile(editor, `#!/bin/sh\nprintf "%s" "$1" > ${JSON.stringify(told)}\nexec sleep 60\n`, { mode: 0o755 });
    await tmux('new-session', '-d', '-s', 'stuck', '-x', '120', '-y', '40', '-c', workDir, wrtuiCommand('state-stuck', { EDITOR: editor }));
    const started = await waitForScreen((text) => /proxy 127\.0\.0\.1:\d+/.test(text), 'the status bar', STARTUP_MS, 'stuck');
    const proxy = `http://127.0.0.1:${/proxy 127\.0\.0\.1:(\d+)/.exec(started)![1]!}`;
    await run('curl', ['-s', '--max-time', '10', '-x', proxy, '-H', 'Cookie: session=secret', `${origin.url}/to-edit`]);
    await waitForScreen((t) => /\/to-edit\s/.test(t), 'the request in the list', 20_000, 'stuck');
    await tmux('send-keys', '-t', 'stuck', 'e');
    let file = '';
    for (let waited = 0; !file && waited < 20_000; waited += 100) {
      file = await readFile(told, 'utf8').catch(() => '');
      if (!file) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await readFile(file, 'utf8')).toContain('Cookie: session=secret');
    // The pane runs a shell, whose child is wrtui (env execs node).
    const panePid = (await tmux('display-message', '-p', '-t', 'stuck', '#{pane_pid}')).trim();
    const wrtuiPid = (await run('pgrep', ['-P', panePid])).stdout.trim().split('\n')[0]!;
    process.kill(Number(wrtuiPid), 'SIGTERM');
    await waitForScreen((t) => t.includes('WRTUI_EXIT='), 'wrtui gone', 20_000, 'stuck');
    expect(existsSync(file)).toBe(false);
    expect(existsSync(dirname(file))).toBe(false);
    await tmux('kill-session', '-t', 'stuck');
  });

  it('a breakpoint pauses a curl request until X cancels it (curl sees the failure), and another until u redirects it (curl follows)', { timeout: 90_000 }, async () => {
    await tmux('new-session', '-d', '-s', 'pause', '-x', '140', '-y', '40', '-c', workDir, wrtuiCommand('state-pause'));
    const started = await waitForScreen((text) => /proxy 127\.0\.0\.1:\d+/.test(text), 'the status bar', STARTUP_MS, 'pause');
    const proxy = `http://127.0.0.1:${/proxy 127\.0\.0\.1:(\d+)/.exec(started)![1]!}`;
    const keys = async (...list: string[]) => {
      for (const key of list) {
        await tmux('send-keys', '-t', 'pause', key);
        await new Promise((resolve) => setTimeout(resolve, 80));
      }
    };
    await keys('i');
    // The prompt first (on a loaded machine it takes a moment), then clear its suggestion and type.
    await waitForScreen((t) => t.includes('breakpoint:') && t.includes('stage (request|send|response|auth)'), 'the breakpoint prompt', 20_000, 'pause');
    await keys('C-u');
    await tmux('send-keys', '-t', 'pause', '-l', 'onBeforeRequest path:^/(stop|move)');
    await keys('Enter');
    await waitForScreen((t) => t.includes('breakpoint onBeforeRequest path:^/(stop|move)'), 'the breakpoint in the status bar', 20_000, 'pause');

    const cancelled = run('curl', ['-s', '--max-time', '20', '-x', proxy, `${origin.url}/stop`]).then(
      () => 'succeeded',
      (error: { code: number }) => `failed (curl exit ${error.code})`,
    );
    await waitForScreen((t) => t.includes('1 paused') && /\/stop\s.*PAUSED/.test(t), 'the paused request', 20_000, 'pause');
    await new Promise((resolve) => setTimeout(resolve, 1500)); // still paused after a while: no timeout
    expect(await screen('pause')).toContain('1 paused');
    await keys('X');
    // A cancel answers HTTP/1 with a head clients must reject (two Content-Lengths): curl exits 18 (docs/semantics.md, Capture).
    expect(await cancelled).toMatch(/^failed \(curl exit 18\)$/);

    const followed = run('curl', ['-s', '-L', '--max-time', '20', '-x', proxy, `${origin.url}/move`]);
    await waitForScreen((t) => /\/move\s.*PAUSED/.test(t), 'the second paused request', 20_000, 'pause');
    await keys('u');
    await waitForScreen((t) => t.includes('redirect to:'), 'the redirect prompt', 20_000, 'pause');
    await keys('C-u');
    await tmux('send-keys', '-t', 'pause', '-l', `${origin.url}/hello`);
    await keys('Enter');
    expect((await followed).stdout).toBe('hello /hello');
    await tmux('kill-session', '-t', 'pause');
  });

  it('SIGTERM restores the terminal and stops cleanly too', { timeout: 90_000 }, async () => {
    await tmux('new-session', '-d', '-s', 'term', '-x', '100', '-y', '30', '-c', workDir, wrtuiCommand('state-term'));
    await waitForScreen((text) => /proxy 127\.0\.0\.1:\d+/.test(text), 'the status bar', STARTUP_MS, 'term');
    // The pane runs sh, whose child is wrtui (env execs node).
    const shell = (await tmux('display-message', '-p', '-t', 'term', '#{pane_pid}')).trim();
    const { stdout } = await run('ps', ['-o', 'pid=', '--ppid', shell]);
    const pid = Number(stdout.trim().split('\n')[0]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGTERM');
    const text = await waitForScreen((t) => t.includes('WRTUI_EXIT='), 'wrtui to exit', 20_000, 'term');
    expect(text).toContain('WRTUI_EXIT=0');
    expect(text).toContain('wrtui stopped');
    expect(text).not.toContain(' LIVE ');
  });
});
