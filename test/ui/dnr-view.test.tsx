// What the TUI says about declarativeNetRequest: in a request's Rules tab, which rules acted (rule,
// priority, action, header changes) and why the others did not (the first condition that failed);
// in the filter, dnr:block and dnr:RULESET#ID (acted on it, or would match it now).
import { afterEach, describe, expect, it } from 'vitest';
import { compileFilter } from '../../src/ui/filter/compile-filter.js';
import { KEYS, startHarness, type Harness } from './ui-harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const RULES = [
  { id: 1, priority: 1, action: { type: 'block' }, condition: { urlFilter: '/ads/', resourceTypes: ['script'] } },
  { id: 2, priority: 1, action: { type: 'block' }, condition: { urlFilter: '/ads/', resourceTypes: ['image'] } },
  { id: 3, priority: 2, action: { type: 'modifyHeaders', requestHeaders: [{ header: 'x-tag', operation: 'set', value: 'on' }] }, condition: { urlFilter: '||shop.test^', requestMethods: ['post'] } },
  { id: 4, priority: 1, action: { type: 'block' }, condition: { urlFilter: '/never-here/' } },
];

async function start() {
  const h = (harness = await startHarness({ size: { columns: 160, rows: 40 } }));
  await h.engine.dnr.addExtension({ extensionId: 'a'.repeat(32), name: 'Ad Rules', baseUrl: `chrome-extension://${'a'.repeat(32)}/`, rulesets: [{ id: 'main', path: 'rules.json', enabled: true, rules: RULES }] });
  return h;
}

describe('declarativeNetRequest in the TUI', () => {
  it('the Rules tab names the rule that blocked a request and why the near misses did not act', async () => {
    const h = await start();
    await h.request('http://shop.test/ads/banner.js', { type: 'script' });
    await h.settle();
    await h.press(KEYS.enter, KEYS.tab, KEYS.tab, KEYS.tab);
    const frame = await h.waitFor('declarativeNetRequest');
    expect(frame).toMatch(/onBeforeRequest\s+block\s+Ad Rules\s+main#1\s+priority 1/);
    expect(frame).toContain('Why the other rules did not act');
    expect(frame).toMatch(/main#2 block\s+priority 1\s+resourceTypes: script is not included/);
    expect(frame).toMatch(/main#3 modifyHeaders\s+priority 2\s+requestMethods: get is not included/);
    expect(frame).toContain('1 other rule: the URL condition does not match http://shop.test/ads/banner.js');
  });

  it('header changes are listed under the rule that made them', async () => {
    const h = await start();
    await h.request('http://shop.test/cart', { method: 'POST', body: 'x=1' });
    await h.settle();
    await h.press(KEYS.enter, KEYS.tab, KEYS.tab, KEYS.tab);
    const frame = await h.waitFor('declarativeNetRequest');
    expect(frame).toMatch(/onBeforeSendHeaders\s+modifyHeaders\s+Ad Rules\s+main#3/);
    expect(frame).toMatch(/set x-tag: on\s+\(rule 3\)/);
  });

  it('dnr:block lists what rules blocked; dnr:main#2 what that rule would match now, though it never acted', async () => {
    const h = await start();
    await h.request('http://shop.test/ads/banner.js', { type: 'script' });
    await h.request('http://shop.test/ads/pixel.png', { type: 'image' });
    await h.request('http://shop.test/ads/other.css', { type: 'stylesheet' });
    await h.settle();
    const records = h.store.all();
    const matching = (source: string) => {
      const compiled = compileFilter(source, { dnrRuleMatches: (rule, request) => h.backend.dnrRuleMatches!(rule, { url: request.url, method: request.method, type: request.type as never, tabId: -1 }) });
      if (!compiled.ok) throw new Error(compiled.error.message);
      return records.filter((record) => compiled.predicate!(record)).map((record) => record.path);
    };
    expect(matching('dnr:block')).toEqual(['/ads/banner.js', '/ads/pixel.png']);
    expect(matching('dnr:main#1')).toEqual(['/ads/banner.js']);
    expect(matching('dnr:4')).toEqual([]);
    expect(compileFilter('dnr:nonsense')).toMatchObject({ ok: false, error: { message: expect.stringContaining('dnr:any') } });
  });
});

describe('the rules view', () => {
  it('lists an extension\'s rulesets (on or off, rule counts, skipped rules) and its dynamic and session rules', async () => {
    const { ruleDetailLines } = await import('../../src/ui/rules/rule-lines.js');
    const { stripAnsi, renderLine } = await import('../../src/ui/ansi.js');
    const status = {
      name: 'Ad Rules',
      file: '/ext/ad-rules',
      kind: 'extension' as const,
      extensionId: 'a'.repeat(32),
      persona: 'chrome' as const,
      state: 'active' as const,
      dryRun: false,
      precedence: 1,
      reloadCount: 0,
      listeners: [],
      eventListeners: [],
      quota: { used: 0, limit: 20, refused: 0, nextSlotFreeAt: null },
      lastLoadedAt: undefined,
      typeErrors: [],
      declarativeNetRequest: {
        rulesets: [
          { id: 'main', path: 'rules/main.json', enabled: true, rules: 9, skipped: ['rule 50: condition.urlFilter: must not be empty'] },
          { id: 'extra', path: 'rules/extra.json', enabled: false, rules: 1, skipped: [] },
        ],
        dynamicRules: 1,
        sessionRules: 2,
      },
      runtime: { state: 'running' as const, restarts: 0, heapUsedBytes: 0, node: false },
    };
    const text = ruleDetailLines(status, '/ext', Date.now()).map((line) => stripAnsi(renderLine(line, 160)));
    expect(text).toContain('declarativeNetRequest (12 rules in effect)');
    expect(text.some((line) => /main\s+on\s+9 rules\s+rules\/main\.json\s+1 skipped \(invalid\)/.test(line))).toBe(true);
    expect(text.some((line) => /extra\s+off\s+1 rule /.test(line))).toBe(true);
    expect(text).toContain('      rule 50: condition.urlFilter: must not be empty');
    expect(text.some((line) => /_session\s+2 rules/.test(line))).toBe(true);
  });

  it("shows where an extension's storage.local lives, since editing that file is how it is configured here", async () => {
    const { ruleDetailLines } = await import('../../src/ui/rules/rule-lines.js');
    const { stripAnsi, renderLine } = await import('../../src/ui/ansi.js');
    const status = {
      name: 'Toolbar Redirector', file: '/ext/toolbar', kind: 'extension' as const, extensionId: 'a'.repeat(32), persona: 'spec' as const, state: 'active' as const,
      dryRun: false, precedence: 1, reloadCount: 0, listeners: [], eventListeners: [], quota: { used: 0, limit: 20, refused: 0, nextSlotFreeAt: null }, lastLoadedAt: undefined, typeErrors: [],
      storage: { file: `/state/extensions/${'a'.repeat(32)}/storage.json`, local: 2, session: 1 },
      runtime: { state: 'running' as const, restarts: 0, heapUsedBytes: 0, node: false },
    };
    const text = ruleDetailLines(status, '/ext', Date.now()).map((line) => stripAnsi(renderLine(line, 200)));
    expect(text).toContain(`Storage local 2 items  /state/extensions/${'a'.repeat(32)}/storage.json  edit it to configure the extension: it hears storage.onChanged  · session 1 item`);
  });
});
