// `wrtui browser <url>` as a user runs it, in a real terminal (tmux): a Chromium of its own loads an
// https page through the proxy with no setup (a fresh profile that trusts wrtui's CA by its SPKI
// pin), the request list shows the page and what it loaded, and quitting wrtui ends the browser
// and removes its profile. Headless (--headless-browser): these machines have no display.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateCACertificate } from 'mockttp';
import { getCA } from 'mockttp/dist/util/certificates';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { Tmux, tmuxAvailable, wrtuiCommand } from '../helpers/tmux.js';

const CHROMIUM = '/usr/lib/chromium/chromium';
const run = promisify(execFile);

let origin: Origin;
let workDir: string;
let tmux: Tmux;

beforeAll(async () => {
  if (!tmuxAvailable()) throw new Error('tmux is needed: apt-get install -y tmux (.ci/run installs it)');
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (.ci/run installs chromium)`);
  // The origin's certificate is from a CA nobody trusts: wrtui is told not to check it upstream,
  // and Chromium only ever sees wrtui's own certificates.
  const originCa = await generateCACertificate();
  const leaf = await (await getCA({ cert: originCa.cert, key: originCa.key })).generateCertificate('127.0.0.1');
  origin = await startOrigin(
    (req, res) => {
      if (req.url === '/page') return res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>through wrtui</title><img src="/pixel.png">');
      res.writeHead(200, { 'Content-Type': 'image/png' }).end(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64'));
    },
    { tls: { cert: leaf.cert, key: leaf.key, hostname: '127.0.0.1' } },
  );
  workDir = await mkdtemp(join(tmpdir(), 'wrtui-browser-e2e-'));
  await mkdir(join(workDir, 'rules'));
  tmux = new Tmux(workDir);
});

afterAll(async () => {
  await tmux?.close();
  await origin?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

async function browserProfiles(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith('wrtui-browser-') && !name.startsWith('wrtui-browser-e2e-'));
}

describe('wrtui browser', () => {
  it('loads an https page through the proxy with no setup; q ends the browser and removes its profile', { timeout: 90_000 }, async () => {
    const profilesBefore = await browserProfiles();
    const url = `${origin.url}/page`;
    const args = ['browser', url, '--headless-browser', '--chromium', CHROMIUM, '--port', '0', '--incognito-port', '0', '--insecure-upstream', '127.0.0.1', '--rules', join(workDir, 'rules'), '--state-dir', join(workDir, 'state')];
    await tmux.start('browser', 120, 30, workDir, wrtuiCommand(args));
    const originRows = (t: string) => t.split('\n').filter((line) => /^[▶ ] \d\d:\d\d:\d\d/.test(line) && line.includes('127.0.0.1'));
    // Every request to the origin succeeds (the proxy's certificates are trusted by the pin); a
    // favicon request may still be on its way when the image is done, so wait for all of them.
    const text = await tmux.waitForScreen(
      'browser',
      (t) => /GET\s+200\s+\S+\s+https:\/\/127\.0\.0\.1:\d+\/pixel\.png/.test(t) && originRows(t).every((row) => /\s200\s/.test(row)),
      'the page and its image in the list, every request to the origin a 200',
      40_000,
    );
    expect(text).toMatch(/GET\s+200\s+doc\s+https:\/\/127\.0\.0\.1:\d+\/page/);
    expect(originRows(text).length).toBeGreaterThanOrEqual(2);
    const { stdout: processes } = await run('ps', ['-eo', 'args']);
    expect(processes).toMatch(/--ignore-certificate-errors-spki-list=\S+/);

    await tmux.press('browser', 'q');
    const after = await tmux.waitForScreen('browser', (t) => t.includes('WRTUI_EXIT='), 'wrtui to exit');
    expect(after).toContain('WRTUI_EXIT=0');
    const { stdout: left } = await run('ps', ['-eo', 'args']);
    expect(left.split('\n').filter((line) => line.includes('--ignore-certificate-errors-spki-list') && line.includes(url))).toEqual([]);
    expect(await browserProfiles()).toEqual(profilesBefore);
  });

  it('says in one line what is missing when there is no browser to start', async () => {
    const result = await run(process.execPath, ['bin/wrtui.js', 'browser', '--chromium', '/nonexistent/chrome', '--port', '0', '--incognito-port', '0', '--state-dir', join(workDir, 'state2')]).catch((error: { code: number; stderr: string }) => error);
    expect(result).toMatchObject({ code: 2 });
    expect((result as { stderr: string }).stderr).toBe('wrtui: /nonexistent/chrome is not an executable file (from --chromium)\n');
  });
});
