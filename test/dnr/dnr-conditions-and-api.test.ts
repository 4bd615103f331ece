// Conditions beyond the URL (initiator, party, response headers, a frame allowed by
// allowAllRequests) and the chrome.declarativeNetRequest calls an extension makes, with the errors
// and limits Chrome documents.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DnrEngine, type DnrRequestInfo } from '../../src/engine/dnr/dnr-engine.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const ID = 'a'.repeat(32);
async function engineWith(rules: unknown[], now?: () => number) {
  const dnr = new DnrEngine(now ? { now } : {});
  await dnr.addExtension({ extensionId: ID, name: 'ext', baseUrl: `chrome-extension://${ID}/`, rulesets: [{ id: 'main', path: 'rules.json', enabled: true, rules }, { id: 'spare', path: 'spare.json', enabled: false, rules: [] }] });
  return dnr;
}
const request = (url: string, extra: Partial<DnrRequestInfo> = {}): DnrRequestInfo => ({ requestId: String(Math.random()), url, method: 'GET', type: 'script', tabId: 1, ...extra });

describe('conditions beyond the URL', () => {
  it('"initiatorDomains: the rule only matches requests originating from this list (subdomains too)"', async () => {
    const dnr = await engineWith([{ id: 1, action: { type: 'block' }, condition: { initiatorDomains: ['news.example'] } }]);
    expect(dnr.beforeRequest(request('https://cdn.test/a.js', { initiator: 'https://www.news.example' })).action.kind).toBe('block');
    expect(dnr.beforeRequest(request('https://cdn.test/a.js', { initiator: 'https://other.example' })).action.kind).toBe('none');
    expect(dnr.beforeRequest(request('https://cdn.test/a.js')).action.kind).toBe('none'); // no initiator
  });

  it('"domainType: whether the request is first-party or third-party to the domain from which it originated"', async () => {
    const dnr = await engineWith([{ id: 1, action: { type: 'block' }, condition: { urlFilter: '/px', domainType: 'thirdParty' } }]);
    expect(dnr.beforeRequest(request('https://tracker.test/px', { initiator: 'https://shop.example' })).action.kind).toBe('block');
    expect(dnr.beforeRequest(request('https://img.shop.example/px', { initiator: 'https://www.shop.example' })).action.kind).toBe('none');
  });

  it('"responseHeaders: the rule matches if the request matches any response header condition" (decided when the headers arrive)', async () => {
    const dnr = await engineWith([{ id: 1, action: { type: 'block' }, condition: { urlFilter: '/dl/', responseHeaders: [{ header: 'content-type', values: ['application/x-msdownload', 'application/octet-*'] }] } }]);
    expect(dnr.beforeRequest(request('https://files.test/dl/a.exe')).action.kind).toBe('none');
    expect(dnr.responseHeaders(request('https://files.test/dl/a.exe'), [{ name: 'Content-Type', value: 'application/octet-stream' }]).blocked).toBe(true);
    expect(dnr.responseHeaders(request('https://files.test/dl/a.txt'), [{ name: 'Content-Type', value: 'text/plain' }]).blocked).toBe(false);
  });

  it('explain names the first condition that failed', async () => {
    const dnr = await engineWith([{ id: 1, action: { type: 'block' }, condition: { urlFilter: '/ads/', resourceTypes: ['image'], requestMethods: ['post'] } }]);
    expect(dnr.explain(request('https://x.test/ads/a.js')).map((rule) => rule.failed)).toEqual(['resourceTypes: script is not included']);
    expect(dnr.explain(request('https://x.test/ads/a.png', { type: 'image' })).map((rule) => rule.failed)).toEqual(['requestMethods: get is not included']);
    expect(dnr.explain(request('https://x.test/other')).map((rule) => rule.failed)).toEqual(['urlFilter "/ads/" does not match the URL']);
  });
});

