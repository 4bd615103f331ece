// The global scope as an EventTarget where Chromium 156 cannot be the oracle: MV2 background pages
// (Chromium no longer runs MV2) and what wrtui says when a listener on the global throws. The
// service worker's side is compared with Chromium in chromium-service-worker.test.ts.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { extensionIdFromKey } from '../../src/engine/extensions/extension-id.js';
import { storageFileOf } from '../../src/engine/extensions/storage-areas.js';
import { startOrigin } from '../helpers/origin.js';
import { openRuleFolder, type RuleFolder } from '../rules/rule-folder.js';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

const mv2 = (name: string, scripts: Record<string, string>) => ({
  [`${name}/manifest.json`]: JSON.stringify({ manifest_version: 2, name, version: '1', background: { scripts: Object.keys(scripts) } }),
  ...Object.fromEntries(Object.entries(scripts).map(([file, source]) => [`${name}/${file}`, source])),
});

describe("a background page's window", () => {
  it('fires DOMContentLoaded, then load, once every background script ran (window.addEventListener and window.onload)', async () => {
    folder = await openRuleFolder({
      files: mv2('Page', {
        'a.js': `self.order = ['a.js ran'];
window.addEventListener('DOMContentLoaded', (event) => order.push('DOMContentLoaded ' + (event.target === window)));
window.onload = () => order.push('onload');`,
        'b.js': `order.push('b.js ran'); window.addEventListener('load', () => order.push('load listener'));
setTimeout(() => console.log(JSON.stringify(order)), 50);`,
      }),
    });
    const entry = await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'Page' && e.message.startsWith('['), { since: 0 });
    // Listeners run in the order they were added: onload was set before b.js added its own.
    expect(JSON.parse((entry as { message: string }).message)).toEqual(['a.js ran', 'b.js ran', 'DOMContentLoaded true', 'onload', 'load listener']);
  });

  it("a listener on the global that throws is reported at its file:line, and the other listeners still run", async () => {
    folder = await openRuleFolder({
      files: mv2('Thrower', {
        'bg.js': `window.addEventListener('load', () => { null.boom; });
window.addEventListener('load', () => console.log('second listener ran'));`,
      }),
    });
    await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'Thrower' && e.message === 'second listener ran', { since: 0 });
    const uncaught = folder.logEntries('Thrower').filter((e) => e.level === 'error');
    expect(uncaught.map((e) => e.message)).toEqual([expect.stringMatching(/^a "load" event listener: TypeError: Cannot read properties of null \(reading 'boom'\)/)]);
    expect(JSON.stringify(uncaught[0])).toContain('bg.js:1');
  });
});

describe("a background page's document (linkedom's DOM, run when the page first touches it)", () => {
  const probe = `
const report = { atTopLevel: document.readyState };
report.location = document.location.href === self.location.href && document.URL === location.href;
report.defaultView = document.defaultView === window;
report.scripts = [...document.querySelectorAll('script')].map((script) => script.getAttribute('src'));
const a = document.createElement('a');
a.href = 'https://user:pw@sub.example.com:8080/p/q?x=1#h';
report.anchor = [a.protocol, a.username, a.hostname, a.port, a.host, a.pathname, a.search, a.hash, a.origin].join(' ');
a.href = '/options.html?tab=2';
report.relative = a.href.replace(/[a-p]{32}/, 'ID');
const xml = new DOMParser().parseFromString('<list><item id="1">one</item><item id="2">two</item></list>', 'text/xml');
report.xml = [...xml.querySelectorAll('item')].map((item) => item.getAttribute('id') + ':' + item.textContent).join(',');
const div = document.createElement('div');
div.innerHTML = '<span class="x">hi</span>';
document.body.appendChild(div);
report.body = document.body.querySelector('.x').textContent;
report.instances = [div instanceof HTMLElement, div instanceof Node, typeof HTMLIFrameElement].join(' ');
document.addEventListener('DOMContentLoaded', () => (report.onDOMContentLoaded = document.readyState));
window.addEventListener('load', () => {
  report.onLoad = document.readyState;
  console.log(JSON.stringify(report));
});`;

  it('answers as the page would: readyState loading → interactive → complete, location, the page\'s own elements, anchors\' URL parts, DOMParser, elements of its realm', async () => {
    folder = await openRuleFolder({
      files: {
        'page/manifest.json': JSON.stringify({ manifest_version: 2, name: 'Page DOM', version: '1', background: { page: 'background.html' } }),
        'page/background.html': '<!doctype html><html><head><title>bg</title></head><body><script src="lib.js"></script><script src="main.js"></script></body></html>',
        'page/lib.js': 'self.fromLib = true;',
        'page/main.js': probe,
      },
    });
    const entry = await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'Page DOM' && e.message.startsWith('{'), { since: 0 });
    expect(JSON.parse((entry as { message: string }).message)).toEqual({
      atTopLevel: 'loading',
      location: true,
      defaultView: true,
      scripts: ['lib.js', 'main.js'],
      anchor: 'https: user sub.example.com 8080 sub.example.com:8080 /p/q ?x=1 #h https://sub.example.com:8080',
      relative: 'chrome-extension://ID/options.html?tab=2',
      xml: '1:one,2:two',
      body: 'hi',
      instances: 'true true function',
      onDOMContentLoaded: 'interactive',
      onLoad: 'complete',
    });
  });

  it('background.scripts get the page Chromium generates for them (one script element each)', async () => {
    folder = await openRuleFolder({
      files: mv2('Generated', {
        'one.js': 'self.started = performance.now();',
        'two.js': `console.log(JSON.stringify({ scripts: [...document.querySelectorAll('script')].map((s) => s.getAttribute('src')), title: document.title }));`,
      }),
    });
    const entry = await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'Generated' && e.message.startsWith('{'), { since: 0 });
    expect(JSON.parse((entry as { message: string }).message)).toEqual({ scripts: ['one.js', 'two.js'], title: '' });
  });

  it('a service worker has no DOM: document is not defined there, as in Chrome', async () => {
    folder = await openRuleFolder({
      files: {
        'sw/manifest.json': JSON.stringify({ manifest_version: 3, name: 'No DOM', version: '1', background: { service_worker: 'sw.js' } }),
        'sw/sw.js': `console.log(JSON.stringify({ document: typeof document, DOMParser: typeof DOMParser, window: typeof window }));`,
      },
    });
    const entry = await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'No DOM' && e.message.startsWith('{'), { since: 0 });
    expect(JSON.parse((entry as { message: string }).message)).toEqual({ document: 'undefined', DOMParser: 'undefined', window: 'undefined' });
  });
});

