// What the journal says of an extension should let its errors stand out: a script that does not
// compile is named with its file:line (a service worker's said only "Unexpected token ')'" before),
// and what the browser's own surfaces do here (events that never fire, a badge not shown), about
// forty notes when uBlock Origin starts, is said once per extension, in one debug entry, however
// often its worker restarts or reloads (before: an info entry each, again on every restart).
import { afterEach, describe, expect, it } from 'vitest';
import type { JournalEntry, LogEntry } from '../../src/engine/journal.js';
import { openRuleFolder, type RuleFolder } from '../rules/rule-folder.js';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

describe('a script that does not compile is named at its file:line', () => {
  it("a service worker's syntax error: SyntaxError, the file, the line and the column", async () => {
    folder = await openRuleFolder({
      files: {
        'Broken/manifest.json': JSON.stringify({ manifest_version: 3, name: 'Broken', version: '1', background: { service_worker: 'sw.js' } }),
        'Broken/sw.js': "self.ready = true;\nconsole.log(1));\n",
      },
    });
    const failed = await folder.waitForEntry((e) => e.kind === 'rule' && e.action === 'failed', { since: 0 });
    expect(failed).toMatchObject({ message: "the background script threw SyntaxError: Unexpected token ')'", location: `${folder.path('Broken/sw.js')}:2:15` });
  });

  it("a background page's second script: the same, and the page's first script ran", async () => {
    folder = await openRuleFolder({
      files: {
        'Page/manifest.json': JSON.stringify({ manifest_version: 2, name: 'Page', version: '1', background: { scripts: ['a.js', 'b.js'] } }),
        'Page/a.js': "console.log('a ran');\n",
        'Page/b.js': '\n\nconst x = {;\n',
      },
    });
    const failed = await folder.waitForEntry((e) => e.kind === 'rule' && e.action === 'failed', { since: 0 });
    expect(failed).toMatchObject({ message: "the background script threw SyntaxError: Unexpected token ';'", location: `${folder.path('Page/b.js')}:3:12` });
    expect(folder.logEntries('Page').map((e) => e.message)).toContain('a ran');
  });
});

describe("what the browser's own surfaces do here", () => {
  it('is said once per extension, every note in one debug entry, and not again when it reloads', { timeout: 20_000 }, async () => {
    folder = await openRuleFolder({
      files: {
        'Quiet/manifest.json': JSON.stringify({ manifest_version: 2, name: 'Quiet', version: '1', permissions: ['tabs', 'webNavigation', 'storage'], browser_action: {}, background: { scripts: ['bg.js'] } }),
        'Quiet/bg.js': `chrome.tabs.onUpdated.addListener(() => {});
chrome.tabs.onRemoved.addListener(() => {});
chrome.webNavigation.onCommitted.addListener(() => {});
chrome.browserAction.setBadgeText({ text: '1' });
chrome.storage.local.get('reloaded', ({ reloaded }) => {
  if (reloaded) return console.log('reloaded once');
  chrome.storage.local.set({ reloaded: true }, () => setTimeout(() => chrome.runtime.reload(), 100));
});`,
      },
    });
    await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'Quiet' && e.message === 'reloaded once', { since: 0, timeoutMs: 10_000 });
    // The notes of the second version would come within the gathering time: the host says them on close.
    await folder.host.close();
    const logs = folder.entries.filter((e): e is LogEntry & JournalEntry => e.kind === 'log' && e.source === 'Quiet');
    const notes = logs.filter((e) => e.message.includes('chrome.tabs.onUpdated'));
    expect(notes).toHaveLength(1);
    expect(notes[0]!.level).toBe('debug');
    expect(notes[0]!.message.split('\n')).toEqual([
      'what 4 browser APIs it used do here (wrtui is a proxy, not a browser; each said once):',
      '  chrome.tabs.onUpdated: wrtui knows tabs only from the traffic it sees; this event never fires',
      '  chrome.tabs.onRemoved: wrtui knows tabs only from the traffic it sees; this event never fires',
      '  chrome.webNavigation.onCommitted: wrtui sees requests, not navigations in tabs; this event never fires',
      '  chrome.browserAction.setBadgeText: wrtui has no toolbar; kept (its getter gives it back), not shown',
    ]);
    expect(logs.filter((e) => e.level === 'info' && e.message.startsWith('chrome.'))).toEqual([]);
  });
});
