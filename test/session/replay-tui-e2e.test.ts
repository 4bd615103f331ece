// `wrtui replay <file>` on a terminal (tmux): the replay in the TUI, REPLAY in the status bar, the
// request a rule now blocks marked CHANGED, is:changed narrowing the list to it, and the Diff tab
// saying what changed against the recording; the rules and cookies views showing the replay's;
// q leaves and prints the summary.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tmux, tmuxAvailable, wrtuiCommand } from '../helpers/tmux.js';
import { writeSyntheticRecording } from './synthetic-recording.js';

const HAR = join(process.cwd(), 'fixtures/har/chromium.har');
const RULE = (type: string) => `export const manifest = { name: 'no-images', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'] };
export default function background({ chrome }: any) {
  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['<all_urls>'], types: ['${type}'] }, ['blocking']);
}
`;
let workDir: string;
let tmux: Tmux;

beforeAll(async () => {
  if (!tmuxAvailable()) throw new Error('tmux is needed: apt-get install -y tmux (.ci/run installs it)');
  workDir = await mkdtemp(join(tmpdir(), 'wrtui-replay-tui-'));
  await mkdir(join(workDir, 'rules'));
  await writeFile(join(workDir, 'rules', 'no-images.ts'), RULE('image'));
  tmux = new Tmux(workDir);
});

