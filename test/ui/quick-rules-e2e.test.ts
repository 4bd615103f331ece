// Quick rules in a real terminal (tmux) with the real binary: w on a row writes a
// declarativeNetRequest rule into rules/quick-rules/rules.json and the next request is blocked or
// redirected with no worker started; the Rules view lists them; a request's Rules tab says why a
// quick rule did not act; a bad edit is named and the last good rules keep acting; c turns a quick
// rule into a TypeScript rule file.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { Tmux, tmuxAvailable, wrtuiCommand } from '../helpers/tmux.js';

const run = promisify(execFile);
const SESSION = 'quick';
const STARTUP_MS = 45_000;

let server: Tmux;
let origin: Origin;
let workDir: string;
const waitForScreen = (test: (text: string) => boolean, what: string, timeoutMs = 20_000) => server.waitForScreen(SESSION, test, what, timeoutMs);
const press = (...keys: string[]) => server.press(SESSION, ...keys);
const listRows = (text: string) => text.split('\n').filter((line) => /^[▶ ] \d\d:\d\d:\d\d /.test(line));

beforeAll(async () => {
  if (!tmuxAvailable()) throw new Error('tmux is needed for the TUI end-to-end test: apt-get install -y tmux (.ci/run installs it)');
  origin = await startOrigin((req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end(`hello ${req.url}`));
  workDir = await mkdtemp(join(tmpdir(), 'wrtui-quick-e2e-'));
  await mkdir(join(workDir, 'rules'));
  server = new Tmux(workDir);
});

afterAll(async () => {
  await server?.close();
  await origin?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** The threads of the wrtui process in the pane (a worker is a thread of its own). */
async function wrtuiThreads(): Promise<number> {
  const panePid = (await server.command('display-message', '-p', '-t', SESSION, '#{pane_pid}')).trim();
  const pid = (await run('pgrep', ['-P', panePid]).catch(() => ({ stdout: panePid }))).stdout.trim().split('\n')[0]!;
  return (await readdir(`/proc/${pid}/task`)).length;
}

const curl = (proxy: string, path: string) =>
  run('curl', ['-s', '-L', '--max-time', '10', '-x', proxy, `${origin.url}${path}`]).then(
    ({ stdout }) => stdout,
    () => 'blocked',
  );

describe('quick rules in the TUI', () => {
  it('w writes the JSON ruleset; the next request is blocked or redirected with no worker; the Rules view lists them; why not matched; a bad edit; edit as code', { timeout: 150_000 }, async () => {
    const rulesFile = join(workDir, 'rules', 'quick-rules', 'rules.json');
    await server.start(SESSION, 140, 40, workDir, wrtuiCommand(['--port', '0', '--incognito-port', '0', '--rules', join(workDir, 'rules'), '--state-dir', join(workDir, 'state')]));
    const started = await waitForScreen((text) => /proxy 127\.0\.0\.1:\d+/.test(text), 'the status bar', STARTUP_MS);
    const proxy = `http://127.0.0.1:${/proxy 127\.0\.0\.1:(\d+)/.exec(started)![1]!}`;
    expect(await curl(proxy, '/ads')).toBe('hello /ads');
    expect(await curl(proxy, '/old')).toBe('hello /old');
    await waitForScreen((t) => listRows(t).length === 2, 'two rows');
    const threadsBefore = await wrtuiThreads();

    // w on /ads (the row above the newest), the prompt's "block" taken as it is.
    await press('k', 'w');
    await waitForScreen((t) => t.includes('rule for this URL'), 'the quick rule prompt');
    await press('Enter');
    await waitForScreen((t) => t.includes('Wrote quick rule 1 (block)') && t.includes('no worker'), 'the rule written');
    expect(JSON.parse(await readFile(rulesFile, 'utf8'))).toEqual([
      { id: 1, condition: { urlFilter: `|${origin.url}/ads|`, isUrlFilterCaseSensitive: true, excludedResourceTypes: [] }, action: { type: 'block' } },
    ]);
    expect(await curl(proxy, '/ads')).toBe('blocked');
    expect(await curl(proxy, '/ads2')).toBe('hello /ads2');

    // w on /old: redirect to /new (the prefilled word erased first).
    await waitForScreen((t) => listRows(t).length === 4, 'four rows');
    await press('g', 'j');
    await waitForScreen((t) => listRows(t).find((row) => row.startsWith('▶'))?.includes('/old') === true, '/old selected');
    await press('w');
    await waitForScreen((t) => t.includes('rule for this URL'), 'the quick rule prompt');
    await press('BSpace', 'BSpace', 'BSpace', 'BSpace', 'BSpace');
    await server.type(SESSION, `redirect ${origin.url}/new`);
    await press('Enter');
    await waitForScreen((t) => t.includes('Wrote quick rule 2 (redirect'), 'the redirect written');
    expect(await curl(proxy, '/old')).toBe('hello /new');

    // w on /ads2: answer from a file (a copy in quick-rules/answers/, served in place of the response).
    await writeFile(join(workDir, 'mock.json'), '{"items":[]}');
    await waitForScreen((t) => listRows(t).length === 5, 'five rows');
    await press('g', 'j', 'j', 'j');
    await waitForScreen((t) => listRows(t).find((row) => row.startsWith('▶'))?.includes('/ads2') === true, '/ads2 selected');
    await press('w');
    await waitForScreen((t) => t.includes('rule for this URL'), 'the quick rule prompt');
    await press('BSpace', 'BSpace', 'BSpace', 'BSpace', 'BSpace');
    await server.type(SESSION, `file ${join(workDir, 'mock.json')}`);
    await press('Enter');
    await waitForScreen((t) => t.includes('Wrote quick rule 3 (answer from answers/3-mock.json)'), 'the answer rule written');
    expect(await curl(proxy, '/ads2')).toBe('{"items":[]}');
    expect(await readFile(join(workDir, 'rules', 'quick-rules', 'answers', '3-mock.json'), 'utf8')).toBe('{"items":[]}');
    // No rule started a worker: the process has no thread more than before.
    expect(await wrtuiThreads()).toBeLessThanOrEqual(threadsBefore);

    // The Rules view lists both, with what they do and that they have no worker.
    await press('3');
    let text = await waitForScreen((t) => t.includes('3 quick rules (no worker)') && t.includes('quick #3'), 'the rules view');
    expect(text).toContain('rules 0 active + 3 quick');
    expect(text).toMatch(/quick #1\s+◇ declarative, no worker\s+live\s+block/);
    expect(text).toMatch(/quick #2\s+◇ declarative, no worker\s+live\s+redirect → /);
    expect(text).toMatch(/quick #3\s+◇ declarative, no worker\s+live\s+answer from answers\/3-mock\.json/);
    expect(text).toContain('Worker  none');

    // The user narrows rule 1 to images in rules.json: it hot-reloads, and /ads (type other) is served again.
    const edited = JSON.parse(await readFile(rulesFile, 'utf8')) as { condition: Record<string, unknown> }[];
    delete edited[0]!.condition.excludedResourceTypes;
    edited[0]!.condition.resourceTypes = ['image'];
    await writeFile(rulesFile, JSON.stringify(edited, null, 2));
    await waitForScreen((t) => t.includes('urlFilter |'), 'rule 1 reloaded (no longer one exact URL of any type)');
    expect(await curl(proxy, '/ads')).toBe('hello /ads');
    // Why not matched: the request's Rules tab names the quick rule and the condition that failed.
    await press('1');
    await waitForScreen((t) => listRows(t).length === 7, 'seven rows (a redirect is one row)');
    await press('G', 'Enter');
    await waitForScreen((t) => t.includes('Timeline'), 'the detail pane');
    await press('Tab', 'Tab', 'Tab');
    text = await waitForScreen((t) => t.includes('Why the other rules did not act'), 'the Rules tab');
    expect(text).toMatch(/quick-rules\s+quick#1 block\s+priority 1\s+resourceTypes: other is not included/);
    await press('Escape');

    // A bad edit: named in the Rules view with file and line; the last good rules keep acting.
    await writeFile(rulesFile, JSON.stringify([...edited, { id: 4, condition: {}, action: { type: 'redirect', redirect: { url: 'nowhere' } } }], null, 2));
    await press('3');
    text = await waitForScreen((t) => t.includes('1 failing') && t.includes('The last edit failed'), 'the failure in the Rules view');
    expect(text).toMatch(/rules\.json:\d+: rule 4: action\.redirect\.url/);
    expect(await curl(proxy, '/old')).toBe('hello /new');
    await writeFile(rulesFile, JSON.stringify(edited, null, 2));
    await waitForScreen((t) => !t.includes('failing') && t.includes('3 quick rules'), 'the fix loaded');

    // Edit as code: quick #2 becomes a rule file (in a worker) and leaves rules.json; the redirect goes on.
    await press('g', 'j');
    await waitForScreen((t) => /Does\s+redirect/.test(t), 'quick #2 selected');
    await press('c');
    text = await waitForScreen((t) => t.includes('Quick rule 2 is now') && t.includes('1 active'), 'the rule file written and loaded');
    expect(text).toMatch(/quick-redirect-127-0-0-1-old\.ts/);
    expect((JSON.parse(await readFile(rulesFile, 'utf8')) as { id: number }[]).map((rule) => rule.id)).toEqual([1, 3]);
    expect(await readFile(join(workDir, 'rules', 'quick-redirect-127-0-0-1-old.ts'), 'utf8')).toContain('chrome.webRequest.onBeforeRequest.addListener');
    expect(await curl(proxy, '/old')).toBe('hello /new');
    await press('q');
  });
});
