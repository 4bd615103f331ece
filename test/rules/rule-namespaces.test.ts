// What a rule's background receives: its own chrome (callbacks, runtime.lastError) and browser
// (Promises) namespaces: webRequest and cookies only as the manifest declares them, beside what a
// browser gives every extension (runtime, i18n, permissions, extension, management, tabs, windows).
import { afterEach, describe, expect, it } from 'vitest';
import { lineOf, openRuleFolder, ruleSource, type RuleFolder } from './rule-folder.js';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

/** What REPORT_NAMESPACES logged (the rule's console output is an info entry). */
function reportOf(rule: string): unknown {
  return JSON.parse(folder!.logEntries(rule).find((entry) => entry.level === 'info')!.message);
}

const REPORT_NAMESPACES = `
  console.log(JSON.stringify({
    chrome: Object.keys(chrome).sort(),
    browser: Object.keys(browser).sort(),
    chromeCookies: typeof chrome.cookies,
    chromeWebRequest: typeof chrome.webRequest,
  }));`;

/** What Chromium 156 gives every extension, whatever its manifest (test/extensions/chromium-surfaces.test.ts), sorted. */
const EVERY_EXTENSION = ['extension', 'i18n', 'management', 'permissions', 'runtime', 'tabs', 'windows'];
const sorted = (...names: string[]) => names.sort();

describe('namespaces follow the manifest', () => {
  it('with webRequest and cookies: those two and what every extension has in a browser, nothing else', async () => {
    folder = await openRuleFolder({ files: { 'everything.ts': ruleSource('everything', REPORT_NAMESPACES) } });
    expect(reportOf('everything')).toEqual({
      chrome: sorted('cookies', 'webRequest', ...EVERY_EXTENSION),
      browser: sorted('cookies', 'webRequest', ...EVERY_EXTENSION),
      chromeCookies: 'object',
      chromeWebRequest: 'object',
    });
  });

  it('without "cookies", chrome.cookies is undefined', async () => {
    folder = await openRuleFolder({ files: { 'no-cookies.ts': ruleSource('no-cookies', REPORT_NAMESPACES, { permissions: ['webRequest'], host_permissions: ['<all_urls>'] }) } });
    expect(reportOf('no-cookies')).toMatchObject({ chrome: sorted('webRequest', ...EVERY_EXTENSION), chromeCookies: 'undefined' });
    // Silent in a browser; wrtui leaves a debug hint saying which permission would grant it.
    expect(folder.logEntries('no-cookies').filter((e) => e.level === 'debug').map((e) => e.message)).toEqual(['chrome.cookies is undefined: the manifest does not ask for the "cookies" permission']);
  });

  it('without "webRequest", chrome.webRequest is undefined', async () => {
    folder = await openRuleFolder({ files: { 'cookies-only.ts': ruleSource('cookies-only', REPORT_NAMESPACES, { permissions: ['cookies'], host_permissions: ['<all_urls>'] }) } });
    expect(reportOf('cookies-only')).toMatchObject({ chrome: sorted('cookies', ...EVERY_EXTENSION), browser: sorted('cookies', ...EVERY_EXTENSION), chromeWebRequest: 'undefined' });
  });

  it('a blocking listener without "webRequestBlocking" throws Chrome\'s message in the background: a load failure at that line', async () => {
    const source = ruleSource(
      'no-blocking',
      "  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['<all_urls>'] }, ['blocking']);",
      { permissions: ['webRequest'], host_permissions: ['<all_urls>'] },
    );
    folder = await openRuleFolder({ files: { 'no-blocking.ts': source } });
    expect(folder.host.rule('no-blocking')).toMatchObject({
      state: 'failed',
      listeners: [],
      error: {
        message:
          'the background threw TypeError: webRequest.onBeforeRequest.addListener: You do not have permission to use blocking webRequest listeners. Be sure to declare the webRequestBlocking permission in your manifest.',
        location: expect.stringMatching(new RegExp(`^${folder.path('no-blocking.ts')}:${lineOf(source, 'addListener')}:\\d+$`)),
      },
    });
  });
});

