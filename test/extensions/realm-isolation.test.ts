// "An extension's code sees a browser's globals, not Node's … so a third-party extension can read
// the user's files no more than in a browser" (#11). The Web globals an extension is given (URL,
// fetch, TextEncoder …) are Node's own objects: each of them once led back to Node's realm, where
// `URL.constructor.constructor('return process')()` handed any extension `process`, and through it
// every file of the user's. These tests try the ways out from a third-party extension's service
// worker and from a rule without `node: true`.
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { openRuleFolder, ruleSource, type RuleFolder } from '../rules/rule-folder.js';

let folder: RuleFolder | undefined;
let origin: Origin | undefined;
/** Files and folders a test made outside its rules folder (removed after it). */
const made: string[] = [];
afterEach(async () => {
  await folder?.close();
  await origin?.close();
  folder = origin = undefined;
  await Promise.all(made.splice(0).map((file) => rm(file, { recursive: true, force: true })));
});

/** What the probe reported (its one console.log of JSON), once it has. */
async function reportOf(source: string): Promise<Record<string, string>> {
  const entry = await folder!.waitForEntry((e) => e.kind === 'log' && e.source === source && e.level === 'info' && e.message.startsWith('{'), { since: 0 });
  return JSON.parse((entry as { message: string }).message) as Record<string, string>;
}

/** An MV3 extension (a rules sub-folder with a manifest.json) whose service worker is `worker`. */
const extensionFiles = (worker: string) => ({
  'probe/manifest.json': JSON.stringify({ manifest_version: 3, name: 'Probe', version: '1', background: { service_worker: 'sw.js' } }),
  'probe/sw.js': worker,
});

const TRY = `
const report = {};
const reachedNode = (value) => value != null && (typeof value.getBuiltinModule === 'function' || typeof value.pid === 'number');
const attempt = (name, fn) => {
  try { report[name] = reachedNode(fn()) ? 'reached Node' : 'nothing'; }
  catch (error) { report[name] = 'refused: ' + error.message; }
};`;

