// Quick rules from a request (w): each choice is a declarativeNetRequest rule appended to the rules
// folder's quick-rules/rules.json that, loaded like any DNR ruleset, does what it says to exactly
// that URL (of any type, the page itself included) and nothing else.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { QuickRuleset } from '../../src/engine/rules/quick-ruleset.js';
import { exactUrlCondition, quickRuleFrom } from '../../src/ui/quick-rules/quick-rule.js';
import { ScriptedOrigin, ok } from '../helpers/web-request-harness.js';
import { runRequest } from '../../src/engine/web-request/run-request.js';
import { openRuleFolder, type RuleFolder } from '../rules/rule-folder.js';

const REQUEST = { requestId: '7', method: 'GET', url: 'http://api.test/v1/items?page=2#top' };
let folder: RuleFolder | undefined;
let quick: QuickRuleset | undefined;
afterEach(async () => {
  await quick?.close();
  await folder?.close();
  quick = undefined;
  folder = undefined;
});

async function written(command: string): Promise<{ folder: RuleFolder; json: unknown[] }> {
  const made = await quickRuleFrom(command, REQUEST);
  if (!made.ok) throw new Error(made.error);
  folder = await openRuleFolder();
  quick = await QuickRuleset.start(folder.engine, { rulesDir: folder.dir, watch: false });
  await quick.add(made.rule);
  expect(quick.status()).toMatchObject({ state: 'active', error: undefined });
  return { folder, json: JSON.parse(await readFile(join(folder.dir, 'quick-rules', 'rules.json'), 'utf8')) as unknown[] };
}

describe('quick rules (w) write declarativeNetRequest rules', () => {
  it('block: that URL (fragment left out), of any type, the page itself included; not its neighbours', async () => {
    const { folder, json } = await written('block');
    expect(json).toEqual([{ id: 1, condition: { urlFilter: '|http://api.test/v1/items?page=2|', isUrlFilterCaseSensitive: true, excludedResourceTypes: [] }, action: { type: 'block' } }]);
    expect(await folder.run('http://api.test/v1/items?page=2', { type: 'main_frame' })).toMatchObject({ kind: 'error', error: 'net::ERR_BLOCKED_BY_CLIENT' });
    expect(await folder.run('http://api.test/v1/items?page=2', { type: 'xmlhttprequest' })).toMatchObject({ kind: 'error' });
    expect((await folder.run('http://api.test/v1/items?page=3')).kind).toBe('response');
    expect((await folder.run('http://api.test/v1/items?page=2&more')).kind).toBe('response');
    expect((await folder.run('http://api.test/V1/items?page=2')).kind).toBe('response');
  });

  it('redirect URL: the request goes there', async () => {
    const { folder, json } = await written('redirect http://api.test/v2/items');
    expect(json).toMatchObject([{ action: { type: 'redirect', redirect: { url: 'http://api.test/v2/items' } } }]);
    expect(await folder.run('http://api.test/v1/items?page=2')).toMatchObject({ kind: 'response', url: 'http://api.test/v2/items' });
  });

  it('header Name: value: set on the request sent upstream (an existing one replaced)', async () => {
    const { folder } = await written('header X-Debug: 1');
    const origin = new ScriptedOrigin(() => ok());
    await runRequest(folder.engine.lifecycle, { method: 'GET', url: 'http://api.test/v1/items?page=2', requestHeaders: [{ name: 'x-debug', value: '0' }], type: 'xmlhttprequest' }, origin);
    expect(origin.received[0]!.headers.filter((h) => h.name.toLowerCase() === 'x-debug').map((h) => h.value)).toEqual(['1']);
  });

  it('response-header Name: value: set on the response (an existing one replaced)', async () => {
    const { folder } = await written('response-header Cache-Control: no-store');
    const result = await folder.run('http://api.test/v1/items?page=2');
    expect(result.kind === 'response' && result.headers.filter((h) => h.name.toLowerCase() === 'cache-control').map((h) => h.value)).toEqual(['no-store']);
  });

  it('file PATH: a copy in quick-rules/answers/, answered in place of the response (Chrome: a redirect to the extension\'s file)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wrtui-quick-'));
    try {
      await writeFile(join(dir, 'mock.json'), '{"items":[]}');
      const { folder, json } = await written(`file ${join(dir, 'mock.json')}`);
      expect(json).toMatchObject([{ action: { type: 'redirect', redirect: { extensionPath: '/answers/1-mock.json' } } }]);
      expect(await readFile(join(folder.dir, 'quick-rules', 'answers', '1-mock.json'), 'utf8')).toBe('{"items":[]}');
      const result = await folder.run('http://api.test/v1/items?page=2');
      expect(result.kind === 'response' && [result.statusCode, Buffer.from(result.body).toString()]).toEqual([200, '{"items":[]}']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a URL with a urlFilter special character (* ^ |) is matched exactly by a regexFilter', async () => {
    expect(exactUrlCondition('http://a.test/x*y?q=^')).toEqual({ regexFilter: '^http://a\\.test/x\\*y\\?q=\\^$', isUrlFilterCaseSensitive: true, excludedResourceTypes: [] });
    const made = await quickRuleFrom('block', { ...REQUEST, url: 'http://a.test/x*y' });
    folder = await openRuleFolder();
    quick = await QuickRuleset.start(folder.engine, { rulesDir: folder.dir, watch: false });
    await quick.add((made as { ok: true; rule: Parameters<QuickRuleset['add']>[0] }).rule);
    expect((await folder.run('http://a.test/x*y')).kind).toBe('error');
    expect((await folder.run('http://a.test/xzzy')).kind).toBe('response');
  });

  it('says what is wrong and writes nothing', async () => {
    expect(await quickRuleFrom('redirect nowhere', REQUEST)).toEqual({ ok: false, error: 'redirect needs a URL: redirect https://example.test/other' });
    expect(await quickRuleFrom('header no-colon', REQUEST)).toMatchObject({ ok: false, error: expect.stringContaining('needs "Name: value"') });
    expect(await quickRuleFrom('file /nonexistent/x.json', REQUEST)).toMatchObject({ ok: false, error: 'cannot read /nonexistent/x.json: ENOENT' });
    expect(await quickRuleFrom('file /', REQUEST)).toMatchObject({ ok: false, error: '/ is not a file' });
    expect(await quickRuleFrom('frobnicate', REQUEST)).toMatchObject({ ok: false, error: expect.stringContaining('one of: block') });
  });
});
