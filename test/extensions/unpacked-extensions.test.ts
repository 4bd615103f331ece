// Unpacked extensions written for a browser, loaded unchanged (`--extension <dir>`, or a rules
// sub-folder holding a manifest.json), acting on real traffic through the proxy.
import { cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { extensionIdFromPath } from '../../src/engine/extensions/extension-id.js';
import { storageFileOf } from '../../src/engine/extensions/storage-areas.js';
import type { PersonaName } from '../../src/engine/personas/index.js';
import type { JournalEntry, LogEntry } from '../../src/engine/journal.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';
import { closeRig } from '../helpers/close-rig.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/extensions/', import.meta.url));
const MV3_ID = 'npngpgadjklogcjnddakfnmbbkeidjap';

let harness: ProxyHarness | undefined;
let host: ExtensionHost | undefined;
let origin: Origin | undefined;
let work: string | undefined;
afterEach(async () => {
  await closeRig({ host, harness, origin, folder: work });
  host = harness = origin = work = undefined;
});

/** Copies of the fixtures in a temp folder (so a test may edit them), loaded with --extension. */
async function loadFixtures(names: string[], options: { watch?: boolean; persona?: PersonaName; storage?: Record<string, Record<string, unknown>> } = {}): Promise<Record<string, string>> {
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-extensions-'));
  const dirs: Record<string, string> = {};
  for (const name of names) {
    dirs[name] = path.join(work, name);
    await cp(path.join(FIXTURES, name), dirs[name]!, { recursive: true });
  }
  origin = await startOrigin((req, res) => res.end(`origin: ${req.url}`));
  harness = await startProxyHarness();
  // storage.local as an options page would have left it, by fixture name.
  for (const [name, items] of Object.entries(options.storage ?? {})) {
    const file = storageFileOf(harness.stateDir, extensionIdFromPath(dirs[name]!));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(items));
  }
  host = await ExtensionHost.start(harness.engine, { extensions: Object.values(dirs), watch: options.watch ?? false, typeCheck: false, stateDir: harness.stateDir, debounceMs: 20, ...(options.persona && { persona: options.persona }) });
  return dirs;
}

const logsOf = (entries: JournalEntry[], source: string) => entries.filter((e): e is LogEntry & JournalEntry => e.kind === 'log' && e.source === source).map((e) => e.message);
/** What the browser's surfaces do here, as the extension's one debug entry (or entries) lists it: a line each. */
const notesOf = (entries: JournalEntry[], source: string) =>
  entries.filter((e): e is LogEntry & JournalEntry => e.kind === 'log' && e.source === source && e.level === 'debug' && e.message.startsWith('what ')).flatMap((e) => e.message.split('\n').slice(1).map((line) => line.trim()));

