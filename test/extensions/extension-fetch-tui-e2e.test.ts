// What an extension sends by itself, as a user finds it in a real terminal: `wrtui --extension
// <dir>` on an extension whose service worker fetches a beacon after each page it sees; the beacon
// is in the request list, `by:NAME` finds it alone, and its Request tab says who made it. A second
// extension fetches its settings from an origin it has no host permission for, which sends no CORS
// headers: the fetch is listed as failed and its Timeline says CORS refused it, and why.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { Tmux, tmuxAvailable, wrtuiCommand } from '../helpers/tmux.js';

const run = promisify(execFile);

let origin: Origin;
/** Another origin (127.0.0.2), one the second extension has no host permission for; it sends no CORS headers. */
let foreign: Origin;
let workDir: string;
let server: Tmux;
const waitForScreen = (test: (text: string) => boolean, what: string, timeoutMs = 20_000) => server.waitForScreen('wrtui', test, what, timeoutMs);
const press = (key: string) => server.press('wrtui', key);
const listRows = (text: string) => text.split('\n').filter((line) => /^[▶ ] (\d\d:\d\d:\d\d|GET |POST )/.test(line));

beforeAll(async () => {
  if (!tmuxAvailable()) throw new Error('tmux is needed: apt-get install -y tmux (.ci/run installs it)');
  origin = await startOrigin((req, res) => res.end(`origin ${req.url}`));
  foreign = await startOrigin((req, res) => res.end(`foreign ${req.url}`), { address: '127.0.0.2' });
  workDir = await mkdtemp(join(tmpdir(), 'wrtui-extension-fetch-e2e-'));
  const extension = join(workDir, 'beacon');
  await mkdir(extension);
  await writeFile(join(extension, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'Beacon Maker', version: '1', permissions: ['webRequest'], host_permissions: ['<all_urls>'], background: { service_worker: 'sw.js' } }));
  await writeFile(
    join(extension, 'sw.js'),
    `chrome.webRequest.onCompleted.addListener((d) => { if (d.url.endsWith('/page')) fetch(d.url.replace('/page', '/beacon?seen=page'), { method: 'POST', body: 'hello' }); }, { urls: ['<all_urls>'] });`,
  );
  // It reads its settings from another origin, without host permission for it: CORS refuses the answer.
  const reader = join(workDir, 'reader');
  await mkdir(reader);
  await writeFile(join(reader, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'Settings Reader', version: '1', host_permissions: ['http://127.0.0.1/*'], background: { service_worker: 'sw.js' } }));
  await writeFile(join(reader, 'sw.js'), `setTimeout(() => fetch(${JSON.stringify(`${foreign.url}/settings.json`)}).catch((error) => console.log('no settings: ' + error.message)), 300);`);
  server = new Tmux(workDir);
  const args = ['--port', '0', '--incognito-port', '0', '--rules', join(workDir, 'rules'), '--extension', extension, '--extension', reader, '--state-dir', join(workDir, 'state')];
  await mkdir(join(workDir, 'rules'));
  await server.start('wrtui', 150, 40, workDir, wrtuiCommand(args));
});

afterAll(async () => {
  await server?.close();
  await origin?.close();
  await foreign?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("an extension's own requests in the TUI", () => {
  it('are listed; by:NAME finds them alone; the Request tab names the extension', { timeout: 90_000 }, async () => {
    const started = await waitForScreen((text) => /proxy 127\.0\.0\.1:\d+/.test(text) && text.includes('rules 2 active'), 'the status bar');
    const port = /proxy 127\.0\.0\.1:(\d+)/.exec(started)![1]!;
    await run('curl', ['-s', '--max-time', '10', '-x', `http://127.0.0.1:${port}`, `${origin.url}/page`]);
    let text = await waitForScreen((t) => listRows(t).length === 3 && t.includes('/beacon?seen=page'), 'the settings fetch, the page and the beacon in the list');
    await waitForScreen(() => origin.received.some((request) => request.url === '/beacon?seen=page'), 'the beacon at the origin');

    await press('/');
    await waitForScreen((t) => t.includes('enter apply'), 'the filter prompt');
    await server.type('wrtui', 'by:beacon');
    await press('Enter');
    text = await waitForScreen((t) => t.includes('filter: by:beacon') && listRows(t).length === 1, 'only the beacon');
    expect(listRows(text)[0]).toMatch(/POST .*\/beacon\?seen=page .*ext/);

    await press('Enter');
    await waitForScreen((t) => t.includes('[Timeline]') && t.includes('made by Beacon Maker itself'), "the beacon's timeline");
    await press('Tab');
    text = await waitForScreen((t) => t.includes('[Request]') && t.includes('made by Beacon Maker itself'), "the beacon's Request tab");
    expect(text).toMatch(/extension\s+Sec-Fetch-Site: none/);
    expect(text).toMatch(/extension\s+Origin: chrome-extension:\/\/[a-p]{32}/);
  });

  it('one CORS refuses is listed as failed, and its Timeline says why', { timeout: 60_000 }, async () => {
    await press('Escape');
    await press('/');
    await waitForScreen((t) => t.includes('enter apply'), 'the filter prompt');
    await press('End');
    await press('C-u'); // the last filter is given back to edit: cleared
    await server.type('wrtui', 'by:settings');
    await press('Enter');
    // The status bar may show the new filter a frame before the list does: wait for the list's row.
    let text = await waitForScreen((t) => t.includes('filter: by:settings') && listRows(t).length === 1 && listRows(t)[0]!.includes('/settings.json'), 'only the settings fetch');
    expect(listRows(text)[0]).toMatch(/GET +FAILED .*\/settings\.json/);
    await press('Enter');
    await waitForScreen((t) => t.includes('[Request]') && t.includes('/settings.json'), "the settings fetch's detail (on the tab last shown)");
    await press('Left');
    text = await waitForScreen((t) => t.includes('[Timeline]') && t.includes('refused by CORS'), "the settings fetch's timeline");
    expect(text).toContain('the response has no Access-Control-Allow-Origin header');
  });
});
