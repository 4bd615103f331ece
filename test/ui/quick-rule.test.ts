// Quick rules from a request: each choice writes a readable rule file that, loaded like any other
// rule, does what it says to exactly that URL and nothing else.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { quickRuleFrom } from '../../src/ui/quick-rules/quick-rule.js';
import { openRuleFolder, type RuleFolder } from '../rules/rule-folder.js';

const REQUEST = { requestId: '7', method: 'GET', url: 'http://api.test/v1/items?page=2#top' };
let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

async function loaded(command: string): Promise<{ folder: RuleFolder; source: string }> {
  const made = await quickRuleFrom(command, REQUEST);
  if (!made.ok) throw new Error(made.error);
  folder = await openRuleFolder({ files: { [`${made.rule.name}.ts`]: made.rule.source } });
  expect(folder.host.rule(made.rule.name)).toMatchObject({ state: 'active' });
  return { folder, source: made.rule.source };
}

describe('quick rules', () => {
  it('block: cancels that URL (fragment left out), not its neighbours; the file says where it came from', async () => {
    const { folder, source } = await loaded('block');
    expect(source).toContain('// Written by wrtui from request #7 (GET http://api.test/v1/items?page=2#top): cancels http://api.test/v1/items?page=2.');
    expect(source).toContain('const URLS = ["http://api.test/v1/items?page=2"];');
    expect((await folder.run('http://api.test/v1/items?page=2')).kind).toBe('error');
    expect((await folder.run('http://api.test/v1/items?page=3')).kind).toBe('response');
  });

  it('redirect URL: the request goes there', async () => {
    const { folder } = await loaded('redirect http://api.test/v2/items');
    const result = await folder.run('http://api.test/v1/items?page=2');
    expect(result).toMatchObject({ kind: 'response', url: 'http://api.test/v2/items' });
  });

  it('response-header Name: value: set on the response (an existing one replaced)', async () => {
    const { folder } = await loaded('response-header Cache-Control: no-store');
    const result = await folder.run('http://api.test/v1/items?page=2');
    expect(result.kind === 'response' && result.headers.filter((h) => h.name.toLowerCase() === 'cache-control')).toEqual([{ name: 'Cache-Control', value: 'no-store' }]);
  });

  it('file PATH: answered with the file as a data: URL of its type', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wrtui-quick-'));
    try {
      await writeFile(join(dir, 'mock.json'), '{"items":[]}');
      const { folder } = await loaded(`file ${join(dir, 'mock.json')}`);
      const result = await folder.run('http://api.test/v1/items?page=2');
      expect(result).toMatchObject({ kind: 'non-web-redirect', url: `data:application/json;base64,${Buffer.from('{"items":[]}').toString('base64')}` });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('says what is wrong and writes nothing', async () => {
    expect(await quickRuleFrom('redirect nowhere', REQUEST)).toEqual({ ok: false, error: 'redirect needs a URL: redirect https://example.test/other' });
    expect(await quickRuleFrom('header no-colon', REQUEST)).toMatchObject({ ok: false, error: expect.stringContaining('needs "Name: value"') });
    expect(await quickRuleFrom('file /nonexistent/x.json', REQUEST)).toMatchObject({ ok: false, error: 'cannot read /nonexistent/x.json: ENOENT' });
    expect(await quickRuleFrom('frobnicate', REQUEST)).toMatchObject({ ok: false, error: expect.stringContaining('one of: block') });
  });
});
