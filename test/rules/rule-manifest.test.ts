// The manifest a rule exports: errors that stop the rule, warnings that do not.
import { afterEach, describe, expect, it } from 'vitest';
import { checkManifest } from '../../src/engine/rules/rule-manifest.js';
import { markerRule, openRuleFolder, ruleSource, type RuleFolder } from './rule-folder.js';

describe('checkManifest', () => {
  it.each([
    [undefined, 'the rule does not export a `manifest`'],
    ['name', '`manifest` must be an object'],
    [{}, 'manifest.name is required'],
    [{ name: '  ' }, 'manifest.name is required'],
    [{ name: 'x', permissions: 'webRequest' }, 'manifest.permissions must be an array of strings'],
    [{ name: 'x', ownWorker: 'yes' }, 'manifest.ownWorker must be true or false (true runs the rule in a worker of its own)'],
    [{ name: 'x', permissions: ['webRequest', 7] }, 'manifest.permissions[1] must be a string, not 7'],
    [{ name: 'x', host_permissions: ['*://*.example.com/*', 'https://exa mple.com/*'] }, 'manifest.host_permissions[1]: Invalid match pattern "https://exa mple.com/*"'],
    [{ name: 'x', host_permissions: ['*://example.com:8080/*'] }, 'manifest.host_permissions[0]: Invalid match pattern "*://example.com:8080/*"'],
    [{ name: 'x', dryRun: 'yes' }, 'manifest.dryRun must be true or false'],
    [{ name: 'x', precedence: '5' }, 'manifest.precedence must be a finite number'],
  ])('refuses %j: %s', (manifest, message) => {
    expect(() => checkManifest(manifest)).toThrow(message);
  });

  it('warns about unknown keys and permissions, and permissions that grant nothing', () => {
    const { manifest, warnings } = checkManifest({ name: 'x', version: '1.0', permissions: ['webRequestBlocking', 'tabs'] });
    expect(manifest).toEqual({ name: 'x', permissions: ['webRequestBlocking', 'tabs'], host_permissions: [] });
    expect(warnings).toEqual([
      "Permission 'tabs' is unknown or not supported by wrtui (known: webRequest, webRequestBlocking, cookies, storage, alarms); it grants nothing",
      "'webRequestBlocking' without 'webRequest' grants nothing: chrome.webRequest needs 'webRequest'",
      'unknown manifest key "version" ignored (known: name, permissions, host_permissions, dryRun, precedence, node, persona, ownWorker)',
    ]);
  });

  it('warns when a rule asks for webRequest or cookies without any host permission', () => {
    expect(checkManifest({ name: 'x', permissions: ['cookies'] }).warnings).toEqual([
      'no host_permissions: the rule sees no request and may touch no cookie (add e.g. "<all_urls>")',
    ]);
  });
});

describe('manifest problems through the host', () => {
  let folder: RuleFolder | undefined;
  afterEach(async () => {
    await folder?.close();
    folder = undefined;
  });

  it('a bad host permission fails the rule with a message naming the pattern', async () => {
    folder = await openRuleFolder({ files: { 'bad-pattern.ts': ruleSource('bad-pattern', '', { permissions: ['webRequest'], host_permissions: ['http://*.example.com:99999/*'] }) } });
    expect(folder.host.rule('bad-pattern')).toMatchObject({ state: 'failed', listeners: [] });
    expect(folder.ruleEntries('bad-pattern')).toEqual([
      expect.objectContaining({
        action: 'failed',
        message: expect.stringMatching(/^manifest\.host_permissions\[0\]: Invalid match pattern "http:\/\/\*\.example\.com:99999\/\*"/),
        location: folder.path('bad-pattern.ts'),
      }),
    ]);
  });

  it('a duplicate name fails the second file (in file-name order) and names the first', async () => {
    folder = await openRuleFolder({ files: { 'a-first.ts': markerRule('twin', 'a.example'), 'b-second.ts': markerRule('twin', 'b.example') } });
    const [first, second] = folder.host.rules();
    expect(first).toMatchObject({ file: folder.path('a-first.ts'), state: 'active' });
    expect(second).toMatchObject({
      file: folder.path('b-second.ts'),
      state: 'failed',
      error: { message: 'duplicate name "twin": a-first.ts already uses it; each rule and extension needs its own name' },
    });
    expect(folder.engine.registry.describe().map((listener) => listener.filter.urls[0])).toEqual(['*://a.example/*']);
  });

  it('the duplicate loads once the other file is deleted', async () => {
    folder = await openRuleFolder({ files: { 'a-first.ts': markerRule('twin', 'a.example'), 'b-second.ts': markerRule('twin', 'b.example') } });
    const since = folder.mark();
    await folder.remove('a-first.ts');
    await folder.waitForEntry((e) => e.kind === 'rule' && e.action === 'loaded' && e.file === folder!.path('b-second.ts'), { since });
    expect(folder.host.rule('twin')).toMatchObject({ file: folder.path('b-second.ts'), state: 'active' });
  });

  it('unknown keys load the rule and leave a warning entry', async () => {
    folder = await openRuleFolder({ files: { 'extra.ts': ruleSource('extra', '', { permissions: [], description: 'hi' }) } });
    expect(folder.host.rule('extra')?.state).toBe('active');
    expect(folder.ruleEntries('extra').map((e) => [e.action, e.message])).toEqual([
      ['loaded', '0 listeners, precedence 1'],
      ['warning', 'unknown manifest key "description" ignored (known: name, permissions, host_permissions, dryRun, precedence, node, persona, ownWorker)'],
    ]);
  });

  it('a default export that is not a function fails the rule', async () => {
    folder = await openRuleFolder({ files: { 'no-background.ts': "export const manifest = { name: 'no-background' };\nexport default 42;\n" } });
    expect(folder.host.rule('no-background')).toMatchObject({ state: 'failed', error: { message: expect.stringContaining('the default export must be the background function') } });
  });
});
