// The quick rules' folder, loaded: a declarativeNetRequest ruleset in the DNR engine with no
// worker, hot-reloaded on edit; a bad edit names the file, the line and the rule, and the last good
// version keeps acting; wrtui never writes over a rules.json that does not parse.
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { QuickRuleset } from '../../src/engine/rules/quick-ruleset.js';
import { QUICK_RULES_MANIFEST, quickRulesDir } from '../../src/engine/rules/quick-rules-file.js';
import { openRuleFolder, type RuleFolder } from './rule-folder.js';

let folder: RuleFolder | undefined;
let quick: QuickRuleset | undefined;
afterEach(async () => {
  await quick?.close();
  await folder?.close();
  quick = undefined;
  folder = undefined;
});

const BLOCK_A = { id: 1, condition: { urlFilter: '|http://a.test/x|', excludedResourceTypes: [] }, action: { type: 'block' } };
const BLOCK_B = { id: 2, condition: { urlFilter: '|http://b.test/y|', excludedResourceTypes: [] }, action: { type: 'block' } };

async function open(rules?: unknown, options: { watch?: boolean } = {}): Promise<{ folder: RuleFolder; quick: QuickRuleset }> {
  const files: Record<string, string> = {};
  if (rules !== undefined) {
    files['quick-rules/manifest.json'] = JSON.stringify(QUICK_RULES_MANIFEST, null, 2);
    files['quick-rules/rules.json'] = typeof rules === 'string' ? rules : JSON.stringify(rules, null, 2);
  }
  folder = await openRuleFolder({ files, host: { debounceMs: 20 } });
  quick = await QuickRuleset.start(folder.engine, { rulesDir: folder.dir, debounceMs: 20, pollMs: 50, watch: options.watch ?? true });
  return { folder, quick };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('quick rules are declarative: no worker', () => {
  it('the quick-rules folder is not an extension of the host (no worker is started for it); its rules act from the DNR engine', async () => {
    const { folder, quick } = await open([BLOCK_A]);
    expect(folder.host.rules()).toEqual([]);
    expect(folder.entries.filter((entry) => entry.kind === 'runtime')).toEqual([]);
    expect(quick.status()).toMatchObject({ state: 'active', rules: [{ rulesetId: 'quick', rule: BLOCK_A, line: 3 }] });
    expect(folder.ruleEntries('quick-rules').map((entry) => [entry.action, entry.message])).toEqual([['loaded', '1 declarativeNetRequest rule, no worker']]);
    expect(await folder.run('http://a.test/x')).toMatchObject({ kind: 'error', error: 'net::ERR_BLOCKED_BY_CLIENT' });
    expect(await folder.run('http://a.test/x2')).toMatchObject({ kind: 'response' });
  });

  it('without a quick-rules folder nothing is loaded and nothing is said', async () => {
    const { folder, quick } = await open();
    expect(quick.status()).toMatchObject({ state: 'none', rules: [], error: undefined });
    expect(folder.ruleEntries('quick-rules')).toEqual([]);
    expect(folder.engine.dnr.active).toBe(false);
  });

  it('add() writes the manifest and rules.json (0600 in a 0700 folder) and the rule acts at once', async () => {
    const { folder, quick } = await open();
    const { rule, file } = await quick.add({ condition: { urlFilter: '|http://a.test/x|', excludedResourceTypes: [] }, action: { type: 'block' } });
    expect(rule.id).toBe(1);
    expect(file).toBe(path.join(quickRulesDir(folder.dir), 'rules.json'));
    expect(JSON.parse(await readFile(path.join(quickRulesDir(folder.dir), 'manifest.json'), 'utf8'))).toEqual(QUICK_RULES_MANIFEST);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(quickRulesDir(folder.dir))).mode & 0o777).toBe(0o700);
    expect(await folder.run('http://a.test/x')).toMatchObject({ kind: 'error' });
    const second = await quick.add({ condition: { urlFilter: '|http://b.test/y|', excludedResourceTypes: [] }, action: { type: 'block' } });
    expect(second.rule.id).toBe(2);
    expect(JSON.parse(await readFile(file, 'utf8'))).toHaveLength(2);
  });
});

