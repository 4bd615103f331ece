// Save → the whole updated diff in the real replay TUI (tmux), read off the screen as a user sees
// it (test/helpers/replay-screen.ts): the re-run counting its own verdicts, then the status bar
// settled on what the whole run found. A save that changes what a rule blocks shows exactly the
// requests it now blocks; a save back shows "all identical" again; each time is printed.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { comparedOf, replayStatusBar, settledStatus, timeSaveToWholeDiff } from '../helpers/replay-screen.js';
import { Tmux, tmuxAvailable, wrtuiCommand } from '../helpers/tmux.js';
import { writeSyntheticRecording } from './synthetic-recording.js';

const REQUESTS = 2_000;
/** Cancels requests to one host (the synthetic recording spreads its requests over site0 … site49). */
const RULE = (host: string) => `export const manifest = { name: 'block-host', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'] };
export default function background({ chrome }: any) {
  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['*://${host}/*'] }, ['blocking']);
}
`;

let workDir: string;
let tmux: Tmux;

beforeAll(async () => {
  if (!tmuxAvailable()) throw new Error('tmux is needed: apt-get install -y tmux (.ci/run installs it)');
  workDir = await mkdtemp(join(tmpdir(), 'wrtui-replay-save-'));
  await mkdir(join(workDir, 'rules'));
  tmux = new Tmux(workDir);
});

afterAll(async () => {
  await tmux?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('save → the whole updated diff, on screen', () => {
  it('a save that blocks one host shows exactly its requests changed once the screen settles; a save back shows all identical', { timeout: 300_000 }, async () => {
    const file = await writeSyntheticRecording(join(workDir, 'recording.ndjson'), REQUESTS);
    const rule = join(workDir, 'rules', 'block-host.ts');
    await writeFile(rule, RULE('nowhere.test'));
    await tmux.start('save', 150, 40, workDir, wrtuiCommand(['replay', file, '--rules', join(workDir, 'rules')]));
    const reader = { screen: () => tmux.screen('save') };
    // The first run, whole: every request listed, nothing changed.
    await tmux.waitForScreen('save', (t) => settledStatus(replayStatusBar(t)) && replayStatusBar(t).includes(`${REQUESTS} requests`), 'the first whole run', 120_000);
    expect(replayStatusBar(await reader.screen())).toContain('all identical');

    const blocking = await timeSaveToWholeDiff(reader, () => writeFile(rule, RULE('site7.test')));
    // site7.test: every 50th request of the recording.
    expect(blocking.statusBar).toContain(`${REQUESTS / 50} changed (is:changed)`);
    expect(comparedOf(blocking.statusBar)).toBeUndefined();

    const back = await timeSaveToWholeDiff(reader, () => writeFile(rule, RULE('nowhere.test')));
    expect(back.statusBar).toContain('all identical');
    console.log(`save → whole updated diff on screen, ${REQUESTS} requests: ${Math.round(blocking.ms)} ms (blocking ${REQUESTS / 50}), ${Math.round(back.ms)} ms (back to all identical)`);
    await tmux.press('save', 'q');
    await tmux.waitForScreen('save', (t) => t.includes('WRTUI_EXIT='), 'wrtui to exit');
  });
});
