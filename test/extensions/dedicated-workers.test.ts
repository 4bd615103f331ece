// Dedicated Workers where Chromium cannot be the oracle (chromium-worker.test.ts compares the rest):
// what wrtui's journal says of a worker's uncaught error and of a script it cannot load, that a
// worker runs beside its page (a loop in it holds up neither the page's listeners nor the
// watchdog), that a worker is as isolated as its extension, that its requests to the network are
// the extension's own, and a worker made by a worker.
import { afterEach, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';
import { openRuleFolder, type RuleFolder } from '../rules/rule-folder.js';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

/** An MV2 extension whose background page runs `page.js`, with its other `files` (its workers). */
const pageExtension = (name: string, files: Record<string, string>, manifest: Record<string, unknown> = {}) => ({
  [`${name}/manifest.json`]: JSON.stringify({ manifest_version: 2, name, version: '1', background: { scripts: ['page.js'] }, ...manifest }),
  ...Object.fromEntries(Object.entries(files).map(([file, source]) => [`${name}/${file}`, source])),
});

const reportOf = async (source: string, timeoutMs = 5000) =>
  JSON.parse(((await folder!.waitForEntry((e) => e.kind === 'log' && e.source === source && e.message.startsWith('{'), { since: 0, timeoutMs })) as { message: string }).message) as unknown;

describe("a dedicated Worker's errors in the journal", () => {
  it("an uncaught error its page does not cancel is logged at error level with the worker script's file:line", async () => {
    folder = await openRuleFolder({
      files: pageExtension('Loud', {
        'page.js': `const worker = new Worker('worker.js');\nworker.postMessage('go');`,
        'worker.js': `self.onmessage = () => {\n  throw new RangeError('out of the worker');\n};`,
      }),
    });
    const entry = await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'Loud' && e.level === 'error', { since: 0 });
    expect((entry as { message: string }).message).toBe(`Uncaught RangeError: out of the worker at ${folder.path('Loud/worker.js')}:2:9`);
  });

  it('a script it cannot load is an error Event at the Worker, and the journal says why: a module importing a file that is not there names the importing file:line', async () => {
    folder = await openRuleFolder({
      files: pageExtension('Broken', {
        'page.js': `const worker = new Worker('js/main.js', { type: 'module' });
worker.onerror = (event) => console.log(JSON.stringify({ event: event.constructor.name, type: event.type }));`,
        'js/main.js': `import { x } from './absent.js';\npostMessage(x);`,
      }),
    });
    expect(await reportOf('Broken')).toEqual({ event: 'Event', type: 'error' });
    const warning = folder.logEntries('Broken').find((e) => e.level === 'warn')!;
    expect(warning.message).toContain(`new Worker("chrome-extension://`);
    expect(warning.message).toContain(`its script could not be loaded: ${folder.path('Broken/js/main.js')}:1:19: Could not resolve "./absent.js"`);
  });
});

describe('a dedicated Worker runs beside its page, as in a browser', () => {
  it("a worker that never yields holds up neither the page's listeners nor the watchdog, and terminate() ends it", { timeout: 20_000 }, async () => {
    folder = await openRuleFolder({
      host: { limits: { stuckAfterMs: 1000, unresponsiveAfterMs: 500, heartbeatMs: 100 } },
      files: pageExtension(
        'Spinner',
        {
          'page.js': `const worker = new Worker('spin.js');
worker.onmessage = () => {
  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['*://blocked.test/*'] }, ['blocking']);
  console.log('spinning');
  setTimeout(() => { worker.terminate(); console.log('{"terminated":true}'); }, 2500);
};`,
          'spin.js': `postMessage('about to spin');\nfor (;;) {}`,
        },
        { permissions: ['webRequest', 'webRequestBlocking', '<all_urls>'] },
      ),
    });
    await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'Spinner' && e.message === 'spinning', { since: 0 });
    // Past the watchdog's stuck threshold, the page still answers: its thread is not the worker's.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const result = await folder.run('http://blocked.test/x');
    expect(result).toMatchObject({ kind: 'error', error: 'net::ERR_BLOCKED_BY_CLIENT' });
    expect(await reportOf('Spinner')).toEqual({ terminated: true });
    expect(folder.entries.filter((e) => e.kind === 'runtime' && e.state === 'restarting')).toEqual([]);
  });
});

