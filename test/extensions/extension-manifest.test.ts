// Reading an unpacked extension's manifest.json as Chrome's "Load unpacked" reads it.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { extensionIdFromKey, extensionIdFromPath } from '../../src/engine/extensions/extension-id.js';
import { ExtensionManifestError, readExtensionManifest } from '../../src/engine/extensions/extension-manifest.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/extensions/', import.meta.url));
let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function extensionWith(manifest: unknown, files: Record<string, string> = {}): Promise<string> {
  dir = await mkdtemp(path.join(tmpdir(), 'wrtui-manifest-'));
  await writeFile(path.join(dir, 'manifest.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest, null, 2));
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  return dir;
}

describe('runtime.id as Chrome computes it', () => {
  it('from the manifest key: the first 32 hex digits of the SHA-256 of the DER public key, written a–p (the id Chromium gives the fixture)', async () => {
    const manifest = await readExtensionManifest(path.join(FIXTURES, 'mv3-blocker'));
    expect(manifest.id).toBe('npngpgadjklogcjnddakfnmbbkeidjap');
    expect(extensionIdFromKey(manifest.raw.key as string)).toBe('npngpgadjklogcjnddakfnmbbkeidjap');
  });

  it('without a key: a stable id derived from the folder, 32 letters a–p', async () => {
    const folder = path.join(FIXTURES, 'mv2-firefox');
    const manifest = await readExtensionManifest(folder);
    expect(manifest.id).toMatch(/^[a-p]{32}$/);
    expect(manifest.id).toBe(extensionIdFromPath(folder));
    expect(extensionIdFromPath(`${folder}/`)).toBe(manifest.id);
    expect(extensionIdFromPath(path.join(FIXTURES, 'mv3-blocker'))).not.toBe(manifest.id);
  });
});

describe('_locales: the messages chrome.i18n.getMessage and __MSG_name__ read', () => {
  it('each message from the UI locale (en_US), else its language (en), else default_locale; names case-insensitive; a broken file is a warning', async () => {
    const folder = await extensionWith({ manifest_version: 3, name: '__MSG_Title__', version: '1', default_locale: 'de' }, {
      '_locales/de/messages.json': JSON.stringify({ title: { message: 'Titel' }, onlyGerman: { message: 'nur deutsch' }, both: { message: 'beide' } }),
      '_locales/en/messages.json': JSON.stringify({ Title: { message: 'Title' }, both: { message: 'both', placeholders: { Who: { content: '$1' } } } }),
      '_locales/en_US/messages.json': '{ "title": ',
    });
    const manifest = await readExtensionManifest(folder);
    expect(manifest.name).toBe('Title');
    expect(manifest.messages).toEqual({ title: { message: 'Title' }, onlygerman: { message: 'nur deutsch' }, both: { message: 'both', placeholders: { who: '$1' } } });
    expect(manifest.warnings).toEqual([expect.stringMatching(/_locales\/en_US\/messages\.json is not valid JSON .*; its messages are left out$/)]);
  });
});

describe('MV3 and MV2 manifests', () => {
  it('MV3: permissions and host_permissions apart, a classic service worker, the name from _locales', async () => {
    const manifest = await readExtensionManifest(path.join(FIXTURES, 'mv3-blocker'));
    expect(manifest).toMatchObject({
      name: 'MV3 Blocker',
      version: '1.2.0',
      manifestVersion: 3,
      permissions: ['webRequest', 'webRequestBlocking', 'cookies', 'storage'],
      hostPermissions: ['<all_urls>'],
      background: { kind: 'service_worker', file: 'background.js', module: false },
      gecko: false,
      warnings: [],
    });
  });

  it('MV2: host patterns among the permissions are host permissions; background.scripts in order; gecko settings noticed', async () => {
    const manifest = await readExtensionManifest(path.join(FIXTURES, 'mv2-firefox'));
    expect(manifest).toMatchObject({
      name: 'MV2 Redirector',
      manifestVersion: 2,
      permissions: ['webRequest', 'webRequestBlocking'],
      hostPermissions: ['<all_urls>'],
      background: { kind: 'scripts', files: ['rewrite.js', 'background.js'] },
      gecko: true,
    });
  });

  it('a module service worker, a background page, and comments in manifest.json (Chrome accepts them)', async () => {
    const folder = await extensionWith('{\n  // a comment\n  "manifest_version": 3, "name": "m", "version": "1", /* here too */ "background": { "service_worker": "sw.js", "type": "module" }\n}');
    expect((await readExtensionManifest(folder)).background).toEqual({ kind: 'service_worker', file: 'sw.js', module: true });
    await rm(folder, { recursive: true });
    const page = await extensionWith({ manifest_version: 2, name: 'p', version: '1', background: { page: 'bg.html' } });
    expect((await readExtensionManifest(page)).background).toEqual({ kind: 'page', file: 'bg.html' });
  });

  it('a malformed host pattern is a warning and is dropped, as Chrome drops it; an MV3 host pattern in "permissions" is used, with a warning', async () => {
    const folder = await extensionWith({ manifest_version: 3, name: 'w', version: '1', permissions: ['cookies', 'https://*.example.com/*'], host_permissions: ['http://exa mple.com/*', '*://*.test/*'] });
    const manifest = await readExtensionManifest(folder);
    expect(manifest.hostPermissions).toEqual(['https://*.example.com/*', '*://*.test/*']);
    expect(manifest.warnings).toEqual([
      '"https://*.example.com/*" belongs in "host_permissions" in Manifest V3; it is used as one',
      expect.stringMatching(/^Permission 'http:\/\/exa mple.com\/\*' is unknown or URL pattern is malformed/),
    ]);
  });
});

describe('what keeps an extension from loading names the file and line', () => {
  it.each([
    ['not JSON', '{\n  "manifest_version": 3,\n  "name": "x",,\n}', /manifest.json is not valid JSON/, /manifest\.json:3:\d+$/],
    ['manifest_version 4', { manifest_version: 4, name: 'x', version: '1' }, /"manifest_version" must be 2 or 3, got 4/, /manifest\.json$/],
    ['no name', { manifest_version: 3, version: '1' }, /"name" is required/, /manifest\.json$/],
    ['a service worker in MV2', { manifest_version: 2, name: 'x', version: '1', background: { service_worker: 'sw.js' } }, /needs "manifest_version": 3/, /manifest\.json$/],
  ])('%s', async (_what, manifest, message, location) => {
    const folder = await extensionWith(manifest);
    const error = await readExtensionManifest(folder).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExtensionManifestError);
    expect((error as ExtensionManifestError).message).toMatch(message);
    expect((error as ExtensionManifestError).location).toMatch(location);
  });
});