describe('"allowAllRequests: allow all requests within a frame hierarchy, including the frame request itself"', () => {
  let harness: ProxyHarness | undefined;
  let origin: Origin | undefined;
  afterEach(async () => {
    await harness?.close();
    await origin?.close();
    harness = origin = undefined;
  });

  it('a page allowed by allowAllRequests loads a script a lower-priority rule blocks elsewhere', async () => {
    origin = await startOrigin((req, res) => (req.url === '/trusted' || req.url === '/other' ? res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page') : res.end('script')));
    harness = await startProxyHarness();
    await harness.engine.dnr.addExtension({
      extensionId: ID,
      name: 'ext',
      baseUrl: `chrome-extension://${ID}/`,
      rulesets: [{ id: 'main', path: 'rules.json', enabled: true, rules: [
        { id: 1, priority: 2, action: { type: 'allowAllRequests' }, condition: { urlFilter: '/trusted', resourceTypes: ['main_frame'] } },
        { id: 2, priority: 1, action: { type: 'block' }, condition: { urlFilter: '/ads/' } },
      ] }],
    });
    const navigate = (path: string) => harness!.curl(['-s', '-H', 'Sec-Fetch-Dest: document', '-H', 'Sec-Fetch-Mode: navigate', '-H', 'Accept: text/html', `${origin!.url}${path}`]);
    const script = (from: string) => harness!.curl(['-s', '-H', 'Sec-Fetch-Dest: script', '-H', 'Sec-Fetch-Mode: no-cors', '-H', `Referer: ${origin!.url}${from}`, `${origin!.url}/ads/lib.js`]);
    expect((await navigate('/trusted')).stdout).toBe('<p>page');
    expect((await script('/trusted')).stdout).toBe('script');
    expect((await navigate('/other')).stdout).toBe('<p>page');
    expect((await script('/other')).code).not.toBe(0);
  });
});

describe('chrome.declarativeNetRequest calls', () => {
  it('updateDynamicRules checks every rule first and changes nothing when one is wrong', async () => {
    const dnr = await engineWith([]);
    await expect(dnr.call(ID, 'updateDynamicRules', [{ addRules: [{ id: 1, action: { type: 'block' }, condition: { urlFilter: 'a' } }, { id: 5, action: { type: 'redirect' }, condition: {} }] }])).rejects.toThrow('Rule with id 5: action.redirect: a redirect rule needs action.redirect');
    expect(await dnr.call(ID, 'getDynamicRules', [])).toEqual([]);
    await dnr.call(ID, 'updateDynamicRules', [{ addRules: [{ id: 1, action: { type: 'block' }, condition: { urlFilter: 'a' } }] }]);
    await expect(dnr.call(ID, 'updateDynamicRules', [{ addRules: [{ id: 1, action: { type: 'block' }, condition: { urlFilter: 'b' } }] }])).rejects.toThrow('Rule with id 1 does not have a unique ID.');
    await dnr.call(ID, 'updateDynamicRules', [{ removeRuleIds: [1], addRules: [{ id: 1, action: { type: 'block' }, condition: { urlFilter: 'b' } }] }]);
    expect(await dnr.call(ID, 'getDynamicRules', [{ ruleIds: [1] }])).toEqual([{ id: 1, action: { type: 'block' }, condition: { urlFilter: 'b' } }]);
  });

  it('dynamic rules changed in quick succession: the file ends with the last change, and the engine can be waited on until it is written', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'wrtui-dnr-writes-'));
    try {
      const dnr = new DnrEngine({ stateDir });
      await dnr.addExtension({ extensionId: ID, name: 'ext', baseUrl: `chrome-extension://${ID}/`, rulesets: [] });
      const rule = (id: number) => ({ id, action: { type: 'block' }, condition: { urlFilter: `/${id}` } });
      // Not awaited, as an extension's calls arrive: each one starts a write.
      for (let id = 1; id <= 5; id++) void dnr.call(ID, 'updateDynamicRules', [{ addRules: [rule(id)] }]);
      dnr.removeExtension(ID);
      await dnr.settled();
      const dir = join(stateDir, 'dnr');
      expect(await readdir(dir)).toEqual([`${ID}.json`]); // no temporary file left behind
      expect(JSON.parse(await readFile(join(dir, `${ID}.json`), 'utf8')).dynamicRules.map((r: { id: number }) => r.id)).toEqual([1, 2, 3, 4, 5]);
    } finally {
      await rm(stateDir, { recursive: true });
    }
  });

  it('tabIds only in session rules; updateEnabledRulesets refuses an unknown ruleset', async () => {
    const dnr = await engineWith([]);
    const tabRule = { id: 9, action: { type: 'block' }, condition: { urlFilter: 'a', tabIds: [3] } };
    await expect(dnr.call(ID, 'updateDynamicRules', [{ addRules: [tabRule] }])).rejects.toThrow(/only session rules may name tabs/);
    await dnr.call(ID, 'updateSessionRules', [{ addRules: [tabRule] }]);
    await expect(dnr.call(ID, 'updateEnabledRulesets', [{ enableRulesetIds: ['nope'] }])).rejects.toThrow('Invalid ruleset id: nope.');
    await dnr.call(ID, 'updateEnabledRulesets', [{ enableRulesetIds: ['spare'], disableRulesetIds: ['main'] }]);
    expect(await dnr.call(ID, 'getEnabledRulesets', [])).toEqual(['spare']);
  });

  it('getMatchedRules: the rules that acted in the last five minutes, at most 20 calls in 10 minutes', async () => {
    let now = 1_000_000;
    const dnr = await engineWith([{ id: 1, action: { type: 'block' }, condition: { urlFilter: '/ads/' } }], () => now);
    dnr.beforeRequest(request('https://x.test/ads/1'));
    now += 6 * 60_000;
    dnr.beforeRequest(request('https://x.test/ads/2', { tabId: 7 }));
    expect(await dnr.call(ID, 'getMatchedRules', [{}])).toEqual({ rulesMatchedInfo: [{ rule: { ruleId: 1, rulesetId: 'main' }, tabId: 7, timeStamp: now }] });
    for (let call = 1; call < 20; call++) await dnr.call(ID, 'getMatchedRules', [{}]);
    await expect(dnr.call(ID, 'getMatchedRules', [{}])).rejects.toThrow(/MAX_GETMATCHEDRULES_CALLS_PER_INTERVAL/);
    now += 10 * 60_000;
    await expect(dnr.call(ID, 'getMatchedRules', [{}])).resolves.toBeDefined();
  });

  it('isRegexSupported refuses what RE2 refuses (as Chromium 156 answered), testMatchOutcome says which rules would act', async () => {
    const dnr = await engineWith([
      { id: 1, priority: 1, action: { type: 'block' }, condition: { urlFilter: '/ads/' } },
      { id: 2, priority: 2, action: { type: 'allow' }, condition: { urlFilter: '/ads/ok' } },
      { id: 3, priority: 3, action: { type: 'modifyHeaders', requestHeaders: [{ header: 'x-a', operation: 'set', value: '1' }] }, condition: { urlFilter: '/ads/' } },
    ]);
    expect(await dnr.call(ID, 'isRegexSupported', [{ regex: '(?=a)b' }])).toEqual({ isSupported: false, reason: 'syntaxError' });
    expect(await dnr.call(ID, 'isRegexSupported', [{ regex: 'a(b)\\1' }])).toEqual({ isSupported: false, reason: 'syntaxError' });
    expect(await dnr.call(ID, 'isRegexSupported', [{ regex: '[a-z]{1000}{1000}' }])).toEqual({ isSupported: false, reason: 'syntaxError' });
    expect(await dnr.call(ID, 'isRegexSupported', [{ regex: '^https?://[a-z]+\\.com/(.*)$' }])).toEqual({ isSupported: true });
    expect(await dnr.call(ID, 'testMatchOutcome', [{ url: 'https://x.test/ads/ok', type: 'script' }])).toEqual({ matchedRules: [{ ruleId: 2, rulesetId: 'main' }, { ruleId: 3, rulesetId: 'main' }] });
    expect(await dnr.call(ID, 'testMatchOutcome', [{ url: 'https://x.test/ads/no', type: 'script' }])).toEqual({ matchedRules: [{ ruleId: 1, rulesetId: 'main' }] });
  });
});
