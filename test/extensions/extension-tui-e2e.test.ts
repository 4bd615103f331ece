// The promise, as a new user lives it, in a real terminal: `wrtui --extension <dir>` on
// an extension written for Chrome, its listeners acting on real traffic; an infinite loop saved
// into it while the proxy and the UI keep serving; the fix saved, and the extension back.
import { execFile, execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrigin, type Origin } from '../helpers/origin.js';

const run = promisify(execFile);
const BIN = join(process.cwd(), 'bin/wrtui.js');
const FIXTURE = join(process.cwd(), 'fixtures/extensions/mv3-blocker');

let origin: Origin;
let workDir: string;
let extensionDir: string;

const tmux = async (...args: string[]) => (await run('tmux', ['-S', join(workDir, 'tmux.sock'), '-f', '/dev/null', ...args])).stdout;
const screen = () => tmux('capture-pane', '-p', '-t', 'wrtui');
async function waitForScreen(test: (text: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    last = await screen().catch((error: Error) => `(capture failed: ${error.message})`);
    if (test(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}; the screen:\n${last}`);
}
async function press(key: string): Promise<void> {
  await tmux('send-keys', '-t', 'wrtui', key);
  await new Promise((resolve) => setTimeout(resolve, 80));
}
async function curl(port: string, path: string): Promise<{ code: number; stdout: string; ms: number }> {
  const started = performance.now();
  try {
    const { stdout } = await run('curl', ['-s', '--max-time', '20', '-x', `http://127.0.0.1:${port}`, `${origin.url}${path}`]);
    return { code: 0, stdout, ms: performance.now() - started };
  } catch (error) {
    return { code: (error as { code: number }).code, stdout: '', ms: performance.now() - started };
  }
}

beforeAll(async () => {
  execFileSync('tmux', ['-V'], { stdio: 'ignore' });
  origin = await startOrigin((req, res) => res.end(`origin ${req.url} ${req.headers['x-mv3-blocker'] ?? '-'}`));
  workDir = await mkdtemp(join(tmpdir(), 'wrtui-extension-e2e-'));
  extensionDir = join(workDir, 'my-extension');
  await cp(FIXTURE, extensionDir, { recursive: true });
  await mkdir(join(workDir, 'rules'));
  const command = [
    'env -u CI -u CONTINUOUS_INTEGRATION',
    `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`,
    `--port 0 --incognito-port 0 --listener-timeout 1000 --rules ${JSON.stringify(join(workDir, 'rules'))}`,
    `--extension ${JSON.stringify(extensionDir)} --state-dir ${JSON.stringify(join(workDir, 'state'))}`,
    '; echo WRTUI_EXIT=$?; sleep 60',
  ].join(' ');
  await tmux('new-session', '-d', '-s', 'wrtui', '-x', '140', '-y', '40', '-c', workDir, command);
});

afterAll(async () => {
  await tmux('kill-server').catch(() => {});
  await origin?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('wrtui --extension on an extension written for Chrome', () => {
  it('acts on real traffic; an infinite loop saved into it never stops the proxy or the UI; the fix reloads it', { timeout: 120_000 }, async () => {
    const started = await waitForScreen((text) => /proxy 127\.0\.0\.1:\d+/.test(text) && text.includes('rules 1 active'), 'the status bar');
    const port = /proxy 127\.0\.0\.1:(\d+)/.exec(started)![1]!;
    expect((await curl(port, '/page')).stdout).toBe('origin /page npngpgadjklogcjnddakfnmbbkeidjap');
    expect((await curl(port, '/blocked/x.png')).code).not.toBe(0);

    await press('3');
    await waitForScreen((t) => /MV3 Blocker\s+▶ running/.test(t), 'the extension running in the rules view');

    // The everyday slip: a loop that never ends, saved into the service worker.
    const source = await readFile(join(extensionDir, 'background.js'), 'utf8');
    const looping = source.replace('if (self.BLOCKED_PATTERNS', "if (details.url.includes('/spin')) { while (true) {} }\n    if (self.BLOCKED_PATTERNS");
    await writeFile(join(extensionDir, 'background.js'), looping);
    await waitForScreen((t) => /MV3 Blocker.*reloads 1/.test(t), 'the reload');
    const spinning = curl(port, '/spin');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The UI answers keys while the extension spins.
    await press('4');
    await waitForScreen((t) => t.includes(' Log '), 'the log view');
    await press('3');
    await waitForScreen((t) => t.includes(' Rules '), 'the rules view again');
    // The stuck request goes on without the extension once its listener timeout passes.
    const stuck = await spinning;
    expect(stuck.stdout).toBe('origin /spin -');
    expect(stuck.ms).toBeLessThan(5000);
    // Found stuck, the line named, started again: it blocks again.
    const lineOfLoop = looping.split('\n').findIndex((line) => line.includes('while (true)')) + 1;
    await press('4');
    const log = await waitForScreen((t) => t.includes('worker MV3 Blocker') && t.includes('restarting'), 'the fault in the log', 30_000);
    expect(log).toContain(`background.js:${lineOfLoop}`);
    await waitForScreen((t) => t.includes('running after 1 restart'), 'the restart');
    expect((await curl(port, '/blocked/y.png')).code).not.toBe(0);

    // The fix: saved, reloaded, serving.
    await writeFile(join(extensionDir, 'background.js'), source);
    await press('3');
    await waitForScreen((t) => /MV3 Blocker\s+▶ running.*reloads 2/.test(t), 'the fixed version');
    expect((await curl(port, '/spin')).stdout).toBe('origin /spin -');
    expect((await curl(port, '/page')).stdout).toBe('origin /page npngpgadjklogcjnddakfnmbbkeidjap');
    await press('q');
    await waitForScreen((t) => t.includes('WRTUI_EXIT=0'), 'a clean exit');
  });
});
