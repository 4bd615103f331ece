// Edit as code: a quick rule's TypeScript form, loaded as a rule file (in a worker), does what the
// declarative rule did to that URL; a rule that is not one of w's forms is refused with a reason.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DnrRule } from '../../src/engine/dnr/dnr-types.js';
import { exactUrlOf, quickRuleCode } from '../../src/ui/quick-rules/quick-rule-code.js';
import { exactUrlCondition } from '../../src/ui/quick-rules/quick-rule.js';
import { openRuleFolder, type RuleFolder } from '../rules/rule-folder.js';

const URL_ = 'http://api.test/v1/items?page=2';
let folder: RuleFolder | undefined;
const temporary: string[] = [];
afterEach(async () => {
  await folder?.close();
  folder = undefined;
  for (const dir of temporary.splice(0)) await rm(dir, { recursive: true, force: true });
});

const rule = (action: DnrRule['action'], url = URL_): DnrRule => ({ id: 5, condition: exactUrlCondition(url), action });

async function asCode(dnr: DnrRule, quickDir = '/nonexistent'): Promise<{ folder: RuleFolder; source: string }> {
  const made = await quickRuleCode(dnr, quickDir);
  if (!made.ok) throw new Error(made.error);
  folder = await openRuleFolder({ files: { [`${made.code.name}.ts`]: made.code.source } });
  expect(folder.host.rule(made.code.name)).toMatchObject({ state: 'active' });
  expect(folder.host.rule(made.code.name)?.error).toBeUndefined();
  return { folder, source: made.code.source };
}

describe('edit as code', () => {
  it('block: the rule file cancels that URL only, and says which quick rule it came from', async () => {
    const { folder, source } = await asCode(rule({ type: 'block' }));
    expect(source).toContain('// Written by wrtui from quick rule 5 (quick-rules/rules.json): cancels http://api.test/v1/items?page=2.');
    expect((await folder.run(URL_)).kind).toBe('error');
    expect((await folder.run('http://api.test/v1/items?page=3')).kind).toBe('response');
  });

  it('redirect: the request goes there', async () => {
    const { folder } = await asCode(rule({ type: 'redirect', redirect: { url: 'http://api.test/v2/items' } }));
    expect(await folder.run(URL_)).toMatchObject({ kind: 'response', url: 'http://api.test/v2/items' });
  });

  it('response header: set, an existing one replaced', async () => {
    const { folder } = await asCode(rule({ type: 'modifyHeaders', responseHeaders: [{ header: 'Cache-Control', operation: 'set', value: 'no-store' }] }));
    const result = await folder.run(URL_);
    expect(result.kind === 'response' && result.headers.filter((h) => h.name.toLowerCase() === 'cache-control')).toEqual([{ name: 'Cache-Control', value: 'no-store' }]);
  });

  it('answer from a file: the answer file\'s bytes as a data: URL (webRequest cannot write a body)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wrtui-quick-code-'));
    temporary.push(dir);
    await mkdir(join(dir, 'answers'));
    await writeFile(join(dir, 'answers', '5-mock.json'), '{"items":[]}');
    const { folder } = await asCode(rule({ type: 'redirect', redirect: { extensionPath: '/answers/5-mock.json' } }), dir);
    expect(await folder.run(URL_)).toMatchObject({ kind: 'non-web-redirect', url: `data:application/json;base64,${Buffer.from('{"items":[]}').toString('base64')}` });
  });

  it('a URL written as a regexFilter converts back to the same URL', () => {
    expect(exactUrlOf(rule({ type: 'block' }, 'http://a.test/x*y?q=^'))).toBe('http://a.test/x*y?q=^');
  });

  it('a rule that is not one URL exactly, or whose action webRequest lacks, stays declarative with a reason', async () => {
    expect(await quickRuleCode({ id: 2, condition: { urlFilter: '||ads.test^' }, action: { type: 'block' } }, '/x')).toEqual({ ok: false, error: "rule 2's condition is not one URL exactly (as w writes it); write its rule file by hand" });
    expect(await quickRuleCode({ id: 3, condition: { ...exactUrlCondition(URL_), resourceTypes: ['image'] }, action: { type: 'block' } }, '/x')).toMatchObject({ ok: false });
    expect(await quickRuleCode(rule({ type: 'allow' }), '/x')).toMatchObject({ ok: false, error: expect.stringContaining('keep it declarative') });
  });
});