describe('writing quick rules', () => {
  it('two w at once get their own ids, both kept; the watcher seeing wrtui\'s own write loads nothing twice', async () => {
    const { folder, quick } = await open();
    const block = (url: string) => ({ condition: { urlFilter: `|${url}|`, excludedResourceTypes: [] }, action: { type: 'block' as const } });
    const [a, b] = await Promise.all([quick.add(block('http://a.test/x')), quick.add(block('http://b.test/y'))]);
    expect([a.rule.id, b.rule.id].sort()).toEqual([1, 2]);
    expect(quick.status().rules.map((entry) => entry.rule.id)).toEqual([1, 2]);
    // Past the watcher's debounce: no load more than the writes asked for.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(folder.ruleEntries('quick-rules').map((entry) => entry.action)).toEqual(expect.arrayContaining(['loaded']));
    expect(folder.ruleEntries('quick-rules').length).toBeLessThanOrEqual(2);
    expect((await folder.run('http://b.test/y')).kind).toBe('error');
  });
});

describe('editing rules.json', () => {
  it('a saved edit applies without a reload command', async () => {
    const { folder, quick } = await open([BLOCK_A]);
    await folder.write('quick-rules/rules.json', JSON.stringify([BLOCK_B], null, 2));
    await until(() => quick.status().rules[0]?.rule.id === 2, 'the edit to load');
    expect(await folder.run('http://a.test/x')).toMatchObject({ kind: 'response' });
    expect(await folder.run('http://b.test/y')).toMatchObject({ kind: 'error' });
  });

  it('an edit that is not JSON: the error names the file, line and column; the last good version keeps acting', async () => {
    const { folder, quick } = await open([BLOCK_A]);
    await folder.write('quick-rules/rules.json', '[\n  { "id": 1, "condition": {}, "action": { "type": "block" }, }\n]\n');
    await until(() => quick.status().error !== undefined, 'the failure');
    const status = quick.status();
    expect(status.state).toBe('active');
    expect(status.error!.message).toContain('rules.json is not valid JSON');
    expect(status.error!.location).toMatch(new RegExp(`${folder.path('quick-rules/rules.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:\\d+$`));
    expect(folder.ruleEntries('quick-rules').at(-1)).toMatchObject({ action: 'failed', message: expect.stringContaining('(the last good version stays active)') });
    expect(await folder.run('http://a.test/x')).toMatchObject({ kind: 'error' });
  });

  it('a rule Chrome would reject: the error names the rule and its line; no rule of the edit applies, the last good ones do', async () => {
    const { folder, quick } = await open([BLOCK_A]);
    const bad = [BLOCK_B, { id: 3, condition: { urlFilter: '|http://c.test/|' }, action: { type: 'redirect', redirect: { url: 'not a url' } } }];
    await folder.write('quick-rules/rules.json', JSON.stringify(bad, null, 2));
    await until(() => quick.status().error !== undefined, 'the failure');
    const { error, rules } = quick.status();
    expect(error!.message).toMatch(/^rules\.json:\d+: rule 3: action\.redirect\.url: /);
    expect(error!.location).toBe(`${folder.path('quick-rules/rules.json')}:${JSON.stringify(bad, null, 2).split('\n').findIndex((line) => line.includes('"id": 3')) + 1}`);
    expect(rules.map((entry) => entry.rule.id)).toEqual([1]);
    expect(await folder.run('http://a.test/x')).toMatchObject({ kind: 'error' });
    expect(await folder.run('http://b.test/y')).toMatchObject({ kind: 'response' });
    // Fixed: it loads, and the error is gone.
    await folder.write('quick-rules/rules.json', JSON.stringify([BLOCK_B], null, 2));
    await until(() => quick.status().error === undefined && quick.status().rules[0]?.rule.id === 2, 'the fix to load');
  });

  it('two rules with one id: named', async () => {
    const { folder, quick } = await open([BLOCK_A]);
    await folder.write('quick-rules/rules.json', JSON.stringify([BLOCK_A, { ...BLOCK_B, id: 1 }], null, 2));
    await until(() => quick.status().error !== undefined, 'the failure');
    expect(quick.status().error!.message).toContain('rule 1: id: is used twice in rules.json');
  });

  it('w while rules.json does not parse: refused, and the file is left exactly as the user left it', async () => {
    const { folder, quick } = await open([BLOCK_A]);
    const broken = '[ { "id": 1, ';
    await folder.write('quick-rules/rules.json', broken);
    await expect(quick.add({ condition: { urlFilter: '|http://b.test/y|' }, action: { type: 'block' } })).rejects.toThrow(/rules\.json is not valid JSON/);
    expect(await readFile(folder.path('quick-rules/rules.json'), 'utf8')).toBe(broken);
    expect((await readdir(quickRulesDir(folder.dir))).sort()).toEqual(['manifest.json', 'rules.json']);
  });

  it('removing the folder\'s manifest unloads the quick rules', async () => {
    const { folder, quick } = await open([BLOCK_A]);
    await folder.remove('quick-rules/manifest.json');
    await until(() => quick.status().state === 'none', 'the unload');
    expect(await folder.run('http://a.test/x')).toMatchObject({ kind: 'response' });
    expect(folder.ruleEntries('quick-rules').at(-1)).toMatchObject({ action: 'unloaded' });
  });
});

