// Hot reload with real files and real file-system events: saves, editor-style saves, helpers,
// added and deleted files, and the handlerBehaviorChanged quota across reloads.
import { afterEach, describe, expect, it } from 'vitest';
import type { HandlerBehaviorChangedEntry, JournalEntry } from '../../src/engine/journal.js';
import { listenerUrls, markerRule, openRuleFolder, ruleAction, ruleSource, type RuleFolder } from './rule-folder.js';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

describe('saving a rule', () => {
  it('replaces the old listener by the new one and calls handlerBehaviorChanged for the rule', async () => {
    folder = await openRuleFolder({ files: { 'marker.ts': markerRule('marker', 'one.example') } });
    const since = folder.mark();
    await folder.write('marker.ts', markerRule('marker', 'two.example'));
    await folder.waitForEntry(ruleAction('marker', 'reloaded'), { since });
    expect(listenerUrls(folder.host, 'marker')).toEqual(['*://two.example/*']);
    expect(folder.engine.registry.describe().map((l) => l.filter.urls[0])).toEqual(['*://two.example/*']);
    const after = folder.entries.slice(since);
    expect(after.find((e) => e.kind === 'handlerBehaviorChanged')).toMatchObject({ owner: 'marker', accepted: true, madeBy: 'reload', used: 1, limit: 20 });
    expect(folder.host.rule('marker')).toMatchObject({ reloadCount: 1, quota: { used: 1 } });
  });

  it('the new version answers requests at once', async () => {
    folder = await openRuleFolder({ files: { 'marker.ts': markerRule('marker', 'one.example') } });
    expect(await folder.run('http://one.example/')).toMatchObject({ kind: 'error', error: 'net::ERR_BLOCKED_BY_CLIENT' });
    const since = folder.mark();
    await folder.write('marker.ts', markerRule('marker', 'two.example'));
    await folder.waitForEntry(ruleAction('marker', 'reloaded'), { since });
    expect(await folder.run('http://one.example/')).toMatchObject({ kind: 'response', statusCode: 200 });
    expect(await folder.run('http://two.example/')).toMatchObject({ kind: 'error', error: 'net::ERR_BLOCKED_BY_CLIENT' });
  });

  it('an editor\'s write-to-temp-and-rename save reloads the rule once', async () => {
    folder = await openRuleFolder({ files: { 'renamed-save.ts': markerRule('renamed-save', 'one.example') } });
    const since = folder.mark();
    await folder.writeAndRename('renamed-save.ts', markerRule('renamed-save', 'two.example'));
    await folder.waitForEntry(ruleAction('renamed-save', 'reloaded'), { since });
    await new Promise((resolve) => setTimeout(resolve, 200)); // any late duplicate event would have landed
    expect(listenerUrls(folder.host, 'renamed-save')).toEqual(['*://two.example/*']);
    const actions = folder.ruleEntries('renamed-save').filter((e) => e.seq > since).map((e) => e.action);
    expect(actions).toEqual(['reloaded']);
  });

  it('several quick writes coalesce into at most a couple of reloads, ending with the last content', async () => {
    folder = await openRuleFolder({ files: { 'burst.ts': markerRule('burst', 'v0.example') } });
    const since = folder.mark();
    for (let version = 1; version <= 5; version++) await folder.write('burst.ts', markerRule('burst', `v${version}.example`));
    await folder.waitForEntry((e) => ruleAction('burst', 'reloaded')(e) && listenerUrls(folder!.host, 'burst')[0] === '*://v5.example/*', { since });
    await folder.host.idle();
    expect(listenerUrls(folder.host, 'burst')).toEqual(['*://v5.example/*']);
    expect(folder.ruleEntries('burst').filter((e) => e.seq > since && e.action === 'reloaded').length).toBeLessThanOrEqual(3);
  });

  it('a second save right after the first (inside chokidar\'s 50 ms change throttle) is not lost', async () => {
    folder = await openRuleFolder({ files: { 'twice.ts': markerRule('twice', 'v0.example') } });
    for (let round = 1; round <= 3; round++) {
      await folder.write('twice.ts', markerRule('twice', `first-${round}.example`));
      await new Promise((resolve) => setTimeout(resolve, 20));
      await folder.write('twice.ts', markerRule('twice', `second-${round}.example`));
      const since = folder.mark();
      await folder.waitForEntry((e) => ruleAction('twice', 'reloaded')(e) && listenerUrls(folder!.host, 'twice')[0] === `*://second-${round}.example/*`, { since: since - 8 });
    }
  });

  it('a rule that renames itself leaves its old name and takes the new one', async () => {
    folder = await openRuleFolder({ files: { 'file.ts': markerRule('old-name', 'one.example') } });
    const since = folder.mark();
    await folder.write('file.ts', markerRule('new-name', 'one.example'));
    await folder.waitForEntry(ruleAction('new-name', 'reloaded'), { since });
    expect(folder.host.rules().map((rule) => rule.name)).toEqual(['new-name']);
    expect(folder.engine.registry.describe().map((l) => l.owner)).toEqual(['new-name']);
  });
});

