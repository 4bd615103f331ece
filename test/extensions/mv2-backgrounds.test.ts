// Background pages as real MV2 extensions ship them (Privacy Possum's shape, not its code): module
// scripts that import vendored UMD libraries and keep a Node-only branch with import('jsdom'), and
// tabs.executeScript/insertCSS/removeCSS, which MV2 has and MV3 moved to chrome.scripting.
import { afterEach, describe, expect, it } from 'vitest';
import { openRuleFolder, type RuleFolder } from '../rules/rule-folder.js';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

const pageExtension = (name: string, files: Record<string, string>, manifest: Record<string, unknown> = {}) => ({
  [`${name}/manifest.json`]: JSON.stringify({ manifest_version: 2, name, version: '1', background: { page: 'bg.html' }, ...manifest }),
  [`${name}/bg.html`]: '<!doctype html><script type="module" src="main.js"></script>',
  ...Object.fromEntries(Object.entries(files).map(([file, source]) => [`${name}/${file}`, source])),
});

/** A UMD library as vendors ship them: CommonJS when `exports` and `module` exist, else a global. */
const UMD = `(function (global, factory) {
  typeof exports === 'object' && typeof module !== 'undefined' ? factory(exports, require('react')) :
  (global = global || self, factory(global.Vendored = {}, global.React));
}(this, function (exports, React) { exports.version = '1.0.' + (React === undefined ? 'no-react' : 'react'); }));`;

const reportOf = async (source: string) =>
  JSON.parse(((await folder!.waitForEntry((e) => e.kind === 'log' && e.source === source && e.message.startsWith('{'), { since: 0 })) as { message: string }).message) as unknown;

describe('module scripts of a background page run as a browser runs them', () => {
  it('a vendored UMD library imported by a module takes its browser path (a global), not CommonJS: esbuild would look for "react" and fail the load', async () => {
    folder = await openRuleFolder({
      files: pageExtension('Umd', {
        'main.js': `import './vendor/lib.js';\nconsole.log(JSON.stringify({ version: self.Vendored?.version, module: typeof module, require: typeof require }));`,
        'vendor/lib.js': UMD,
      }),
    });
    expect(await reportOf('Umd')).toEqual({ version: '1.0.no-react', module: 'undefined', require: 'undefined' });
  });

  it("import('a-package') in a branch only Node takes does not fail the load; it fails when it runs, as in a browser", async () => {
    folder = await openRuleFolder({
      files: pageExtension('Lazy', {
        'main.js': `const jsdom = () => import('jsdom');
import('jsdom').then(() => console.log('{"imported":true}'), (error) => console.log(JSON.stringify({ imported: false, failed: typeof error.message === 'string' })));`,
      }),
    });
    expect(folder.host.rule('Lazy')).toMatchObject({ state: 'active' });
    expect(await reportOf('Lazy')).toEqual({ imported: false, failed: true });
  });

  it("'/js/x.js' names the extension's root, as a browser resolves it against the extension's origin (uBlock Origin imports so)", async () => {
    folder = await openRuleFolder({
      files: pageExtension('Rooted', {
        'js/main.js': `import { answer } from '/lib/answer.js';
import('/lib/later.js').then((later) => console.log(JSON.stringify({ answer, later: later.value })));`,
        'lib/answer.js': 'export const answer = 42;',
        'lib/later.js': "export const value = 'loaded';",
        'bg.html': '<!doctype html><script type="module" src="js/main.js"></script>',
      }),
    });
    expect(await reportOf('Rooted')).toEqual({ answer: 42, later: 'loaded' });
  });

  it('a module importing a file that is not there fails the load at the importing file:line (not a path joined twice)', async () => {
    folder = await openRuleFolder({
      files: pageExtension('Missing', { 'main.js': `import './lib/absent.js';\n` }),
    });
    await folder.waitForEntry((e) => e.kind === 'rule' && e.action === 'failed', { since: 0 });
    expect(folder.host.rule('Missing')).toMatchObject({ state: 'failed' });
    const failed = folder.ruleEntries('Missing').find((e) => e.action === 'failed')!;
    expect(failed.location).toBe(`${folder.path('Missing/main.js')}:1:8`);
    expect(failed.message).toBe(`${folder.path('Missing/main.js')}:1:8: Could not resolve "./lib/absent.js"`);
  });
});

describe("MV2's tabs.executeScript, insertCSS and removeCSS", () => {
  it('exist under MV2 (not MV3) and fail as acting on a tab does in wrtui: no content script runs', async () => {
    const probe = `chrome.tabs.executeScript({ code: 'document.title' }, () => {
  const error = chrome.runtime.lastError && chrome.runtime.lastError.message;
  console.log(JSON.stringify({ kinds: [typeof chrome.tabs.executeScript, typeof chrome.tabs.insertCSS, typeof chrome.tabs.removeCSS], error }));
});`;
    folder = await openRuleFolder({
      files: {
        ...pageExtension('Injector', { 'main.js': probe }, { permissions: ['tabs', '<all_urls>'] }),
        'mv3/manifest.json': JSON.stringify({ manifest_version: 3, name: 'Mv3', version: '1', background: { service_worker: 'sw.js' } }),
        'mv3/sw.js': `console.log(JSON.stringify({ kinds: [typeof chrome.tabs.executeScript, typeof chrome.tabs.insertCSS] }));`,
      },
    });
    expect(await reportOf('Injector')).toEqual({ kinds: ['function', 'function', 'function'], error: 'wrtui has no tabs or windows: there is no current tab' });
    expect(await reportOf('Mv3')).toEqual({ kinds: ['undefined', 'undefined'] });
  });
});