describe('an MV3 extension written for Chrome, loaded unchanged', () => {
  it('its service worker (with importScripts) registers at top level; its listeners cancel a request and add a header the origin receives', async () => {
    await loadFixtures(['mv3-blocker']);
    expect(host!.rules()).toEqual([
      expect.objectContaining({ name: 'MV3 Blocker', kind: 'extension', extensionId: MV3_ID, state: 'active', runtime: expect.objectContaining({ state: 'running', node: false }) }),
    ]);
    const blocked = await harness!.curl([`${origin!.url}/blocked/pixel.png`]);
    expect(blocked.code).not.toBe(0);
    expect(harness!.webRequestEntries((e) => e.event === 'onErrorOccurred').map((e) => (e.details as { error?: string }).error)).toEqual(['net::ERR_BLOCKED_BY_CLIENT']);
    expect(origin!.received.map((r) => r.url)).toEqual([]);

    const page = await harness!.curl([`${origin!.url}/page`]);
    expect(page.stdout).toBe('origin: /page');
    expect(origin!.received[0]!.headers['x-mv3-blocker']).toBe(MV3_ID);
    const outcomes = harness!.webRequestEntries((e) => e.event === 'onBeforeSendHeaders').flatMap((e) => e.outcomes);
    expect(outcomes).toEqual([expect.objectContaining({ owner: 'MV3 Blocker', status: 'applied' })]);
    // Its console output reaches the journal whole, under its name (observing listeners are not waited for).
    await harness!.waitFor((e) => e.kind === 'log' && e.source === 'MV3 Blocker' && e.message.startsWith('completed'));
    expect(logsOf(harness!.entries, 'MV3 Blocker')).toContain('completed GET /page 200');
  });

  it('under --persona chrome its "webRequestBlocking" is granted as to a policy-installed extension, and the journal says so once (Chrome 156 grants it to MV3 only by policy)', async () => {
    await loadFixtures(['mv3-blocker'], { persona: 'chrome' });
    const said = () => harness!.entries.filter((e) => e.kind === 'rule' && e.action === 'warning' && e.message?.includes('only when it is installed by policy'));
    await expect.poll(() => host!.rules()[0]?.state).toBe('active');
    expect(said()).toHaveLength(1);
    const blocked = await harness!.curl([`${origin!.url}/blocked/pixel.png`]);
    expect(blocked.code).not.toBe(0);
  });

  it('runtime.onInstalled fires once its listeners are live; chrome.storage.local persists in the state dir (0600)', async () => {
    await loadFixtures(['mv3-blocker']);
    await expect.poll(async () => readFile(storageFileOf(harness!.stateDir, MV3_ID), 'utf8').catch(() => ''), { timeout: 3000 }).toContain('"installedBecause": "install"');
    const { stat } = await import('node:fs/promises');
    expect((await stat(storageFileOf(harness!.stateDir, MV3_ID))).mode & 0o777).toBe(0o600);
  });

  it('a change in its folder reloads it (onInstalled "update"); a broken edit keeps the old version serving and names the file and line', async () => {
    const dirs = await loadFixtures(['mv3-blocker'], { watch: true });
    const dir = dirs['mv3-blocker']!;
    const mark = harness!.entries.length;
    await writeFile(path.join(dir, 'lib', 'patterns.js'), "self.BLOCKED_PATTERNS = ['/other/'];\n");
    await harness!.waitFor((e) => e.seq > mark && e.kind === 'rule' && e.action === 'reloaded');
    expect((await harness!.curl([`${origin!.url}/blocked/pixel.png`])).stdout).toBe('origin: /blocked/pixel.png');
    expect((await harness!.curl([`${origin!.url}/other/x`])).code).not.toBe(0);
    await expect.poll(async () => readFile(storageFileOf(harness!.stateDir, MV3_ID), 'utf8').catch(() => ''), { timeout: 3000 }).toContain('"installedBecause": "update"');

    const broken = harness!.entries.length;
    await writeFile(path.join(dir, 'background.js'), "importScripts('lib/patterns.js');\nchrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['<all_urls>'] }, ['blocking']);\nnotDefined.call();\n");
    const failure = await harness!.waitFor((e) => e.seq > broken && e.kind === 'rule' && e.action === 'failed');
    expect(failure).toMatchObject({
      message: 'the background script threw ReferenceError: notDefined is not defined (the last good version stays active)',
      location: `${path.join(dir, 'background.js')}:3:1`,
    });
    // The old version still serves: /other/ blocked, everything else through.
    expect((await harness!.curl([`${origin!.url}/page`])).stdout).toBe('origin: /page');
    expect((await harness!.curl([`${origin!.url}/other/y`])).code).not.toBe(0);
  });
});