afterAll(async () => {
  await tmux?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** The Chromium HAR replayed in the TUI with a rule blocking images: one request (the image) changed. */
async function openHarReplay(session: string): Promise<string> {
  await writeFile(join(workDir, 'rules', 'no-images.ts'), RULE('image'));
  await tmux.start(session, 140, 40, workDir, wrtuiCommand(['replay', HAR, '--rules', join(workDir, 'rules')]));
  return tmux.waitForScreen(session, (t) => t.includes(' REPLAY ') && t.includes('1 changed (is:changed)'), 'the replay in the TUI');
}

/** q, and wrtui exits 0; resolves with the screen then (the summary it printed). */
async function quitCleanly(session: string): Promise<string> {
  await tmux.press(session, 'q');
  const text = await tmux.waitForScreen(session, (t) => t.includes('WRTUI_EXIT='), 'wrtui to exit');
  expect(text).toContain('WRTUI_EXIT=0');
  return text;
}

describe('wrtui replay in the TUI', () => {
  it('marks what a rule changed, narrows to it with is:changed, the Diff tab says what; a save re-runs it in place, a broken save keeps the last result', { timeout: 60_000 }, async () => {
    await tmux.start('replay', 140, 40, workDir, wrtuiCommand(['replay', HAR, '--rules', join(workDir, 'rules')]));
    let text = await tmux.waitForScreen('replay', (t) => t.includes(' REPLAY ') && t.includes('1 changed (is:changed)'), 'the replay in the TUI');
    expect(text).toContain('chromium.har');
    const rows = text.split('\n').filter((line) => /^[▶ ] \d\d:\d\d:\d\d/.test(line));
    expect(rows).toHaveLength(6);
    expect(rows.filter((row) => row.includes('CHANGED'))).toHaveLength(1);
    expect(rows.filter((row) => row.includes(' same'))).toHaveLength(5);

    await tmux.press('replay', '/');
    await tmux.waitForScreen('replay', (t) => t.includes('enter apply'), 'the filter prompt');
    await tmux.type('replay', 'is:changed');
    await tmux.press('replay', 'Enter');
    text = await tmux.waitForScreen('replay', (t) => t.split('\n').filter((line) => /^[▶ ] \d\d:\d\d:\d\d/.test(line)).length === 1, 'only the changed request');
    expect(text).toMatch(/CHANGED/);

    await tmux.press('replay', 'Enter', 'BTab');
    text = await tmux.waitForScreen('replay', (t) => t.includes('[Diff]'), 'the Diff tab');
    expect(text).toContain('Changed: newly-blocked');
    expect(text).toMatch(/newly blocked by no-images at onBeforeRequest/);

    // Live re-run on save: the rule no longer blocks images, and the list says so at once.
    await tmux.press('replay', 'Escape', 'Escape', '/');
    await tmux.waitForScreen('replay', (t) => t.includes('enter apply'), 'the filter prompt again');
    await tmux.press('replay', 'C-u', 'Enter');
    const saved = Date.now();
    await writeFile(join(workDir, 'rules', 'no-images.ts'), RULE('font'));
    text = await tmux.waitForScreen('replay', (t) => t.includes('all identical'), 'the re-run after the save');
    const rerunMs = Date.now() - saved;
    expect(text.split('\n').filter((line) => line.includes('CHANGED'))).toEqual([]);
    expect(rerunMs).toBeLessThan(10_000);
    // A save that breaks the rule keeps the last result on screen and says why.
    await writeFile(join(workDir, 'rules', 'no-images.ts'), 'export const manifest = { name: "no-images", permissions: ["webRequest"] ;\n');
    text = await tmux.waitForScreen('replay', (t) => /1 new warning/.test(t), 'the warning of the failed re-run');
    expect(text).toContain('all identical');
    await tmux.press('replay', '4');
    await tmux.waitForScreen('replay', (t) => t.includes('changed, but the replay did not run cleanly: no-i'), 'why, in the log');

    text = await quitCleanly('replay');
    // The summary printed on leaving is the last run's shown (the one before the broken save).
    expect(text).toMatch(/6 request\(s\) replayed .*: 6 identical, 0 differ/);
  });

  it('the rules view lists the replay\'s rules and the cookies view the cookies its requests left; a rule\'s dry-run switch there re-runs the session', { timeout: 60_000 }, async () => {
    const imageRow = (t: string) => t.split('\n').find((line) => line.includes('/old-logo.png')) ?? '';
    let text = await openHarReplay('views');
    expect(imageRow(text)).toContain('blocked');
    expect(text).toContain('rules 1 active');

    await tmux.press('views', '3');
    text = await tmux.waitForScreen('views', (t) => t.includes('1 file · 1 active'), 'the rules view');
    expect(text).toMatch(/● active\s+no-images .* live\s+1 listener/);
    expect(text).not.toContain('no rule host');
    // The rule's dry-run switch: the session runs again with the rule journaling what it would do.
    await tmux.press('views', 'd');
    text = await tmux.waitForScreen('views', (t) => /no-images .* dry-run\s+1 listener/.test(t), 'the rule in dry-run');
    await tmux.press('views', '4');
    await tmux.waitForScreen('views', (t) => t.includes('no-images: dry-run on: replayed 6 requests again'), 'the re-run in the log');
    await tmux.press('views', '1');
    text = await tmux.waitForScreen('views', (t) => imageRow(t).includes(' 200 '), 'the image no longer blocked');
    expect(imageRow(text)).toContain('CHANGED'); // its dry-run verdict is new against the HAR
    // Global dry-run (D): the status bar says so, and the session ran again under it.
    await tmux.press('views', 'D');
    await tmux.waitForScreen('views', (t) => t.includes(' REPLAY  DRY-RUN ') && !t.includes('so far'), 'the re-run under global dry-run');
    await tmux.press('views', '4');
    await tmux.waitForScreen('views', (t) => t.includes('global dry-run on: replayed 6 requests again'), 'that re-run in the log');

    // The HAR's page set two cookies: the replay's store holds them; a replay takes no edits.
    await tmux.press('views', '2');
    text = await tmux.waitForScreen('views', (t) => t.includes('store "0" (2)'), 'the cookies view');
    expect(text).toMatch(/theme\s+dark/);
    expect(text).toMatch(/visits\s+1/);
    await tmux.press('views', 'd');
    await tmux.waitForScreen('views', (t) => t.includes('Delete cookie'), 'the question');
    await tmux.press('views', 'y');
    await tmux.waitForScreen('views', (t) => t.includes("Delete failed: these are the cookies the replay's requests left"), 'the refusal');

    await quitCleanly('views');
  });

  it('bodies show as in live mode: a HAR\'s response content (decoded already, whatever its Content-Encoding says) and a POST\'s body', { timeout: 60_000 }, async () => {
    await openHarReplay('bodies');
    // style.css: Content-Encoding: gzip in its headers, its text decoded in the HAR.
    await tmux.press('bodies', 'g', 'Down', 'Enter', 'Tab', 'Tab');
    let text = await tmux.waitForScreen('bodies', (t) => t.includes('[Response]') && t.includes('Content-Encoding: gzip'), 'style.css\'s response');
    text = await tmux.waitForScreen('bodies', (t) => t.includes('font-family: sans-serif'), 'its body');
    expect(text).not.toContain('could not be decoded');
    expect(text).toContain('Body (54 B decoded (as the recording kept it))');
    expect(text.split('\n').find((line) => line.includes('/style.css'))).toContain(' 72 B '); // the size on the wire (Content-Length)
    // The last request, POST /api/echo: the body the page sent.
    await tmux.press('bodies', 'Escape', 'G', 'Enter', 'BTab');
    // Its 17 bytes as the page sent them (the body the replay journals, as the proxy does), not the 8 KiB buffer they were read into.
    await tmux.waitForScreen('bodies', (t) => t.includes('[Request]') && t.includes('Body (17 B, as sent)'), 'the POST\'s body');
    await quitCleanly('bodies');
  });

  it('a re-run after a save keeps the request the user is looking at selected, its tab open', { timeout: 60_000 }, async () => {
    await openHarReplay('keep');
    await tmux.press('keep', 'g', 'Down', 'Down', 'Down', 'Enter', 'BTab');
    let text = await tmux.waitForScreen('keep', (t) => t.includes('[Diff]') && t.includes('newly blocked by no-images'), 'the image request\'s Diff tab');
    const selected = (t: string) => t.split('\n').find((line) => line.startsWith('▶')) ?? '';
    expect(selected(text)).toContain('/old-logo.png');
    // The rule now blocks scripts instead: the image request, still selected, is identical again.
    await writeFile(join(workDir, 'rules', 'no-images.ts'), RULE('script'));
    text = await tmux.waitForScreen('keep', (t) => t.includes('Identical to the recording'), 'the re-run');
    expect(selected(text)).toContain('/old-logo.png');
    expect(text).toContain('[Diff]');
    await quitCleanly('keep');
  });

  it('a recording without finished requests: the list says where its requests come from, not how to use a proxy there is none of', { timeout: 30_000 }, async () => {
    const file = await writeSyntheticRecording(join(workDir, 'none.ndjson'), 0);
    await tmux.start('none', 140, 20, workDir, wrtuiCommand(['replay', file, '--rules', join(workDir, 'rules')]));
    const text = await tmux.waitForScreen('none', (t) => t.includes('No replayed requests yet'), 'the empty list');
    expect(text).not.toContain('curl -x');
    await quitCleanly('none');
  });

  it('w on a request writes a quick rule into the rules folder, and the session re-runs with it: that request is now newly blocked', { timeout: 60_000 }, async () => {
    await openHarReplay('quick');
    const appJs = (t: string) => t.split('\n').find((line) => line.includes('/app.js')) ?? '';
    await tmux.press('quick', 'g', 'Down', 'Down', 'w');
    await tmux.waitForScreen('quick', (t) => t.includes('rule for this URL'), 'the quick rule prompt');
    await tmux.press('quick', 'Enter');
    const text = await tmux.waitForScreen('quick', (t) => t.includes('2 changed (is:changed)'), 'the re-run with the quick rule');
    expect(appJs(text)).toMatch(/blocked .* CHANGED/);
    const written = (await readdir(join(workDir, 'rules'))).filter((name) => name !== 'no-images.ts');
    expect(written).toEqual(['quick-rules']); // a declarative quick rule: quick-rules/rules.json
    // The run's Rules view lists it, as the live one does.
    await tmux.press('quick', '3');
    expect(await tmux.waitForScreen('quick', (t) => t.includes('1 quick rule (no worker)'), 'the rules view')).toMatch(/quick #1\s+◇ declarative, no worker\s+live\s+block/);
    await quitCleanly('quick');
    for (const name of written) await rm(join(workDir, 'rules', name), { recursive: true });
  });

  it('a big session: the screen comes up and fills in while the replay goes; quitting midway stops it at once and says so', { timeout: 60_000 }, async () => {
    // 20,000 requests through a rule in its worker: some seconds of replay, so the screen is seen mid-run.
    const file = await writeSyntheticRecording(join(workDir, 'big.ndjson'), 20_000);
    await writeFile(join(workDir, 'rules', 'no-images.ts'), RULE('image'));
    await tmux.start('big', 140, 40, workDir, wrtuiCommand(['replay', file, '--rules', join(workDir, 'rules')]));
    const text = await tmux.waitForScreen('big', (t) => t.includes(' REPLAY ') && / same$/m.test(t), 'the first replayed requests on screen');
    // Mid-run: far fewer than the 20,000 requests are listed yet.
    const listed = Number(/Requests\s+([\d,]+)/.exec(text)?.[1]?.replaceAll(',', '') ?? 'NaN');
    expect(listed).toBeLessThan(20_000);
    // The status bar says how far the run is, not yet "all identical".
    expect(text).toMatch(/none changed so far {2}compared [\d,]+\/20,000/);
    expect(text).not.toContain('all identical');
    const quit = Date.now();
    await tmux.press('big', 'q');
    const after = await tmux.waitForScreen('big', (t) => t.includes('WRTUI_EXIT='), 'wrtui to exit');
    expect(Date.now() - quit).toBeLessThan(10_000);
    expect(after).toContain('WRTUI_EXIT=0');
    expect(after).toContain('the replay was stopped before its end');
  });

  it('a save while a run goes updates the list in place: the rows listed stay (dim, …same) until the new run replaces them, and the list never empties', { timeout: 90_000 }, async () => {
    const file = join(workDir, 'big-save.ndjson');
    await writeSyntheticRecording(file, 20_000);
    await writeFile(join(workDir, 'rules', 'no-images.ts'), RULE('image'));
    await tmux.start('save', 140, 40, workDir, wrtuiCommand(['replay', file, '--rules', join(workDir, 'rules')]));
    const listedOf = (t: string) => Number(/Requests\s+([\d,]+)/.exec(t)?.[1]?.replaceAll(',', '') ?? 'NaN');
    const before = await tmux.waitForScreen('save', (t) => t.includes(' REPLAY ') && listedOf(t) > 500, 'the first run well under way');
    expect(before).toContain('compared');
    // Saved midway through the first run: that run stops, the next one replaces what is listed.
    await writeFile(join(workDir, 'rules', 'no-images.ts'), RULE('script'));
    const during = await tmux.waitForScreen('save', (t) => t.includes('…same'), "the last run's rows, dim, waiting for the new run");
    expect(listedOf(during)).toBeGreaterThanOrEqual(listedOf(before));
    await tmux.press('save', 'q');
    await tmux.waitForScreen('save', (t) => t.includes('WRTUI_EXIT='), 'wrtui to exit');
  });
});
