// rules/privacy-headers.ts with real traffic: the origin receives Sec-GPC and no X-Client-Data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleFiles } from './example-rules.js';
import { startOrigin, startProxy, type Origin, type Proxy } from './real-traffic.js';
import { openRuleFolder, type RuleFolder } from './rule-folder.js';

describe('privacy-headers', () => {
  let folder: RuleFolder;
  let origin: Origin;
  let proxy: Proxy;

  beforeAll(async () => {
    folder = await openRuleFolder({ files: await exampleFiles('privacy-headers'), host: { watch: false } });
    origin = await startOrigin();
    proxy = await startProxy(folder.engine);
  });
  afterAll(async () => {
    await proxy?.close();
    await origin?.close();
    await folder?.close();
  });

  it('ships in dry-run: the headers go out as the client sent them', async () => {
    expect(folder.host.rule('privacy-headers')).toMatchObject({ state: 'active', dryRun: true });
    await proxy.fetch(`${origin.url}/dry`, { headers: { 'X-Client-Data': 'CIa2yQEIpLbJAQ==' } });
    expect(origin.received.at(-1)?.headers).toMatchObject({ 'x-client-data': 'CIa2yQEIpLbJAQ==' });
    expect(origin.received.at(-1)?.headers['sec-gpc']).toBeUndefined();
  });

  it('once applied, adds Sec-GPC: 1 and strips X-Client-Data; other headers are untouched', async () => {
    folder.host.setDryRun('privacy-headers', false);
    const response = await proxy.fetch(`${origin.url}/page`, { headers: { 'X-Client-Data': 'CIa2yQEIpLbJAQ==', 'X-Keep': 'yes' } });
    expect(response.statusCode).toBe(200);
    const seen = origin.received.at(-1)!;
    expect(seen.url).toBe('/page');
    expect(seen.headers).toMatchObject({ 'sec-gpc': '1', 'x-keep': 'yes' });
    expect(seen.headers['x-client-data']).toBeUndefined();
  });
});
