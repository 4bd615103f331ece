// An extension may replace a namespace of `chrome` with an object of its own, as browsers allow
// (Proxy Switcher assigns `chrome.proxy` in Firefox and keeps calling `browser.proxy`): the name
// is then the extension's object, and the other root keeps the browser's.
import { afterEach, describe, expect, it } from 'vitest';
import { openRuleFolder, type RuleFolder } from '../rules/rule-folder.js';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

describe('an extension replaces a namespace with its own object', () => {
  it.each(['firefox', 'chrome'] as const)('under the %s persona, chrome.proxy becomes its object and browser.proxy stays the browser\'s', async (persona) => {
    folder = await openRuleFolder({
      host: { persona },
      files: {
        'Replacer/manifest.json': JSON.stringify({ manifest_version: 2, name: 'Replacer', version: '1', permissions: ['proxy', 'storage'], background: { scripts: ['page.js'] } }),
        'Replacer/page.js': `
const own = { callbacks: [], settings: {} };
chrome.proxy = own;
chrome.proxy.callbacks.push(1);
chrome.storage.replaced = 'kept';
const browserProxy = typeof browser.proxy.settings.get;
console.log(JSON.stringify({ same: chrome.proxy === own, callbacks: chrome.proxy.callbacks.length, nested: chrome.storage.replaced, browserProxy }));`,
      },
    });
    const entry = await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'Replacer' && e.message.startsWith('{'), { since: 0 });
    expect(JSON.parse((entry as { message: string }).message)).toEqual({ same: true, callbacks: 1, nested: 'kept', browserProxy: 'function' });
    expect(folder.logEntries('Replacer').filter((e) => e.level === 'error' || e.level === 'warn')).toEqual([]);
  });
});