describe('an extension cannot reach Node through the Web globals it is given', () => {
  it('every constructor that compiles source text in Node\'s realm is refused: Function, AsyncFunction (fetch), GeneratorFunction, from globals, their results and their errors', async () => {
    folder = await openRuleFolder({
      files: extensionFiles(`${TRY}
const nodeError = (() => { try { new URL('::not a url'); } catch (error) { return error; } })();
attempt('URL', () => URL.constructor.constructor('return process')());
attempt('fetch (an async function)', () => fetch.constructor('return process')());
attempt('an error Node threw', () => nodeError.constructor.constructor('return process')());
attempt('TextEncoder output', () => new TextEncoder().encode('a').constructor.constructor('return process')());
attempt('structuredClone output', () => structuredClone({}).constructor.constructor('return process')());
attempt('performance', () => performance.constructor.constructor('return process')());
attempt('a Promise of crypto.subtle', () => crypto.subtle.digest('SHA-256', new Uint8Array(1)).constructor.constructor('return process')());
attempt('a Headers iterator', () => Object.getPrototypeOf(Object.getPrototypeOf(new Headers().entries())).constructor.constructor('return process')());
attempt('the prototype of a Node function', () => Object.getPrototypeOf(URL).constructor('return process')());
attempt('its own realm (no process there)', () => Function('return typeof process === "undefined" ? undefined : process')());
console.log(JSON.stringify(report));`),
    });
    const refused = 'refused: Code generation from strings disallowed for this context';
    expect(await reportOf('Probe')).toEqual({
      URL: refused,
      'fetch (an async function)': refused,
      'an error Node threw': refused,
      'TextEncoder output': refused,
      'structuredClone output': refused,
      performance: refused,
      'a Promise of crypto.subtle': refused,
      'a Headers iterator': refused,
      'the prototype of a Node function': refused,
      'its own realm (no process there)': 'nothing',
    });
  });

  it("Node's realm's prototypes (which wrtui's own code in the worker calls) cannot be rewritten; the extension's own realm's can, as in a browser", async () => {
    folder = await openRuleFolder({
      files: extensionFiles(`'use strict';
${TRY}
const nodeObjectPrototype = Object.getPrototypeOf(Object.getPrototypeOf(new URL('http://a.example/')));
const nodeArrayPrototype = Object.getPrototypeOf(structuredClone([]));
attempt('a property on Node\\'s Object.prototype', () => { nodeObjectPrototype.polluted = 1; });
attempt('Node\\'s Array.prototype.push', () => { nodeArrayPrototype.push = () => 0; });
attempt('Node\\'s Error.prepareStackTrace', () => { (() => { try { new URL('::x'); } catch (e) { return e.constructor; } })().prepareStackTrace = () => 'x'; });
Array.prototype.last = function () { return this[this.length - 1]; };
report.ownRealmPatched = [1, 2, 3].last();
// Assigning over an inherited property on an object of one's own still works (the "override mistake" is allowed for).
const error = structuredClone(new Error('x'));
error.name = 'Renamed';
report.overrideOnOwnObject = error.name;
console.log(JSON.stringify(report));`),
    });
    const report = await reportOf('Probe');
    expect(report['a property on Node\'s Object.prototype']).toMatch(/^refused: Cannot add property polluted, object is not extensible/);
    expect(report["Node's Array.prototype.push"]).toMatch(/^refused: Cannot assign to read only property 'push'/);
    expect(report["Node's Error.prepareStackTrace"]).toMatch(/^refused: Cannot assign to read only property 'prepareStackTrace'/);
    expect(report).toMatchObject({ ownRealmPatched: 3, overrideOnOwnObject: 'Renamed' });
  });

  it("importScripts cannot climb out of the extension's folder: '..%2f' stays on the extension's origin but would decode to a path outside it", async () => {
    // A script outside the extension's folder whose running would show (its ReferenceError names its first word).
    const outside = path.join(tmpdir(), `wrtui-outside-${process.pid}.js`);
    made.push(outside);
    await writeFile(outside, 'secretWordOutside;\n');
    const climb = `${'..%2f'.repeat(12)}${outside.replace(/^\//, '').replaceAll('/', '%2f')}`;
    folder = await openRuleFolder({
      files: {
        ...extensionFiles(`
const report = {};
try { importScripts(${JSON.stringify(climb)}); report.climb = 'ran'; } catch (error) { report.climb = error.name + ': ' + error.message; }
try { importScripts('lib.js'); report.own = self.fromLib; } catch (error) { report.own = error.message; }
console.log(JSON.stringify(report));`),
        'probe/lib.js': 'self.fromLib = "loaded";\n',
      },
    });
    const report = await reportOf('Probe');
    expect(report.climb).toMatch(/^NetworkError: Failed to execute 'importScripts' on 'WorkerGlobalScope': The script at 'chrome-extension:\/\/[a-p]{32}\/.*' failed to load\.$/);
    expect(report.own).toBe('loaded');
  });

  it('nor through a symbolic link in its folder that points out of it', async () => {
    const { mkdtemp, mkdir, symlink } = await import('node:fs/promises');
    const outside = path.join(tmpdir(), `wrtui-outside-link-${process.pid}.js`);
    made.push(outside);
    await writeFile(outside, 'self.secretRan = true;\n');
    // The extension, with the link already in it, before wrtui loads it.
    const linked = await mkdtemp(path.join(tmpdir(), 'wrtui-linked-'));
    made.push(linked);
    const dir = path.join(linked, 'probe');
    await mkdir(dir);
    for (const [file, source] of Object.entries(extensionFiles(`
const report = {};
try { importScripts('link.js'); report.link = self.secretRan ? 'ran' : 'nothing'; } catch (error) { report.link = error.name; }
fetch('link.js').then(() => (report.fetched = 'read'), (error) => (report.fetched = error.message)).then(() => console.log(JSON.stringify(report)));`))) {
      await writeFile(path.join(dir, file.replace('probe/', '')), source);
    }
    await symlink(outside, path.join(dir, 'link.js'));
    folder = await openRuleFolder({ host: { extensions: [dir] } });
    expect(await reportOf('Probe')).toEqual({ link: 'NetworkError', fetched: 'Failed to fetch' });
  });

  it("the Web globals still work: fetch reaches an origin, URL, TextEncoder, crypto, and Node's errors keep their name and message", async () => {
    origin = await startOrigin((_req, res) => res.end('from the origin'));
    folder = await openRuleFolder({
      files: extensionFiles(`
(async () => {
  const report = {};
  report.fetched = await (await fetch(${JSON.stringify(origin.url + '/')})).text();
  report.url = new URL('/a?b=1', 'https://example.com').href;
  report.encoded = Array.from(new TextEncoder().encode('hi')).join(',');
  report.digest = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode('')))).slice(0, 2).join(',');
  try { new URL('::nope'); } catch (error) { report.error = error.name + ': ' + error.message; }
  console.log(JSON.stringify(report));
})();`),
    });
    expect(await reportOf('Probe')).toEqual({ fetched: 'from the origin', url: 'https://example.com/a?b=1', encoded: '104,105', digest: '227,176', error: 'TypeError: Invalid URL' });
  });
});