describe('the two styles', () => {
  it('chrome.* delivers failures through chrome.runtime.lastError inside the callback; browser.* rejects', async () => {
    const body = `
  chrome.cookies.get({ url: 'https://elsewhere.example/', name: 'x' }, (cookie: unknown) => {
    console.log('chrome', String(cookie), chrome.runtime.lastError?.message);
    setTimeout(() => console.log('after callback', String(chrome.runtime.lastError)), 0);
  });
  browser.cookies.get({ url: 'https://elsewhere.example/', name: 'x' }).catch((error: Error) => console.log('browser', error.message));`;
    folder = await openRuleFolder({ files: { 'styles.ts': ruleSource('styles', body, { permissions: ['cookies'], host_permissions: ['https://mine.example/*'] }) } });
    await folder.waitForEntry((e) => e.kind === 'log' && e.message.startsWith('browser'), { since: 0 });
    await folder.waitForEntry((e) => e.kind === 'log' && e.message.startsWith('after callback'), { since: 0 });
    const noPermission = 'No host permissions for cookies at url: "https://elsewhere.example/".';
    expect(folder.logEntries('styles').map((e) => e.message).sort()).toEqual(
      [`chrome undefined ${noPermission}`, 'after callback undefined', `browser ${noPermission}`].sort(),
    );
  });

  it('an async background may await the browser.* API before registering', async () => {
    const body = `
  const stores = await browser.cookies.getAllCookieStores();
  chrome.webRequest.onBeforeRequest.addListener(() => {}, { urls: [\`*://store-\${stores.length}.example/*\`] });`;
    const source = ruleSource('async-background', body).replace('export default function', 'export default async function');
    folder = await openRuleFolder({ files: { 'async-background.ts': source } });
    expect(folder.host.rule('async-background')?.listeners.map((l) => l.filter.urls[0])).toEqual(['*://store-2.example/*']);
  });

  it('each rule has its own namespaces: unloading one removes exactly its listeners', async () => {
    const listen = (host: string) => `  chrome.webRequest.onBeforeRequest.addListener(() => {}, { urls: ['*://${host}/*'] });
  chrome.cookies.onChanged.addListener(() => console.log('${host} saw a cookie change'));`;
    folder = await openRuleFolder({ files: { 'one.ts': ruleSource('one', listen('one.example')), 'two.ts': ruleSource('two', listen('two.example')) } });
    const since = folder.mark();
    await folder.remove('one.ts');
    await folder.waitForEntry((e) => e.kind === 'rule' && e.action === 'unloaded', { since });
    expect(folder.engine.registry.describe().map((l) => l.owner)).toEqual(['two']);
    const beforeChange = folder.mark();
    folder.engine.cookies.setFromResponse('https://shop.example/', ['a=1'], '0');
    await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'two', { since: beforeChange });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(folder.logEntries().filter((e) => e.message.endsWith('saw a cookie change')).map((e) => e.source)).toEqual(['two']);
  });
});

describe('the globals a rule sees', () => {
  it('"the Web platform globals Node\'s workers have", none of Node\'s own; they are writable, as a browser\'s are (an extension may wrap fetch)', async () => {
    const REPORT_GLOBALS = `
  const before = typeof fetch;
  const original = fetch;
  const wrapped = (...args: unknown[]) => original(...(args as [string]));
  (globalThis as any).fetch = wrapped;
  console.log(JSON.stringify({
    web: [typeof URL, typeof TextEncoder, typeof crypto.randomUUID, typeof structuredClone, typeof Headers, typeof CompressionStream, typeof WebAssembly, before],
    fetchIsAGlobal: 'fetch' in globalThis && Object.keys(globalThis).includes('fetch'),
    fetchWrapped: (globalThis as any).fetch === wrapped && fetch === wrapped,
    headersWork: new Headers({ 'X-A': '1' }).get('x-a'),
    node: [typeof process, typeof Buffer, typeof setImmediate],
  }));`;
    folder = await openRuleFolder({ files: { 'globals.ts': ruleSource('globals', REPORT_GLOBALS) } });
    expect(reportOf('globals')).toEqual({
      web: ['function', 'function', 'function', 'function', 'function', 'function', 'object', 'function'],
      fetchIsAGlobal: true,
      fetchWrapped: true,
      headersWork: '1',
      node: ['undefined', 'undefined', 'undefined'],
    });
  });
});