describe('a dedicated Worker is as isolated as its extension', () => {
  it("no process, require or Buffer, in its own realm either; Node's realm compiles nothing; importScripts cannot climb out of the folder", async () => {
    folder = await openRuleFolder({
      files: {
        'secret.js': 'self.stolen = true;',
        ...pageExtension('Boxed', {
          'page.js': `const worker = new Worker('w.js');\nworker.onmessage = (event) => console.log(JSON.stringify(event.data));`,
          'w.js': `const attempt = (run) => { try { return run(); } catch (error) { return error.name; } };
postMessage({
  globals: [typeof process, typeof require, typeof Buffer, typeof global, typeof module],
  throughUrl: attempt(() => URL.constructor.constructor('return process')()),
  ownRealm: attempt(() => Function('return typeof process')()),
  climbing: attempt(() => importScripts('..%2fsecret.js')),
  stolen: self.stolen === true,
});`,
        }),
      },
    });
    expect(await reportOf('Boxed')).toEqual({
      globals: ['undefined', 'undefined', 'undefined', 'undefined', 'undefined'],
      throughUrl: 'EvalError',
      ownRealm: 'undefined',
      climbing: 'NetworkError',
      stolen: false,
    });
  });

  it('a worker made by a worker runs its own script, relative to its creator\'s URL', async () => {
    folder = await openRuleFolder({
      files: pageExtension('Nested', {
        'page.js': `const outer = new Worker('js/outer.js');\nouter.onmessage = (event) => console.log(JSON.stringify(event.data));`,
        'js/outer.js': `const inner = new Worker('inner.js', { name: 'inner' });
inner.onmessage = (event) => postMessage({ fromInner: event.data, outerName: self.name });
inner.postMessage(21);`,
        'js/inner.js': `onmessage = (event) => postMessage({ doubled: event.data * 2, name: self.name, url: location.pathname });`,
      }),
    });
    expect(await reportOf('Nested')).toEqual({ fromInner: { doubled: 42, name: 'inner', url: '/js/inner.js' }, outerName: '' });
  });
});

describe("a dedicated Worker's requests to the network", () => {
  let harness: ProxyHarness | undefined;
  let origin: Origin | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await harness?.close();
    await origin?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    harness = origin = dir = undefined;
  });

  it("go through the proxy as the extension's own (journaled as made by it), and the worker reads the answer", { timeout: 20_000 }, async () => {
    origin = await startOrigin((_req, res) => res.end('from the origin'));
    harness = await startProxyHarness();
    dir = await mkdtemp(path.join(tmpdir(), 'wrtui-worker-fetch-'));
    const extension = path.join(dir, 'Fetcher');
    await mkdir(extension);
    const files = pageExtension('Fetcher', {
      'page.js': `const worker = new Worker('w.js');\nworker.onmessage = (event) => console.log(JSON.stringify(event.data));\nworker.postMessage(${JSON.stringify(`${origin.url}/data`)});`,
      'w.js': `onmessage = async (event) => { const response = await fetch(event.data); postMessage({ status: response.status, text: await response.text() }); };`,
    }, { permissions: ['<all_urls>'] });
    for (const [file, source] of Object.entries(files)) await writeFile(path.join(dir, file), source);
    const host = await ExtensionHost.start(harness.engine, { extensions: [extension], watch: false, typeCheck: false, stateDir: harness.stateDir, persona: 'chrome' });
    try {
      const report = (await harness.waitFor((e) => e.kind === 'log' && e.source === 'Fetcher' && e.message.startsWith('{'), 10_000)) as { message: string };
      expect(JSON.parse(report.message)).toEqual({ status: 200, text: 'from the origin' });
      const sent = harness.webRequestEntries((e) => e.event === 'onBeforeRequest' && e.details.url === `${origin!.url}/data`);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ madeBy: { extension: 'Fetcher' } });
      expect(origin.received.map((request) => request.url)).toEqual(['/data']);
    } finally {
      await host.close();
    }
  });
});
