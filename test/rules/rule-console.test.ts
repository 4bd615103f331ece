// A rule's console writes to the journal as `log` entries whose source is the rule's name, with
// the method's level; the console of helpers the rule imports is the rule's too.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openRuleFolder, ruleSource, type RuleFolder } from './rule-folder.js';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

describe('rule console', () => {
  it('log, info, debug, warn, error, table and formatting become journal entries of the rule, not stdout', async () => {
    const body = `
  console.log('hello %s, %d listeners', 'world', 3);
  console.info({ nested: { depth: 1 } });
  console.debug('details');
  console.warn('careful');
  console.error(new Error('bad').message);
  console.table([{ host: 'a.example' }]);`;
    const stdout = vi.spyOn(process.stdout, 'write');
    try {
      folder = await openRuleFolder({ files: { 'chatty.ts': ruleSource('chatty', body, { permissions: [] }, "console.log('top level');") } });
      expect(stdout.mock.calls.flat().join('')).not.toMatch(/hello world|careful|top level/);
    } finally {
      stdout.mockRestore();
    }
    const logs = folder.logEntries('chatty').map((e) => [e.level, e.message]);
    expect(logs.slice(0, 6)).toEqual([
      ['info', 'top level'],
      ['info', 'hello world, 3 listeners'],
      ['info', '{ nested: { depth: 1 } }'],
      ['debug', 'details'],
      ['warn', 'careful'],
      ['error', 'bad'],
    ]);
    expect(logs[6]?.[1]).toContain('a.example');
  });

  it('a helper\'s console.log is attributed to the rule that imports it', async () => {
    folder = await openRuleFolder({
      files: {
        'lib/say.ts': "export function say(text: string): void {\n  console.log(`helper: ${text}`);\n}\n",
        'speaker.ts': ruleSource('speaker', "  say('hi');", { permissions: [] }, "import { say } from './lib/say.js';"),
      },
    });
    expect(folder.logEntries('speaker').map((e) => e.message)).toEqual(['helper: hi']);
  });

  it('a listener\'s console output keeps the rule\'s name across reloads', async () => {
    folder = await openRuleFolder({
      files: { 'narrator.ts': ruleSource('narrator', "  chrome.webRequest.onBeforeRequest.addListener((d: { url: string }) => console.log('saw', d.url), { urls: ['<all_urls>'] });") },
    });
    await folder.run('http://page.example/');
    // An observing listener runs in the rule's worker, unwaited: its output arrives after the request.
    await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'narrator', { since: 0 });
    expect(folder.logEntries('narrator').map((e) => e.message)).toEqual(['saw http://page.example/']);
  });
});