describe('an MV2 add-on written for Firefox, loaded unchanged', () => {
  it('its background scripts share one global scope; browser.* with a blocking listener answering with a Promise redirects the request', async () => {
    await loadFixtures(['mv2-firefox']);
    expect(host!.rule('MV2 Redirector')).toMatchObject({ kind: 'extension', state: 'active' });
    const followed = await harness!.curl(['-L', `${origin!.url}/old/thing`]);
    expect(followed.stdout).toBe('origin: /new/thing');
    expect(origin!.received.map((r) => r.url)).toEqual(['/new/thing']);
    const verdict = harness!.webRequestEntries((e) => e.event === 'onBeforeRequest' && e.details.url.endsWith('/old/thing'))[0]!.outcomes[0];
    expect(verdict).toMatchObject({ owner: 'MV2 Redirector', status: 'applied', response: { redirectUrl: `${origin!.url}/new/thing` } });
  });
});

describe("an MV2 extension that wires the browser's own surfaces at start-up (tabs, webNavigation, the toolbar button, menus, notifications)", () => {
  const REDIRECTS = { redirects: [{ from: '/old/', to: '/new/' }] };

  it('loads and redirects: the surfaces are there, their events never fire, and the journal says once what did nothing here', async () => {
    await loadFixtures(['mv2-toolbar'], { storage: { 'mv2-toolbar': REDIRECTS } });
    await harness!.waitFor((e) => e.kind === 'log' && e.source === 'Toolbar Redirector' && e.message.startsWith('ready'));
    expect(host!.rule('Toolbar Redirector')).toMatchObject({ kind: 'extension', state: 'active', runtime: expect.objectContaining({ state: 'running' }) });
    const followed = await harness!.curl(['-L', `${origin!.url}/old/page`]);
    expect(followed.stdout).toBe('origin: /new/page');
    await harness!.waitFor((e) => e.kind === 'log' && e.source === 'Toolbar Redirector' && e.message.startsWith('notification'));
    const logs = harness!.entries.filter((e): e is LogEntry & JournalEntry => e.kind === 'log' && e.source === 'Toolbar Redirector');
    // Nothing failed, and nothing it reached for was missing.
    expect(logs.filter((e) => e.level === 'warn' || e.level === 'error')).toEqual([]);
    const messages = logs.map((e) => e.message);
    expect(messages).toEqual(expect.arrayContaining([
      'start-up: 0 tabs; menu "Pause Toolbar Redirector"',
      'ready: 1 redirects, Chrome, background page true',
      `notification "Redirected": ${origin!.url}/old/page to ${origin!.url}/new/page`,
    ]));
    // What did nothing here: in one debug entry (said once its start-up's notes are gathered).
    await expect.poll(() => notesOf(harness!.entries, 'Toolbar Redirector'), { timeout: 5000 }).toEqual(expect.arrayContaining([
      'chrome.tabs.onUpdated: wrtui knows tabs only from the traffic it sees; this event never fires',
      'chrome.tabs.query: wrtui knows tabs only from the traffic it sees; answered the 0 tabs seen in traffic so far',
      'chrome.webNavigation.onHistoryStateUpdated: wrtui sees requests, not navigations in tabs; this event never fires',
      'chrome.browserAction.setBadgeText: wrtui has no toolbar; kept (its getter gives it back), not shown',
      'chrome.contextMenus.create: wrtui has no context menus; the item is kept but never shown',
    ]));
    // Once per name: the second redirect's notification is journaled, the surfaces are not again.
    await harness!.curl(['-L', `${origin!.url}/old/again`]);
    await harness!.waitFor((e) => e.kind === 'log' && e.message.includes('/old/again to'));
    expect(notesOf(harness!.entries, 'Toolbar Redirector').filter((line) => line.startsWith('chrome.browserAction.setBadgeText'))).toHaveLength(1);
  });

  it('editing its storage.local file while it runs configures it: storage.onChanged hears the edit, its own writes are no edit', async () => {
    const dirs = await loadFixtures(['mv2-toolbar'], { watch: true });
    await harness!.waitFor((e) => e.kind === 'log' && e.source === 'Toolbar Redirector' && e.message.startsWith('start-up'));
    const file = storageFileOf(harness!.stateDir, extensionIdFromPath(dirs['mv2-toolbar']!));
    // Its first set-up writes the file itself (setUps: 1); with no redirects, nothing is redirected.
    await expect.poll(async () => readFile(file, 'utf8').catch(() => ''), { timeout: 3000 }).toContain('"setUps": 1');
    expect((await harness!.curl([`${origin!.url}/old/page`])).stdout).toBe('origin: /old/page');
    expect(host!.rule('Toolbar Redirector')!.storage).toEqual({ file, local: 1, session: 0 });

    const mark = harness!.entries.length;
    await writeFile(file, JSON.stringify({ setUps: 1, redirects: [{ from: '/old/', to: '/new/' }] }));
    await harness!.waitFor((e) => e.seq > mark && e.kind === 'log' && e.message.startsWith('ready: 1 redirects'));
    expect((await harness!.curl(['-L', `${origin!.url}/old/page`])).stdout).toBe('origin: /new/page');
    const edits = () => harness!.entries.filter((e) => e.kind === 'log' && e.message.startsWith('storage.local edited')).map((e) => (e as LogEntry).message);
    expect(edits()).toEqual([`storage.local edited in ${file}: redirects changed`]);
    // Its own write after the edit (setUps: 2) reached the file and was not taken for an edit.
    await expect.poll(async () => readFile(file, 'utf8'), { timeout: 3000 }).toContain('"setUps": 2');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(edits()).toHaveLength(1);

    // A broken edit is named, and the items stay.
    await writeFile(file, '{ "redirects": ');
    await harness!.waitFor((e) => e.kind === 'log' && e.level === 'warn' && e.message.includes('is not valid JSON'));
    expect((await harness!.curl(['-L', `${origin!.url}/old/page`])).stdout).toBe('origin: /new/page');
  });

  it('under the firefox persona its background page sees Firefox\'s navigator.userAgent', async () => {
    await loadFixtures(['mv2-toolbar'], { storage: { 'mv2-toolbar': REDIRECTS }, persona: 'firefox' });
    await harness!.waitFor((e) => e.kind === 'log' && e.source === 'Toolbar Redirector' && e.message.startsWith('ready'));
    expect(logsOf(harness!.entries, 'Toolbar Redirector')).toContain('ready: 1 redirects, Firefox, background page true');
  });

  it('storage.sync is kept on this machine (its own file, 0600), outlives a reload, and says "sync" to storage.onChanged', async () => {
    work = await mkdtemp(path.join(tmpdir(), 'wrtui-extension-sync-'));
    await writeFile(path.join(work, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'Synced', version: '1.0', permissions: ['storage'], background: { service_worker: 'sw.js' } }));
    await writeFile(
      path.join(work, 'sw.js'),
      `chrome.storage.onChanged.addListener((changes, area) => console.log('changed in ' + area + ': ' + Object.keys(changes)));
chrome.runtime.onInstalled.addListener(async ({ reason }) => {
  if (reason === 'install') {
    await chrome.storage.sync.set({ theme: 'dark' });
    chrome.runtime.reload();
  } else console.log('sync after reload: ' + JSON.stringify(await chrome.storage.sync.get('theme')));
});`,
    );
    harness = await startProxyHarness();
    host = await ExtensionHost.start(harness.engine, { extensions: [work], watch: false, typeCheck: false, stateDir: harness.stateDir });
    await harness.waitFor((e) => e.kind === 'log' && e.message.startsWith('sync after reload'));
    expect(logsOf(harness.entries, 'Synced')).toEqual(expect.arrayContaining(['changed in sync: theme', 'sync after reload: {"theme":"dark"}']));
    const file = path.join(path.dirname(storageFileOf(harness.stateDir, extensionIdFromPath(work))), 'storage-sync.json');
    await expect.poll(async () => readFile(file, 'utf8').catch(() => ''), { timeout: 3000 }).toContain('"theme": "dark"');
    const { stat } = await import('node:fs/promises');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('a namespace a granted permission names and wrtui knows nothing of answers at any depth (contentSettings.cookies.set, as privacy.* once did for Decentraleyes); privacy.* itself keeps what is set', async () => {
    work = await mkdtemp(path.join(tmpdir(), 'wrtui-extension-privacy-'));
    await writeFile(path.join(work, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'Settings', version: '1.0', permissions: ['privacy', 'contentSettings'], background: { service_worker: 'sw.js' } }));
    await writeFile(
      path.join(work, 'sw.js'),
      `chrome.contentSettings.cookies.set({ primaryPattern: '<all_urls>', setting: 'block' }, () => console.log('content setting set, lastError ' + chrome.runtime.lastError));
chrome.privacy.network.networkPredictionEnabled.set({ value: false }, () =>
  chrome.privacy.network.networkPredictionEnabled.get({}, (details) => console.log('privacy set, now ' + JSON.stringify(details))));
console.log('downloads is ' + typeof chrome.downloads);`,
    );
    harness = await startProxyHarness();
    host = await ExtensionHost.start(harness.engine, { extensions: [work], watch: false, typeCheck: false, stateDir: harness.stateDir });
    await harness.waitFor((e) => e.kind === 'log' && e.message.startsWith('privacy set'));
    await harness.waitFor((e) => e.kind === 'log' && e.message.startsWith('content setting set'));
    expect(host.rule('Settings')).toMatchObject({ state: 'active' });
    expect(logsOf(harness.entries, 'Settings')).toEqual(expect.arrayContaining([
      'downloads is undefined',
      'content setting set, lastError undefined',
      'privacy set, now {"levelOfControl":"controlled_by_this_extension","value":false}',
    ]));
    await expect.poll(() => notesOf(harness!.entries, 'Settings'), { timeout: 5000 }).toEqual(expect.arrayContaining([
      'chrome.contentSettings.cookies.set: wrtui has no contentSettings; the call did nothing',
      'chrome.privacy.network.networkPredictionEnabled.set: wrtui keeps the setting, but its traffic does not follow it; kept (get gives it back)',
    ]));
  });

  it('an MV3 service worker has no window; runtime.reload() reloads the extension as a save does (onInstalled "update")', async () => {
    work = await mkdtemp(path.join(tmpdir(), 'wrtui-extension-reload-'));
    await writeFile(path.join(work, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'Reloader', version: '1.0', permissions: ['storage'], background: { service_worker: 'sw.js' } }));
    await writeFile(
      path.join(work, 'sw.js'),
      `console.log('window is ' + typeof window);
chrome.runtime.onInstalled.addListener(async ({ reason }) => {
  console.log('installed: ' + reason);
  if (reason === 'install') chrome.runtime.reload();
});`,
    );
    harness = await startProxyHarness();
    host = await ExtensionHost.start(harness.engine, { extensions: [work], watch: false, typeCheck: false, stateDir: harness.stateDir });
    await harness.waitFor((e) => e.kind === 'log' && e.message === 'installed: update');
    expect(logsOf(harness.entries, 'Reloader')).toEqual(['window is undefined', 'installed: install', 'runtime.reload(): reloading', 'window is undefined', 'installed: update']);
    expect(harness.entries.filter((e) => e.kind === 'rule').map((e) => (e as { action: string }).action)).toEqual(['loaded', 'reloaded']);
  });
});

describe('extensions beside rules', () => {
  it('a rules sub-folder holding a manifest.json is an extension; one without is a helpers folder', async () => {
    work = await mkdtemp(path.join(tmpdir(), 'wrtui-rules-with-extension-'));
    await cp(path.join(FIXTURES, 'mv2-firefox'), path.join(work, 'redirector'), { recursive: true });
    await cp(path.join(FIXTURES, 'mv3-blocker', 'lib'), path.join(work, 'lib'), { recursive: true });
    harness = await startProxyHarness();
    host = await ExtensionHost.start(harness.engine, { rulesDir: work, watch: false, typeCheck: false });
    expect(host.rules().map((r) => [r.name, r.kind, r.state])).toEqual([['MV2 Redirector', 'extension', 'active']]);
  });
});
