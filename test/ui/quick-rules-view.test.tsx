// The Rules view with real quick rules (a QuickRuleset over the harness's engine and a real
// folder): w from the list writes one, the view lists it beside the rule files with what it does
// and that it has no worker, d puts every quick rule in dry-run, a failed edit is shown with its
// file and line, and c turns one into a rule file (given to writeRule) and takes it out of the JSON.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { QuickRuleset } from '../../src/engine/rules/quick-ruleset.js';
import { quickRuleDetailLines, quickRuleRow } from '../../src/ui/rules/quick-rule-lines.js';
import { quickRulesControl } from '../../src/ui/session-backend.js';
import { KEYS, startHarness, type Harness } from './ui-harness.js';

let h: Harness | undefined;
let quick: QuickRuleset | undefined;
let dir: string | undefined;
afterEach(async () => {
  await quick?.close();
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  h = quick = dir = undefined;
});

const text = (line: { text: string }[]) => line.map((segment) => segment.text).join('');

async function start(): Promise<{ h: Harness; quick: QuickRuleset; written: { name: string; source: string }[]; rulesDir: string }> {
  dir = await mkdtemp(join(tmpdir(), 'wrtui-quick-view-'));
  const rulesDir = join(dir, 'rules');
  const written: { name: string; source: string }[] = [];
  let engineQuick: QuickRuleset | undefined;
  h = await startHarness({
    size: { columns: 140, rows: 40 },
    rulesControl: {
      dir: rulesDir,
      list: () => [],
      onChange: () => () => {},
      reload: async () => {
        throw new Error('no rule files here');
      },
      setDryRun: () => {
        throw new Error('no rule files here');
      },
      writeRule: async (name, source) => (written.push({ name, source }), join(rulesDir, `${name}.ts`)),
      get quick() {
        return engineQuick && quickRulesControl(engineQuick);
      },
    },
  });
  engineQuick = quick = await QuickRuleset.start(h.engine, { rulesDir, watch: false });
  return { h, quick, written, rulesDir };
}

describe('quick rules in the Rules view', () => {
  it('w writes a quick rule that blocks the next request; the view lists it with no worker; d dry-runs it; c turns it into code', async () => {
    const { h, quick, written, rulesDir } = await start();
    await h.request('http://shop.test/ads.js');
    await h.waitFor('shop.test/ads.js');
    await h.press('w');
    await h.waitFor('rule for this URL');
    await h.press(KEYS.enter);
    await h.waitFor('Wrote quick rule 1 (block)');
    expect(JSON.parse(await readFile(join(rulesDir, 'quick-rules', 'rules.json'), 'utf8'))).toMatchObject([{ id: 1, action: { type: 'block' } }]);
    await h.request('http://shop.test/ads.js');
    await h.waitFor((frame) => /blocked/.test(frame));

    await h.press('3');
    let frame = await h.waitFor('1 quick rule (no worker)');
    expect(frame).toMatch(/quick #1\s+◇ declarative, no worker\s+live\s+block\s+http:\/\/shop\.test\/ads\.js/);
    expect(frame).toContain('Worker  none');
    expect(frame).toContain('"urlFilter": "|http://shop.test/ads.js|"');

    await h.press('d');
    frame = await h.waitFor('dry-run on');
    expect(quick.status().dryRun).toBe(true);
    expect(frame).toMatch(/quick #1\s+◇ declarative, no worker\s+dry-run/);
    await h.press('d');
    await h.waitFor('dry-run off');

    await h.press('c');
    frame = await h.waitFor('Quick rule 1 is now');
    expect(written).toEqual([{ name: 'quick-block-shop-test-ads-js', source: expect.stringContaining("chrome.webRequest.onBeforeRequest.addListener") }]);
    expect(JSON.parse(await readFile(join(rulesDir, 'quick-rules', 'rules.json'), 'utf8'))).toEqual([]);
    await h.waitFor((f) => !f.includes('quick #1'));
  });

  it('a failed edit: the row says failing, the details name the file, the line and the rule', async () => {
    const { h, quick, rulesDir } = await start();
    await quick.add({ condition: { urlFilter: '|http://a.test/|' }, action: { type: 'block' } });
    await writeFile(join(rulesDir, 'quick-rules', 'rules.json'), '[\n  {\n    "id": 1,\n    "condition": {},\n    "action": { "type": "nope" }\n  }\n]\n');
    await quick.reload();
    await h.press('3');
    const frame = await h.waitFor('The last edit failed');
    expect(frame).toMatch(/! failing\s+quick #1/);
    expect(frame).toContain('rules.json:3: rule 1: action.type: must be one of');
    expect(frame).toMatch(/at .*quick-rules\/rules\.json:3/);
  });
});

describe('quick rule lines', () => {
  const status = { dir: '/r/quick-rules', file: '/r/quick-rules/rules.json', state: 'active' as const, error: undefined, rules: [], extensionId: 'x', name: 'quick-rules', dryRun: false, loads: 1, lastLoadedAt: undefined };
  it('say what each kind does and to which URL', () => {
    const entry = (action: object, condition: object = { urlFilter: '|http://a.test/x|', excludedResourceTypes: [] }) => ({ rulesetId: 'quick', line: 2, rule: { id: 1, condition, action } as never });
    expect(text(quickRuleRow(entry({ type: 'redirect', redirect: { extensionPath: '/answers/1-mock.json' } }), status, 12, 140))).toMatch(/answer from answers\/1-mock\.json\s+http:\/\/a\.test\/x$/);
    expect(text(quickRuleRow(entry({ type: 'modifyHeaders', requestHeaders: [{ header: 'X-Debug', operation: 'set', value: '1' }] }), status, 12, 140))).toContain('set X-Debug: 1');
    expect(text(quickRuleRow(entry({ type: 'modifyHeaders', responseHeaders: [{ header: 'Cache-Control', operation: 'set', value: 'no-store' }] }), status, 12, 140))).toContain('set response Cache-Control: no-store');
    expect(text(quickRuleRow(entry({ type: 'block' }, { urlFilter: '||ads.test^' }), status, 12, 80))).toMatch(/◇ DNR .*block\s+urlFilter \|\|ads\.test\^$/);
    expect(quickRuleDetailLines(entry({ type: 'block' }), status, '/r').map(text)[0]).toBe('quick #1  quick-rules/rules.json:2  ruleset quick');
  });
});
