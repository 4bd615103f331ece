// Dry-run per rule (manifest and run-time toggle) and engine-wide, through the host: verdicts are
// journaled as 'dry-run' outcomes ("would cancel"), never applied.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import type { ListenerOutcome } from '../../src/engine/journal.js';
import { openRuleFolder, ruleAction, ruleSource, type RuleFolder } from './rule-folder.js';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

const blocker = (dryRun?: boolean) =>
  ruleSource('blocker', "  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['*://ads.example/*'] }, ['blocking']);", {
    permissions: ['webRequest', 'webRequestBlocking'],
    host_permissions: ['<all_urls>'],
    ...(dryRun !== undefined && { dryRun }),
  });

async function request(): Promise<{ kind: string; outcome: ListenerOutcome | undefined }> {
  const since = folder!.mark();
  const result = await folder!.run('http://ads.example/banner');
  const entry = folder!.entries.slice(since).find((e) => e.kind === 'webRequest' && e.event === 'onBeforeRequest');
  return { kind: result.kind, outcome: entry?.kind === 'webRequest' ? entry.outcomes[0] : undefined };
}

describe('dry-run', () => {
  it('manifest dryRun: true journals "would cancel" and the request goes through', async () => {
    folder = await openRuleFolder({ files: { 'blocker.ts': blocker(true) } });
    expect(folder.host.rule('blocker')?.dryRun).toBe(true);
    expect(folder.ruleEntries('blocker')[0]?.message).toBe('1 listener, dry-run, precedence 1');
    expect(await request()).toEqual({ kind: 'response', outcome: expect.objectContaining({ owner: 'blocker', status: 'dry-run', reason: 'would cancel' }) });
  });

  it('setDryRun flips a rule at once, without a reload', async () => {
    folder = await openRuleFolder({ files: { 'blocker.ts': blocker(true) } });
    expect(folder.host.setDryRun('blocker', false)).toMatchObject({ dryRun: false, reloadCount: 0 });
    expect(await request()).toEqual({ kind: 'error', outcome: expect.objectContaining({ status: 'applied' }) });
    folder.host.setDryRun('blocker', true);
    expect((await request()).outcome?.status).toBe('dry-run');
    expect(folder.logEntries('blocker').map((e) => e.message)).toEqual(['dry-run off', 'dry-run on']);
  });

  it('the toggle survives reloads of the file, until the file itself changes dryRun', async () => {
    folder = await openRuleFolder({ files: { 'blocker.ts': blocker(true) } });
    folder.host.setDryRun('blocker', false);
    let since = folder.mark();
    await folder.write('blocker.ts', `${blocker(true)}\n// an unrelated edit\n`);
    await folder.waitForEntry(ruleAction('blocker', 'reloaded'), { since });
    expect(folder.host.rule('blocker')?.dryRun).toBe(false);

    since = folder.mark();
    await folder.write('blocker.ts', blocker(false));
    await folder.waitForEntry(ruleAction('blocker', 'reloaded'), { since });
    since = folder.mark();
    await folder.write('blocker.ts', blocker(true)); // the author's newer decision wins over the toggle
    await folder.waitForEntry(ruleAction('blocker', 'reloaded'), { since });
    expect(folder.host.rule('blocker')?.dryRun).toBe(true);
  });

  it('the toggle lasts across restarts (settings.json in the state dir) until the file changes its own dryRun', async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'wrtui-dry-run-state-'));
    const rulesDir = await mkdtemp(path.join(tmpdir(), 'wrtui-dry-run-rules-'));
    const start = async () => ExtensionHost.start(await Engine.open({}), { rulesDir, stateDir, watch: false, typeCheck: false });
    try {
      await writeFile(path.join(rulesDir, 'blocker.ts'), blocker(true));
      let host = await start();
      host.setDryRun('blocker', false);
      await host.close();
      expect(JSON.parse(await readFile(path.join(stateDir, 'settings.json'), 'utf8'))).toEqual({ ruleDryRun: { [path.join(rulesDir, 'blocker.ts')]: { on: false, manifestValue: true } } });
      host = await start();
      expect(host.rule('blocker')?.dryRun).toBe(false); // the user's choice, not the file's dryRun: true
      await host.close();
      await writeFile(path.join(rulesDir, 'blocker.ts'), blocker(false));
      await writeFile(path.join(rulesDir, 'blocker.ts'), blocker(true)); // changed while wrtui was not running
      host = await start();
      expect(host.rule('blocker')?.dryRun).toBe(false); // still the toggle: the file says dryRun: true, as when it was made
      await host.close();
      await writeFile(path.join(rulesDir, 'blocker.ts'), blocker(false));
      host = await start();
      await host.close();
      host = await start();
      expect(host.rule('blocker')?.dryRun).toBe(false);
      await writeFile(path.join(rulesDir, 'blocker.ts'), blocker(true));
      await host.close();
      host = await start();
      expect(host.rule('blocker')?.dryRun).toBe(true); // the file's newer decision replaced the toggle, and it stays gone
      await host.close();
      expect(JSON.parse(await readFile(path.join(stateDir, 'settings.json'), 'utf8'))).toEqual({});
    } finally {
      await rm(stateDir, { recursive: true, force: true });
      await rm(rulesDir, { recursive: true, force: true });
    }
  });

  it('engine-wide dry-run (the CLI\'s --dry-run) holds back every rule\'s verdicts', async () => {
    folder = await openRuleFolder({ files: { 'blocker.ts': blocker(false) }, engine: { dryRun: true } });
    expect(await request()).toEqual({ kind: 'response', outcome: expect.objectContaining({ status: 'dry-run', reason: 'would cancel' }) });
    folder.engine.dryRun = false;
    expect((await request()).kind).toBe('error');
  });

  it('setDryRun on an unknown rule throws', async () => {
    folder = await openRuleFolder();
    expect(() => folder!.host.setDryRun('nobody', true)).toThrow('no rule or extension named "nobody"');
  });
});