describe("a background page's localStorage and sessionStorage", () => {
  const page = (name: string, script: string) => mv2(name, { 'bg.js': script });

  it('behave as a window\'s: strings only, items as properties, length and key(), removal, clear; a service worker has neither', async () => {
    folder = await openRuleFolder({
      files: {
        ...page(
          'Storage',
          `const report = {};
localStorage.setItem('count', 3);
localStorage.theme = 'dark';
report.count = [localStorage.getItem('count'), typeof localStorage.getItem('count')];
report.theme = [localStorage.theme, localStorage.getItem('theme')];
report.missing = localStorage.getItem('nothing');
report.keys = Object.keys(localStorage).sort();
report.length = localStorage.length;
report.key0 = localStorage.key(0);
delete localStorage.theme;
localStorage.removeItem('count');
report.afterRemoval = localStorage.length;
sessionStorage.setItem('tab', 'one');
report.session = sessionStorage.tab;
report.kind = [Object.prototype.toString.call(localStorage), localStorage instanceof Storage];
try { new Storage(); } catch (error) { report.construct = error.message; }
try { localStorage.setItem('big', 'x'.repeat(5 * 1024 * 1024)); } catch (error) { report.quota = error.name; }
console.log(JSON.stringify(report));`,
        ),
        'sw/manifest.json': JSON.stringify({ manifest_version: 3, name: 'No storage', version: '1', background: { service_worker: 'sw.js' } }),
        'sw/sw.js': `console.log(JSON.stringify([typeof localStorage, typeof sessionStorage]));`,
      },
    });
    const reported = async (source: string) => JSON.parse(((await folder!.waitForEntry((e) => e.kind === 'log' && e.source === source && /^[[{]/.test(e.message), { since: 0 })) as { message: string }).message) as unknown;
    expect(await reported('Storage')).toEqual({
      count: ['3', 'string'],
      theme: ['dark', 'dark'],
      missing: null,
      keys: ['count', 'theme'],
      length: 2,
      key0: 'count',
      afterRemoval: 0,
      session: 'one',
      kind: ['[object Storage]', true],
      construct: 'Illegal constructor',
      quota: 'QuotaExceededError',
    });
    expect(await reported('No storage')).toEqual(['undefined', 'undefined']);
  });

  it('localStorage outlives wrtui: the next start finds what the page set (its file is 0600); sessionStorage does not', async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'wrtui-web-storage-'));
    const script = `const visits = Number(localStorage.getItem('visits') ?? 0) + 1;
localStorage.setItem('visits', String(visits));
console.log(JSON.stringify({ visits, session: sessionStorage.getItem('seen') }));
sessionStorage.setItem('seen', 'yes');`;
    // Each start is a new folder: the manifest's key keeps the id (and so the storage) the same, as in Chrome.
    const key = (JSON.parse(await readFile(new URL('../../fixtures/extensions/mv3-blocker/manifest.json', import.meta.url), 'utf8')) as { key: string }).key;
    const files = { 'Visits/manifest.json': JSON.stringify({ manifest_version: 2, name: 'Visits', version: '1', key, background: { scripts: ['bg.js'] } }), 'Visits/bg.js': script };
    try {
      for (const expected of [1, 2]) {
        folder = await openRuleFolder({ files, host: { stateDir } });
        const entry = await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'Visits' && e.message.startsWith('{'), { since: 0 });
        expect(JSON.parse((entry as { message: string }).message)).toEqual({ visits: expected, session: null });
        // The change reaches the host within a turn; closing writes what it holds.
        await new Promise((resolve) => setTimeout(resolve, 50));
        await folder.close();
        folder = undefined;
        const file = path.join(path.dirname(storageFileOf(stateDir, extensionIdFromKey(key))), 'local-storage.json');
        expect((await stat(file)).mode & 0o777).toBe(0o600);
      }
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});

describe("a background page's XMLHttpRequest (over its fetch)", () => {
  it('loads the extension\'s own file and an origin\'s answer with the events and states of a browser\'s; errors, abort, timeout and synchronous use fail as they should', async () => {
    const origin = await startOrigin((req, res) => {
      if (req.url === '/slow') return; // never answers: the request's timeout ends it
      res.setHeader('Content-Type', 'text/plain');
      res.end(`${req.method} ${req.url} x-token=${req.headers['x-token'] ?? ''}`);
    });
    try {
      folder = await openRuleFolder({
        files: {
          'Xhr/data.json': '{ "list": [1, 2] }',
          'Xhr/feed.xml': '<feed><entry id="a"/><entry id="b"/></feed>',
          ...mv2('Xhr', {
            'bg.js': `
const report = {};
const request = (method, url, setup = () => {}) => new Promise((resolve) => {
  const xhr = new XMLHttpRequest();
  const seen = [];
  xhr.onreadystatechange = () => seen.push('state ' + xhr.readyState);
  for (const type of ['loadstart', 'progress', 'load', 'error', 'abort', 'timeout']) xhr.addEventListener(type, () => seen.push(type));
  xhr.onloadend = () => resolve({ xhr, seen });
  xhr.open(method, url);
  setup(xhr);
});
(async () => {
  const own = await request('GET', 'data.json', (xhr) => { xhr.responseType = 'json'; xhr.send(); });
  report.own = [own.xhr.status, own.xhr.response, own.xhr.getResponseHeader('Content-Type'), own.xhr.responseURL.replace(/[a-p]{32}/, 'ID'), own.seen];
  const posted = await request('POST', 'ORIGIN/api', (xhr) => { xhr.setRequestHeader('X-Token', 't1'); xhr.send('body'); });
  report.origin = [posted.xhr.status, posted.xhr.responseText];
  const xml = await request('GET', 'feed.xml', (xhr) => xhr.send());
  report.xml = [...xml.xhr.responseXML.querySelectorAll('entry')].map((entry) => entry.getAttribute('id')).join(',');
  const missing = await request('GET', 'missing.json', (xhr) => xhr.send());
  report.missing = [missing.xhr.status, missing.seen];
  const slow = await request('GET', 'ORIGIN/slow', (xhr) => { xhr.timeout = 100; xhr.send(); });
  report.timeout = slow.seen;
  const aborted = await request('GET', 'ORIGIN/slow', (xhr) => { xhr.send(); setTimeout(() => xhr.abort(), 20); });
  report.abort = [aborted.xhr.readyState, aborted.seen];
  try { new XMLHttpRequest().open('GET', 'data.json', false); } catch (error) { report.sync = error.name; }
  report.constants = [XMLHttpRequest.DONE, new XMLHttpRequest().OPENED];
  console.log(JSON.stringify(report));
})();`.replaceAll('ORIGIN', origin.url),
          }),
        },
      });
      const entry = await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'Xhr' && e.message.startsWith('{'), { since: 0, timeoutMs: 10_000 });
      expect(JSON.parse((entry as { message: string }).message)).toEqual({
        own: [200, { list: [1, 2] }, 'application/json', 'chrome-extension://ID/data.json', ['state 1', 'loadstart', 'state 2', 'state 3', 'progress', 'state 4', 'load']],
        origin: [200, 'POST /api x-token=t1'],
        xml: 'a,b',
        missing: [0, ['state 1', 'loadstart', 'state 4', 'error']],
        timeout: ['state 1', 'loadstart', 'state 4', 'timeout'],
        abort: [0, ['state 1', 'loadstart', 'state 4', 'abort']],
        sync: 'InvalidAccessError',
        constants: [4, 1],
      });
    } finally {
      await origin.close();
    }
  });
});