describe('a rule without `node: true` gets none of a Node module\'s values', () => {
  it('not by a read, a property descriptor, a call or `new` on what require() gave it; the error says how to opt in', async () => {
    folder = await openRuleFolder({
      files: {
        'no-node.ts': ruleSource(
          'no-node',
          `
  const report: Record<string, string> = {};
  const attempt = (name: string, fn: () => unknown) => {
    try { const value = fn(); report[name] = typeof value === 'function' ? 'got a function' : typeof value; }
    catch (error) { report[name] = 'refused: ' + (error as Error).message; }
  };
  const fs = require('node:fs');
  const events = require('node:events');
  attempt('read', () => fs.readFileSync);
  attempt('descriptor', () => Object.getOwnPropertyDescriptor(fs, 'readFileSync')?.value ?? Object.getOwnPropertyDescriptor(fs, 'readFileSync')?.get?.());
  attempt('call', () => events());
  attempt('new', () => new events());
  console.log(JSON.stringify(report));`,
          undefined,
          'declare const require: (id: string) => any;',
        ),
      },
    });
    const report = await reportOf('no-node');
    const refused = 'refused: this rule uses Node\'s "node:fs": add `node: true` to its manifest to give it Node\'s APIs (a rule sees a browser\'s globals otherwise)';
    expect(report.read).toBe(refused);
    expect(report.descriptor).toBe(refused);
    expect(report.call).toBe(refused.replace('node:fs', 'node:events'));
    expect(report.new).toBe(refused.replace('node:fs', 'node:events'));
  });

  it('with `node: true` the same rule reads a file', async () => {
    const file = path.join(tmpdir(), `wrtui-node-rule-${process.pid}.txt`);
    made.push(file);
    await writeFile(file, 'readable');
    folder = await openRuleFolder({
      files: {
        'with-node.ts': ruleSource(
          'with-node',
          `  console.log(JSON.stringify({ read: readFileSync(${JSON.stringify(file)}, 'utf8'), pid: typeof process.pid }));`,
          { permissions: ['webRequest'], host_permissions: ['<all_urls>'], node: true },
          "import { readFileSync } from 'node:fs';",
        ),
      },
    });
    expect(await reportOf('with-node')).toEqual({ read: 'readable', pid: 'number' });
  });
});

describe("an extension's BroadcastChannel reaches its own origin only, as in a browser", () => {
  it("two extensions on a channel of the same name do not hear each other (Node's would join every worker of the process); one extension's two channels do", async () => {
    const listener = `
const heard = [];
const channel = new BroadcastChannel('settings');
channel.onmessage = (event) => heard.push(event.data);
new BroadcastChannel('settings').postMessage('own');
setTimeout(() => console.log(JSON.stringify({ heard, name: channel.name })), 400);`;
    const talker = `setTimeout(() => new BroadcastChannel('settings').postMessage('from another extension'), 100);`;
    folder = await openRuleFolder({
      files: {
        'listener/manifest.json': JSON.stringify({ manifest_version: 3, name: 'Listener', version: '1', background: { service_worker: 'sw.js' } }),
        'listener/sw.js': listener,
        'talker/manifest.json': JSON.stringify({ manifest_version: 3, name: 'Talker', version: '1', background: { service_worker: 'sw.js' } }),
        'talker/sw.js': talker,
      },
    });
    expect(await reportOf('Listener')).toEqual({ heard: ['own'], name: 'settings' });
  });
});
