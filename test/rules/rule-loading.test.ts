// Loading a rules folder: which files are rules, helpers and packages a rule imports, module
// flavours, and --no-watch.
import { afterEach, describe, expect, it } from 'vitest';
import { markerRule, openRuleFolder, ruleSource, type RuleFolder } from './rule-folder.js';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

describe('which files are rules', () => {
  it('loads the modules directly in the folder, not _private files, dotfiles, declarations, tsconfig or helper folders', async () => {
    folder = await openRuleFolder({
      files: {
        'a-rule.ts': markerRule('a-rule', 'a.example'),
        'b-rule.mts': markerRule('b-rule', 'b.example'),
        'c-rule.js': markerRule('c-rule', 'c.example').replace(': any', ''),
        'd-rule.mjs': markerRule('d-rule', 'd.example').replace(': any', ''),
        '_draft.ts': markerRule('draft', 'draft.example'),
        '.hidden.ts': markerRule('hidden', 'hidden.example'),
        'globals.d.ts': 'declare const X: number;\n',
        'tsconfig.json': '{ "compilerOptions": { "strict": true } }\n',
        'notes.md': '# not a rule\n',
        'lib/helper.ts': markerRule('helper-folder', 'lib.example'),
      },
    });
    expect(folder.host.rules().map((rule) => [rule.name, rule.state])).toEqual([
      ['a-rule', 'active'],
      ['b-rule', 'active'],
      ['c-rule', 'active'],
      ['d-rule', 'active'],
    ]);
    expect(folder.ruleEntries().filter((e) => e.action === 'failed')).toEqual([]);
  });

  it('journals one "loaded" entry per rule, with its file and listener count', async () => {
    folder = await openRuleFolder({ files: { 'only.ts': markerRule('only', 'only.example') } });
    expect(folder.ruleEntries('only')).toEqual([
      expect.objectContaining({ kind: 'rule', action: 'loaded', rule: 'only', file: folder.path('only.ts'), message: '1 listener, precedence 1' }),
    ]);
    expect(folder.host.rule('only')).toMatchObject({
      state: 'active',
      reloadCount: 0,
      listeners: [expect.objectContaining({ owner: 'only', event: 'onBeforeRequest', filter: { urls: ['*://only.example/*'] } })],
      quota: { used: 0, limit: 20 },
      lastLoadedAt: expect.any(Number),
    });
  });
});

describe('imports', () => {
  it('bundles local helpers, including helpers of helpers', async () => {
    folder = await openRuleFolder({
      files: {
        'lib/hosts.ts': "import { suffix } from './suffix';\nexport const host = `helper.${suffix}`;\n",
        'lib/suffix.ts': "export const suffix = 'example';\n",
        'uses-helper.ts': ruleSource('uses-helper', "  chrome.webRequest.onBeforeRequest.addListener(() => {}, { urls: [`*://${host}/*`] });", undefined, "import { host } from './lib/hosts.js';"),
      },
    });
    expect(folder.host.rule('uses-helper')?.listeners[0]?.filter.urls).toEqual(['*://helper.example/*']);
  });

  it('bundles npm packages, resolved from the rules folder with the ESM "import" conditions', async () => {
    folder = await openRuleFolder({
      files: {
        'node_modules/greeting/package.json': JSON.stringify({
          name: 'greeting',
          type: 'module',
          exports: { '.': { import: './esm.js', require: './cjs.cjs' } },
        }),
        'node_modules/greeting/esm.js': "export const greeting = 'hello from esm'; export const loads = (globalThis.__greetingLoads = (globalThis.__greetingLoads ?? 0) + 1);\n",
        'node_modules/greeting/cjs.cjs': "exports.greeting = 'hello from cjs';\n",
        'greets.ts': ruleSource('greets', '  console.log(greeting, loads);', { permissions: [] }, "import { greeting, loads } from 'greeting';"),
      },
    });
    expect(folder.host.rule('greets')?.state).toBe('active');
    expect(folder.logEntries('greets').map((e) => e.message)).toEqual(['hello from esm 1']);
    // The package runs in the rule's own realm, not in wrtui's: the proxy's globals never see it.
    expect((globalThis as { __greetingLoads?: number }).__greetingLoads).toBeUndefined();
  });

  it('fails with esbuild\'s message and location when an import cannot be resolved', async () => {
    folder = await openRuleFolder({ files: { 'missing.ts': ruleSource('missing', '', undefined, "import { nothing } from './lib/nothing.js';\nvoid nothing;") } });
    expect(folder.host.rule('missing')).toMatchObject({
      state: 'failed',
      error: { message: expect.stringContaining('Could not resolve "./lib/nothing.js"'), location: `${folder.path('missing.ts')}:1:25` },
    });
  });
});

describe('--no-watch', () => {
  it('loads once and ignores later changes', async () => {
    folder = await openRuleFolder({ files: { 'still.ts': markerRule('still', 'one.example') }, host: { watch: false } });
    await folder.write('still.ts', markerRule('still', 'two.example'));
    await folder.write('new.ts', markerRule('new', 'new.example'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(folder.host.rules().map((rule) => rule.name)).toEqual(['still']);
    expect(folder.host.rule('still')?.listeners[0]?.filter.urls).toEqual(['*://one.example/*']);
  });

  it('still reloads on request', async () => {
    folder = await openRuleFolder({ files: { 'manual.ts': markerRule('manual', 'one.example') }, host: { watch: false } });
    await folder.write('manual.ts', markerRule('manual', 'two.example'));
    const status = await folder.host.reload('manual');
    expect(status).toMatchObject({ state: 'active', reloadCount: 1, listeners: [expect.objectContaining({ filter: { urls: ['*://two.example/*'] } })] });
  });
});

describe('a missing rules folder', () => {
  it('without watching: is reported, and nothing is loaded', async () => {
    const { Engine } = await import('../../src/engine/engine.js');
    const { ExtensionHost } = await import('../../src/engine/extensions/extension-host.js');
    const engine = await Engine.open();
    const messages: string[] = [];
    engine.journal.subscribe((entry) => entry.kind === 'log' && messages.push(entry.message));
    const host = await ExtensionHost.start(engine, { rulesDir: '/nonexistent/wrtui-rules', typeCheck: false, watch: false });
    expect(host.rules()).toEqual([]);
    expect(messages).toEqual(['the rules folder /nonexistent/wrtui-rules does not exist: no rules loaded']);
    await host.close();
    await engine.close();
  });

  it('watched: is named in a warning at start, and its rules load when it appears', async () => {
    const { Engine } = await import('../../src/engine/engine.js');
    const { ExtensionHost } = await import('../../src/engine/extensions/extension-host.js');
    const { mkdtemp, mkdir, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const parent = await mkdtemp(path.join(tmpdir(), 'wrtui-later-'));
    const dir = path.join(parent, 'later-rules');
    const engine = await Engine.open();
    const entries: { kind: string; message?: string; action?: string }[] = [];
    engine.journal.subscribe((entry) => entries.push(entry as never));
    const host = await ExtensionHost.start(engine, { rulesDir: dir, typeCheck: false, pollMs: 50, debounceMs: 20 });
    expect(entries.filter((e) => e.kind === 'log').map((e) => e.message)).toEqual([`the rules folder ${dir} does not exist; wrtui loads it when it appears`]);
    await mkdir(dir);
    await writeFile(path.join(dir, 'late.ts'), markerRule('late', 'late.example'));
    await expect.poll(() => host.rule('late')?.state, { timeout: 5000 }).toBe('active');
    await host.close();
    await engine.close();
    await rm(parent, { recursive: true, force: true });
  });
});