describe('telling the UI', () => {
  it('onChange fires on a reload and on a dry-run toggle; rules() then shows the new state', async () => {
    folder = await openRuleFolder({ files: { 'watched.ts': markerRule('watched', 'one.example') } });
    const seen: string[][] = [];
    const unsubscribe = folder.host.onChange(() => seen.push(listenerUrls(folder!.host, 'watched')));
    const since = folder.mark();
    await folder.write('watched.ts', markerRule('watched', 'two.example'));
    await folder.waitForEntry(ruleAction('watched', 'reloaded'), { since });
    folder.host.setDryRun('watched', true);
    unsubscribe();
    folder.host.setDryRun('watched', false);
    expect(seen).toEqual([['*://two.example/*'], ['*://two.example/*']]);
  });
});

describe('helpers', () => {
  it('editing a helper reloads every rule that imports it, and only those', async () => {
    const usesHelper = (name: string) =>
      ruleSource(name, "  chrome.webRequest.onBeforeRequest.addListener(() => {}, { urls: [`*://${host}/*`] });", undefined, "import { host } from './lib/host.js';");
    folder = await openRuleFolder({
      files: {
        'lib/host.ts': "export const host = 'one.example';\n",
        'first.ts': usesHelper('first'),
        'second.ts': usesHelper('second'),
        'unrelated.ts': markerRule('unrelated', 'other.example'),
      },
    });
    const since = folder.mark();
    await folder.write('lib/host.ts', "export const host = 'two.example';\n");
    await folder.waitForEntry(ruleAction('first', 'reloaded'), { since });
    await folder.waitForEntry(ruleAction('second', 'reloaded'), { since });
    await folder.host.idle();
    expect(listenerUrls(folder.host, 'first')).toEqual(['*://two.example/*']);
    expect(listenerUrls(folder.host, 'second')).toEqual(['*://two.example/*']);
    expect(folder.host.rule('unrelated')?.reloadCount).toBe(0);
  });

  it('a rule that failed on a missing helper loads once the helper is created', async () => {
    folder = await openRuleFolder({
      files: { 'waits.ts': ruleSource('waits', "  chrome.webRequest.onBeforeRequest.addListener(() => {}, { urls: [`*://${host}/*`] });", undefined, "import { host } from './lib/later.js';") },
    });
    expect(folder.host.rule('waits')?.state).toBe('failed');
    const since = folder.mark();
    await folder.write('lib/later.ts', "export const host = 'later.example';\n");
    await folder.waitForEntry(ruleAction('waits', 'loaded'), { since });
    expect(listenerUrls(folder.host, 'waits')).toEqual(['*://later.example/*']);
  });
});

describe('adding and deleting files', () => {
  it('a new file loads a rule; deleting it unloads the rule and removes its listeners', async () => {
    folder = await openRuleFolder();
    let since = folder.mark();
    await folder.write('added.ts', markerRule('added', 'added.example'));
    await folder.waitForEntry(ruleAction('added', 'loaded'), { since });
    expect(folder.host.rule('added')).toMatchObject({ state: 'active', listeners: [expect.objectContaining({ owner: 'added' })] });

    since = folder.mark();
    await folder.remove('added.ts');
    await folder.waitForEntry(ruleAction('added', 'unloaded'), { since });
    expect(folder.host.rule('added')).toMatchObject({ state: 'unloaded', listeners: [] });
    expect(folder.engine.registry.count()).toBe(0);
  });

  it('unloading stops the rule\'s timers', async () => {
    const source = ruleSource('ticker', "  setInterval(() => console.log('tick'), 10);", { permissions: [] });
    folder = await openRuleFolder({ files: { 'ticker.ts': source } });
    await folder.waitForEntry((e) => e.kind === 'log' && e.message === 'tick', { since: 0 });
    const since = folder.mark();
    await folder.remove('ticker.ts');
    await folder.waitForEntry(ruleAction('ticker', 'unloaded'), { since });
    const ticks = folder.logEntries('ticker').length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(folder.logEntries('ticker').length).toBe(ticks);
  });
});

describe('the handlerBehaviorChanged quota across reloads', () => {
  it('21 saves in a row: the 21st reload\'s call is refused (20/20), and the rule still reloads', async () => {
    folder = await openRuleFolder({ files: { 'busy.ts': markerRule('busy', 'v0.example') } });
    const calls: HandlerBehaviorChangedEntry[] = [];
    for (let save = 1; save <= 21; save++) {
      const since = folder.mark();
      await folder.write('busy.ts', markerRule('busy', `v${save}.example`));
      const call = await folder.waitForEntry((e: JournalEntry): e is HandlerBehaviorChangedEntry & JournalEntry => e.kind === 'handlerBehaviorChanged', { since });
      calls.push(call);
      expect(listenerUrls(folder.host, 'busy')).toEqual([`*://v${save}.example/*`]);
    }
    expect(calls.slice(0, 20).every((call) => call.accepted)).toBe(true);
    expect(calls[19]).toMatchObject({ owner: 'busy', accepted: true, used: 20, limit: 20 });
    expect(calls[20]).toMatchObject({ owner: 'busy', accepted: false, used: 20, limit: 20, refused: 1 });
    expect(folder.host.rule('busy')).toMatchObject({ state: 'active', reloadCount: 21, quota: { used: 20, limit: 20, refused: 1 } });
  });
});
