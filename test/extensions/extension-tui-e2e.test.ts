// The promise, as a new user lives it, in a real terminal: `wrtui --extension <dir>` on
// an extension written for Chrome, its listeners acting on real traffic; an infinite loop saved
// into it while the proxy and the UI keep serving; the fix saved, and the extension back.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { Tmux, tmuxAvailable, wrtuiCommand } from '../helpers/tmux.js';

const run = promisify(execFile);
const FIXTURE = join(process.cwd(), 'fixtures/extensions/mv3-blocker');

let origin: Origin;
let workDir: string;
let extensionDir: string;

let server: Tmux;
const screen = () => server.screen('wrtui');
const waitForScreen = (test: (text: string) => boolean, what: string, timeoutMs = 20_000) => server.waitForScreen('wrtui', test, what, timeoutMs);
const press = (key: string) => server.press('wrtui', key);
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
  if (!tmuxAvailable()) throw new Error('tmux is needed: apt-get install -y tmux (.ci/run installs it)');
  origin = await startOrigin((req, res) => res.end(`origin ${req.url} ${req.headers['x-mv3-blocker'] ?? '-'}`));
  workDir = await mkdtemp(join(tmpdir(), 'wrtui-extension-e2e-'));
  extensionDir = join(workDir, 'my-extension');
  await cp(FIXTURE, extensionDir, { recursive: true });
  await mkdir(join(workDir, 'rules'));
  server = new Tmux(workDir);
  const args = ['--port', '0', '--incognito-port', '0', '--listener-timeout', '1000', '--rules', join(workDir, 'rules'), '--extension', extensionDir, '--state-dir', join(workDir, 'state')];
  await server.start('wrtui', 140, 40, workDir, wrtuiCommand(args));
});

afterAll(async () => {
  await server?.close();
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
    // In the row itself, not only in the full view of the newest line below (which the restart soon takes).
    const row = log.split('\n').find((text) => /^\d\d:\d\d:\d\d\.\d{3} warn\s+worker MV3 Blocker\s+restarting/.test(text));
    expect(row).toContain(`restarting: my-extension/background.js:${lineOfLoop}:`);
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
