// rules/stub-analytics.ts with real traffic: a request for an analytics script is answered by
// wrtui itself from the rule's data: URL; the origin never sees it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleFiles } from './example-rules.js';
import { startOrigin, startProxy, type Origin, type Proxy } from './real-traffic.js';
import { openRuleFolder, type RuleFolder } from './rule-folder.js';

describe('stub-analytics', () => {
  let folder: RuleFolder;
  let origin: Origin;
  let proxy: Proxy;

  beforeAll(async () => {
    folder = await openRuleFolder({ files: await exampleFiles('stub-analytics'), host: { watch: false } });
    origin = await startOrigin((_request, response) => response.end('window.track = () => sendEverything();'));
    proxy = await startProxy(folder.engine);
  });
  afterAll(async () => {
    await proxy?.close();
    await origin?.close();
    await folder?.close();
  });

  it('ships in dry-run: journals "would redirect" and the real script is served', async () => {
    expect(folder.host.rule('stub-analytics')).toMatchObject({ state: 'active', dryRun: true });
    const since = folder.mark();
    const response = await proxy.fetch(`${origin.url}/js/analytics.js`, { headers: { 'Sec-Fetch-Dest': 'script' } });
    expect(response.body).toContain('sendEverything');
    const entry = folder.webRequestEntries().slice().reverse().find((e) => e.seq > since && e.event === 'onBeforeRequest');
    expect(entry?.outcomes[0]).toMatchObject({ owner: 'stub-analytics', status: 'dry-run', reason: expect.stringMatching(/^would redirect to data:text\/javascript/) });
  });

  it('once applied, the client gets the stub from the data: URL and the origin is not asked', async () => {
    folder.host.setDryRun('stub-analytics', false);
    const before = origin.received.length;
    const response = await proxy.fetch(`${origin.url}/js/analytics.js?v=3`, { headers: { 'Sec-Fetch-Dest': 'script' } });
    expect(response).toMatchObject({ statusCode: 200, body: '/* analytics stubbed by wrtui */' });
    expect(response.headers['content-type']).toMatch(/^text\/javascript/);
    expect(origin.received.length).toBe(before);
  });

  it('does not touch other scripts', async () => {
    const response = await proxy.fetch(`${origin.url}/js/app.js`, { headers: { 'Sec-Fetch-Dest': 'script' } });
    expect(response.body).toContain('sendEverything');
  });
});
