// Which rule acts when several match (developer.chrome.com, declarativeNetRequest, "Rule
// priorities" and "How rules are evaluated across extensions"), as tables: priority × action ×
// source within one extension, and block / redirect across extensions.
import { describe, expect, it } from 'vitest';
import { DnrEngine, type DnrRequestInfo } from '../../src/engine/dnr/dnr-engine.js';
import { Journal, type DnrEntry } from '../../src/engine/journal.js';

const URL_ = 'https://shop.example.com/ads/banner.js?x=1';
const request: DnrRequestInfo = { requestId: '1', url: URL_, method: 'GET', type: 'script', tabId: 1, initiator: 'https://shop.example.com' };

function rule(id: number, type: string, priority = 1, extra: Record<string, unknown> = {}) {
  const action = type === 'redirect' ? { type, redirect: { url: `https://mirror.test/${id}` } } : type === 'modifyHeaders' ? { type, requestHeaders: [{ header: 'x-rule', operation: 'set', value: String(id) }] } : { type };
  return { id, priority, action, condition: { urlFilter: '/ads/', ...(type === 'allowAllRequests' && { resourceTypes: ['main_frame'] }) }, ...extra };
}

async function engineWith(...extensions: { name: string; rules?: unknown[]; dynamic?: unknown[]; session?: unknown[] }[]) {
  const journal = new Journal();
  const seen: DnrEntry[] = [];
  journal.subscribe((entry) => {
    if (entry.kind === 'dnr') seen.push(entry);
  });
  const dnr = new DnrEngine({ journal });
  for (const [n, extension] of extensions.entries()) {
    const extensionId = String.fromCharCode(97 + n).repeat(32);
    await dnr.addExtension({ extensionId, name: extension.name, baseUrl: `chrome-extension://${extensionId}/`, rulesets: [{ id: 'static', path: 'rules.json', enabled: true, rules: extension.rules ?? [] }] });
    if (extension.dynamic) await dnr.call(extensionId, 'updateDynamicRules', [{ addRules: extension.dynamic }]);
    if (extension.session) await dnr.call(extensionId, 'updateSessionRules', [{ addRules: extension.session }]);
  }
  const entries = () => seen;
  return { dnr, entries };
}

describe('within one extension: "the highest priority wins; for equal priorities, allow > allowAllRequests > block > upgradeScheme > redirect"', () => {
  const cases: [string, unknown[], string][] = [
    ['block beats redirect at equal priority', [rule(1, 'redirect'), rule(2, 'block')], 'block'],
    ['a redirect of higher priority beats a block', [rule(1, 'redirect', 2), rule(2, 'block', 1)], 'redirect https://mirror.test/1'],
    ['allow beats block at equal priority', [rule(1, 'block'), rule(2, 'allow')], 'none'],
    ['block of higher priority beats allow', [rule(1, 'block', 3), rule(2, 'allow', 2)], 'block'],
    ['upgradeScheme beats redirect at equal priority (https stays: nothing to upgrade, so nothing happens)', [rule(1, 'redirect'), rule(2, 'upgradeScheme')], 'none'],
    ['of two redirects with equal priority, one acts', [rule(1, 'redirect'), rule(2, 'redirect')], 'redirect https://mirror.test/1'],
  ];
  it.each(cases)('%s', async (_name, rules, expected) => {
    const { dnr } = await engineWith({ name: 'one', rules });
    const { action } = dnr.beforeRequest(request);
    expect(action.kind === 'redirect' ? `redirect ${action.url}` : action.kind).toBe(expected);
  });

  it('for equal priority and action, a session rule goes before a dynamic one, and a dynamic one before a static one', async () => {
    const { dnr } = await engineWith({ name: 'one', rules: [rule(1, 'redirect')], dynamic: [rule(2, 'redirect')], session: [rule(3, 'redirect')] });
    expect(dnr.beforeRequest(request).action).toEqual({ kind: 'redirect', url: 'https://mirror.test/3' });
  });

  it('"modifyHeaders rules apply when their priority is higher than the matching allow"', async () => {
    const { dnr } = await engineWith({ name: 'one', rules: [rule(1, 'allow', 2), rule(2, 'modifyHeaders', 3), rule(3, 'modifyHeaders', 1)] });
    const headers = dnr.requestHeaders(request, []);
    expect(headers).toEqual([{ name: 'x-rule', value: '2' }]);
  });

  it('"if a rule set or removed a header, lower-priority rules cannot modify it"; appends may follow appends', async () => {
    const { dnr } = await engineWith({
      name: 'one',
      rules: [
        { id: 1, priority: 3, action: { type: 'modifyHeaders', requestHeaders: [{ header: 'accept-language', operation: 'append', value: 'de' }] }, condition: { urlFilter: '/ads/' } },
        { id: 2, priority: 2, action: { type: 'modifyHeaders', requestHeaders: [{ header: 'accept-language', operation: 'set', value: 'fr' }, { header: 'x-a', operation: 'set', value: 'first' }] }, condition: { urlFilter: '/ads/' } },
        { id: 3, priority: 1, action: { type: 'modifyHeaders', requestHeaders: [{ header: 'accept-language', operation: 'append', value: 'it' }, { header: 'x-a', operation: 'set', value: 'second' }] }, condition: { urlFilter: '/ads/' } },
      ],
    });
    expect(dnr.requestHeaders(request, [{ name: 'Accept-Language', value: 'en' }])).toEqual([
      { name: 'Accept-Language', value: 'en, de, it' },
      { name: 'x-a', value: 'first' },
    ]);
  });
});

describe('across extensions: "a block from any extension wins; otherwise the most recently installed extension\'s redirect"', () => {
  it('an older extension\'s block beats a newer one\'s redirect', async () => {
    const { dnr, entries } = await engineWith({ name: 'old', rules: [rule(1, 'block')] }, { name: 'new', rules: [rule(1, 'redirect', 5)] });
    const { action, entry } = dnr.beforeRequest(request);
    expect(action).toEqual({ kind: 'block' });
    expect(entry!.matches.map((match) => `${match.extension}:${match.action}:${match.status}`)).toEqual(['new:redirect:outranked', 'old:block:applied']);
  });

  it('of two redirects, the newer extension\'s acts, whatever the priorities', async () => {
    const { dnr } = await engineWith({ name: 'old', rules: [rule(1, 'redirect', 9)] }, { name: 'new', rules: [rule(2, 'redirect', 1)] });
    expect(dnr.beforeRequest(request).action).toEqual({ kind: 'redirect', url: 'https://mirror.test/2' });
  });

  it('one extension\'s allow does not keep another\'s block from acting', async () => {
    const { dnr } = await engineWith({ name: 'old', rules: [rule(1, 'block')] }, { name: 'new', rules: [rule(1, 'allow', 9)] });
    expect(dnr.beforeRequest(request).action).toEqual({ kind: 'block' });
  });

  it('header changes: the newer extension\'s set wins over the older one\'s', async () => {
    const { dnr } = await engineWith({ name: 'old', rules: [rule(1, 'modifyHeaders', 9)] }, { name: 'new', rules: [rule(7, 'modifyHeaders', 1)] });
    expect(dnr.requestHeaders(request, [])).toEqual([{ name: 'x-rule', value: '7' }]);
  });
});
