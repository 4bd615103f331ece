// The rule: an extension's own globals never leak into wrtui's implementation code. A background
// script's globals are the page's, as in a browser; wrtui's DOM (linkedom, bundled) and its bindings
// run in the same realm, but each finds the globals it uses as they were before the extension's
// scripts ran, and never a module system (`require`, `module`, `exports`, `define`) the extension
// made for itself. Privacy Badger 2020.10.7 defines `function require(m)` in js/bootstrap.js; the
// bundled DOM took it for Node's and failed at its first use ("Cannot destructure property
// 'createCanvas' of 'Gd.default'").
import { afterEach, describe, expect, it } from 'vitest';
import { openRuleFolder, type RuleFolder } from '../rules/rule-folder.js';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

/** An MV2 extension whose background scripts are `scripts`, in order, beside its other `files`. */
const mv2 = (name: string, scripts: Record<string, string>, { permissions = [], files = {} }: { permissions?: string[]; files?: Record<string, string> } = {}) => ({
  [`${name}/manifest.json`]: JSON.stringify({ manifest_version: 2, name, version: '1', permissions, background: { scripts: Object.keys(scripts) } }),
  ...Object.fromEntries(Object.entries({ ...scripts, ...files }).map(([file, source]) => [`${name}/${file}`, source])),
});

const reportOf = async (source: string) =>
  JSON.parse(((await folder!.waitForEntry((e) => e.kind === 'log' && e.source === source && e.message.startsWith('{'), { since: 0 })) as { message: string }).message) as unknown;

const failures = () => folder!.entries.filter((e) => (e.kind === 'log' && e.level === 'error') || (e.kind === 'rule' && e.action === 'failed')).map((e) => JSON.stringify(e));

describe("an extension's own globals never leak into wrtui's implementation code", () => {
  it("a background script's global `function require` (Privacy Badger's) is not taken by wrtui's DOM: the document works", async () => {
    folder = await openRuleFolder({
      files: mv2('OwnRequire', {
        'bootstrap.js': `function require(module) { return require.scopes[module]; }
require.scopes = {};
console.log(JSON.stringify({ hasNodes: document.childNodes.length > 0, require: typeof require }));`,
      }),
    });
    expect(await reportOf('OwnRequire')).toEqual({ hasNodes: true, require: 'function' });
    expect(failures()).toEqual([]);
  });

  it('nor a UMD loader\'s globals (module, exports, define with define.amd, global): the DOM, DOMParser and XMLHttpRequest answer as without them', async () => {
    folder = await openRuleFolder({
      files: mv2(
        'OwnLoader',
        {
          'loader.js': `var module = { exports: {} };
var exports = module.exports;
var global = { wrong: true };
function define() { throw new Error('wrtui called the extension\\'s define'); }
define.amd = { jQuery: true };
// A loader's require answers every name: a canvas module among them.
function require(name) { return { createCanvas() { throw new Error('wrtui called the extension\\'s require(' + name + ')'); } }; }`,
          'probe.js': `const parsed = new DOMParser().parseFromString('<p id="x">hi</p>', 'text/html');
const canvas = document.createElement('canvas');
const xhr = new XMLHttpRequest();
xhr.open('GET', 'data.json');
xhr.responseType = 'json';
xhr.onload = () => console.log(JSON.stringify({ text: parsed.getElementById('x').textContent, canvas: [canvas.width, canvas.height], body: document.body.nodeName, xhr: xhr.response }));
xhr.send();`,
        },
        { files: { 'data.json': '{ "fromFile": true }' } },
      ),
    });
    expect(await reportOf('OwnLoader')).toEqual({ text: 'hi', canvas: [300, 150], body: 'BODY', xhr: { fromFile: true } });
    expect(failures()).toEqual([]);
  });

  it("nor its own globals named as built-ins wrtui's bindings use (URL, Promise, Map): chrome.runtime.getURL and chrome.storage answer as without them", async () => {
    folder = await openRuleFolder({
      files: mv2(
        'OwnBuiltins',
        {
          'shadow.js': `const NativePromise = Promise;
function URL() { throw new Error('wrtui called the extension\\'s URL'); }
var Promise = function Promise() { throw new Error('wrtui called the extension\\'s Promise'); };
var Map = function Map() { throw new Error('wrtui called the extension\\'s Map'); };`,
          'probe.js': `const url = chrome.runtime.getURL('data/x.json');
const pending = chrome.storage.local.set({ a: 1 });
pending.then(() => chrome.storage.local.get('a')).then((items) => console.log(JSON.stringify({ url: url.replace(/^chrome-extension:\\/\\/[a-p]+/, 'ext:'), items, nativePromise: pending instanceof NativePromise })));`,
        },
        { permissions: ['storage'] },
      ),
    });
    expect(await reportOf('OwnBuiltins')).toEqual({ url: 'ext:/data/x.json', items: { a: 1 }, nativePromise: true });
    expect(failures()).toEqual([]);
  });
});
