// rules/strip-tracking-params.ts with real traffic: the client follows wrtui's redirect and the
// origin only ever sees the URL without utm_*, fbclid and gclid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleFiles } from './example-rules.js';
import { startOrigin, startProxy, type Origin, type Proxy } from './real-traffic.js';
import { openRuleFolder, type RuleFolder } from './rule-folder.js';

describe('strip-tracking-params', () => {
  let folder: RuleFolder;
  let origin: Origin;
  let proxy: Proxy;

  beforeAll(async () => {
    folder = await openRuleFolder({ files: await exampleFiles('strip-tracking-params'), host: { watch: false } });
    origin = await startOrigin((request, response) => response.end(`you asked for ${request.url}`));
    proxy = await startProxy(folder.engine);
  });
  afterAll(async () => {
    await proxy?.close();
    await origin?.close();
    await folder?.close();
  });

  it('ships in dry-run: journals the clean URL it would redirect to', async () => {
    expect(folder.host.rule('strip-tracking-params')).toMatchObject({ state: 'active', dryRun: true });
    const response = await proxy.fetch(`${origin.url}/dry?utm_source=x&id=1`, { follow: true });
    expect(response.body).toBe('you asked for /dry?utm_source=x&id=1');
    const entry = folder.webRequestEntries().find((e) => e.event === 'onBeforeRequest' && e.details.url.includes('/dry'));
    expect(entry?.outcomes[0]).toMatchObject({ status: 'dry-run', reason: `would redirect to ${origin.url}/dry?id=1` });
  });

  it('once applied, the origin sees only the clean URL, other parameters in their order', async () => {
    folder.host.setDryRun('strip-tracking-params', false);
    const before = origin.received.length;
    const response = await proxy.fetch(`${origin.url}/article?id=7&utm_source=news&utm_medium=mail&fbclid=IwAR0&ref=home&gclid=Cj0K`, {
      headers: { 'Sec-Fetch-Dest': 'document' },
      follow: true,
    });
    expect(response).toMatchObject({ statusCode: 200, body: 'you asked for /article?id=7&ref=home' });
    expect(origin.received.slice(before).map((r) => r.url)).toEqual(['/article?id=7&ref=home']);
  });

  it('drops the "?" when only tracking parameters were there, and leaves clean URLs alone', async () => {
    const stripped = await proxy.fetch(`${origin.url}/landing?utm_campaign=spring`, { follow: true });
    expect(stripped.body).toBe('you asked for /landing');
    const clean = await proxy.fetch(`${origin.url}/search?q=utm_source`, { follow: true });
    expect(clean.body).toBe('you asked for /search?q=utm_source');
  });
});