describe('like any DNR rule', () => {
  it('why (not) matched: the engine names the quick rule whose URL matched but whose type did not', async () => {
    const { folder } = await open([{ id: 4, condition: { urlFilter: '|http://a.test/x|', resourceTypes: ['image'] }, action: { type: 'block' } }]);
    const explained = folder.engine.dnr.nearMisses({ url: 'http://a.test/x', method: 'get', type: 'script', tabId: -1 });
    expect(explained.rules).toEqual([expect.objectContaining({ extension: 'quick-rules', rulesetId: 'quick', ruleId: 4, action: 'block', failed: expect.stringContaining('resourceTypes') })]);
  });

  it('dry-run: the match is journaled as would-block, the request goes on', async () => {
    const { folder, quick } = await open([BLOCK_A]);
    quick.setDryRun(true);
    expect(await folder.run('http://a.test/x')).toMatchObject({ kind: 'response' });
    const dnr = folder.entries.filter((entry) => entry.kind === 'dnr');
    expect(dnr.at(-1)).toMatchObject({ matches: [expect.objectContaining({ extension: 'quick-rules', ruleId: 1, status: 'dry-run' })] });
    quick.setDryRun(false);
    expect(await folder.run('http://a.test/x')).toMatchObject({ kind: 'error' });
  });

  it('answer from a file: the redirect to the folder\'s file is answered with its bytes, read at each request', async () => {
    const { folder, quick } = await open([
      { id: 1, condition: { urlFilter: '|http://a.test/api|', excludedResourceTypes: [] }, action: { type: 'redirect', redirect: { extensionPath: '/answers/1-mock.json' } } },
    ]);
    await folder.write('quick-rules/answers/1-mock.json', '{"items":[]}');
    const result = await folder.run('http://a.test/api');
    expect(result.kind === 'response' && [result.statusCode, Buffer.from(result.body).toString(), result.headers]).toEqual([200, '{"items":[]}', [{ name: 'Content-Type', value: 'application/json' }]]);
    await folder.write('quick-rules/answers/1-mock.json', '{"items":[1]}');
    const again = await folder.run('http://a.test/api');
    expect(again.kind === 'response' && Buffer.from(again.body).toString()).toBe('{"items":[1]}');
    expect(quick.status().rules).toHaveLength(1);
  });
});
