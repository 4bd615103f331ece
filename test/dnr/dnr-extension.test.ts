// An MV3 extension that ships declarativeNetRequest rules (fixtures/extensions/dnr-rules), loaded
// unchanged: its static rulesets from manifest.json, the dynamic and session rules its service
// worker adds at install, onRuleMatchedDebug, and what a broken ruleset does.
import { cp, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import type { DnrEntry, JournalEntry, LogEntry, RuleEntry } from '../../src/engine/journal.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';
import { closeRig } from '../helpers/close-rig.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/extensions/dnr-rules/', import.meta.url));
const ID = 'epjnknammggjfjpkknpdjpahodfdngdb';
// What a page's fetch() sends: wrtui reads the type (xmlhttprequest) from it, as Chrome would report it.
const FETCH = ['-H', 'Sec-Fetch-Dest: empty', '-H', 'Sec-Fetch-Mode: cors', '-H', 'Accept-Language: en'];

let harness: ProxyHarness | undefined;
let host: ExtensionHost | undefined;
let origin: Origin | undefined;
let work: string | undefined;
afterEach(async () => {
  await closeRig({ host, harness, origin, folder: work });
  host = harness = origin = work = undefined;
});

async function load(edit?: (dir: string) => Promise<void>) {
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-dnr-extension-'));
  const dir = path.join(work, 'dnr-rules');
  await cp(FIXTURE, dir, { recursive: true });
  await edit?.(dir);
  origin = await startOrigin((req, res) => res.writeHead(200, { 'x-origin': 'yes' }).end(`origin: ${req.url}`));
  harness = await startProxyHarness();
  host = await ExtensionHost.start(harness.engine, { extensions: [dir], watch: false, typeCheck: false, stateDir: harness.stateDir });
  return dir;
}

const curl = (pathname: string, extra: string[] = []) => harness!.curl(['-s', '-D', '-', ...FETCH, ...extra, `${origin!.url}${pathname}`]);
const dnrEntries = () => harness!.entries.filter((entry): entry is DnrEntry & JournalEntry => entry.kind === 'dnr');

describe('an MV3 extension with declarativeNetRequest rules, loaded unchanged', () => {
  it('its enabled static ruleset acts on traffic; the disabled one does not', async () => {
    await load();
    expect((await curl('/dnr/blocked')).code).not.toBe(0);
    expect((await curl('/dnr/moved', ['-L'])).stdout).toContain('origin: /dnr/target');
    await curl('/dnr/headers');
    const atOrigin = origin!.received.find((request) => request.url === '/dnr/headers')!;
    expect(atOrigin.headers['x-dnr']).toBe('set-by-dnr');
    expect(atOrigin.headers['accept-language']).toBeUndefined();
    const response = await curl('/dnr/resp');
    expect(response.stdout.toLowerCase()).toContain('x-dnr-resp: 1');
    expect(response.stdout.toLowerCase()).not.toContain('x-origin');
    expect((await curl('/dnr/allowed')).stdout).toContain('origin: /dnr/allowed');
    expect((await curl('/dnr/re-42')).code).not.toBe(0);
    expect((await curl('/dnr/plain')).stdout).toContain('origin: /dnr/plain'); // "extra" is disabled
    // Conditions: a GET to a POST-only rule and a fetch to an image-only rule pass.
    expect((await curl('/dnr/post-only')).stdout).toContain('origin: /dnr/post-only');
    expect((await curl('/dnr/post-only', ['-X', 'POST', '-d', 'x=1'])).code).not.toBe(0);
    expect((await curl('/dnr/images-only')).stdout).toContain('origin: /dnr/images-only');
    expect(origin!.received.map((request) => request.url)).not.toContain('/dnr/blocked');
    expect(dnrEntries().filter((entry) => entry.effect === 'block').map((entry) => `${entry.matches[0]!.rulesetId}#${entry.matches[0]!.ruleId}`)).toEqual(['main#1', 'main#7', 'main#8']);
  });

  it('the dynamic and session rules its service worker adds at install act too; dynamic rules are kept in the state folder, readable by the user only', async () => {
    await load();
    const until = Date.now() + 5000;
    while (host!.rules()[0]!.declarativeNetRequest?.sessionRules !== 1 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(host!.rules()[0]!.declarativeNetRequest).toMatchObject({ rulesets: [{ id: 'main', enabled: true, rules: 9 }, { id: 'extra', enabled: false, rules: 1 }], dynamicRules: 1, sessionRules: 1 });
    expect((await curl('/dnr/dynamic')).code).not.toBe(0);
    expect((await curl('/dnr/session', ['-L'])).stdout).toContain('origin: /dnr/target?from=session');
    const file = path.join(harness!.stateDir, 'dnr', `${ID}.json`);
    expect(JSON.parse(await readFile(file, 'utf8')).dynamicRules).toEqual([expect.objectContaining({ id: 100 })]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('onRuleMatchedDebug tells the extension which rule acted (it has declarativeNetRequestFeedback)', async () => {
    await load();
    await curl('/dnr/blocked');
    const logged = await harness!.waitFor((entry) => entry.kind === 'log' && entry.message.startsWith('matched'));
    expect((logged as LogEntry).message).toBe('matched {"rulesetId":"main","ruleId":1,"path":"/dnr/blocked"}');
  });

  it('an invalid rule is skipped with a warning naming the ruleset, the rule id and the field; the others still act', async () => {
    await load(async (dir) => {
      const rules = JSON.parse(await readFile(path.join(dir, 'rules/main.json'), 'utf8')) as unknown[];
      rules.push({ id: 50, action: { type: 'block' }, condition: { urlFilter: '||*bad' } }, { id: 51, action: { type: 'redirect' }, condition: { urlFilter: '/x' } });
      await writeFile(path.join(dir, 'rules/main.json'), JSON.stringify(rules));
    });
    const warnings = harness!.entries.filter((entry): entry is RuleEntry & JournalEntry => entry.kind === 'rule' && entry.action === 'warning').map((entry) => entry.message);
    expect(warnings).toEqual([
      `ruleset "main" (rules/main.json): rule 50: condition.urlFilter: must not start with '||*': use '*' at the start instead`,
      'ruleset "main" (rules/main.json): rule 51: action.redirect: a redirect rule needs action.redirect',
    ]);
    expect((await curl('/dnr/blocked')).code).not.toBe(0);
  });

  it('a ruleset that is not JSON fails the load with the file named, as Chrome refuses such an extension', async () => {
    await load(async (dir) => writeFile(path.join(dir, 'rules/main.json'), '[{"id": 1,'));
    expect(host!.rules()[0]).toMatchObject({ state: 'failed', error: { message: expect.stringMatching(/^the ruleset "main" is not valid JSON/), location: expect.stringMatching(/rules\/main\.json$/) } });
    expect((await curl('/dnr/blocked')).stdout).toContain('origin: /dnr/blocked');
  });
});
