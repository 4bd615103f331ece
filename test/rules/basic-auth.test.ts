// rules/basic-auth.ts with real traffic: the origin asks for Basic credentials, the rule answers
// onAuthRequired, and the client gets the authenticated answer without ever seeing the 401.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleFiles } from './example-rules.js';
import { startOrigin, startProxy, type Origin, type Proxy } from './real-traffic.js';
import { openRuleFolder, type RuleFolder } from './rule-folder.js';

const EXPECTED = `Basic ${Buffer.from('dev:dev').toString('base64')}`;

describe('basic-auth', () => {
  let folder: RuleFolder;
  let origin: Origin;
  let proxy: Proxy;

  beforeAll(async () => {
    folder = await openRuleFolder({ files: await exampleFiles('basic-auth'), host: { watch: false } });
    origin = await startOrigin((request, response) => {
      if (request.headers.authorization === EXPECTED) return response.end('welcome, dev');
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="dev server"', 'Content-Type': 'text/plain' });
      response.end('who are you?');
    });
    proxy = await startProxy(folder.engine);
  });
  afterAll(async () => {
    await proxy?.close();
    await origin?.close();
    await folder?.close();
  });

  it('ships in dry-run: the client gets the 401', async () => {
    expect(folder.host.rule('basic-auth')).toMatchObject({ state: 'active', dryRun: true });
    const response = await proxy.fetch(`${origin.url}/dry`);
    expect(response).toMatchObject({ statusCode: 401, body: 'who are you?' });
  });

  it('once applied, answers the challenge: the client gets the authenticated page', async () => {
    folder.host.setDryRun('basic-auth', false);
    const before = origin.received.length;
    const response = await proxy.fetch(`${origin.url}/admin`);
    expect(response).toMatchObject({ statusCode: 200, body: 'welcome, dev' });
    const seen = origin.received.slice(before);
    expect(seen.map((r) => r.headers.authorization)).toEqual([undefined, EXPECTED]);
    const auth = folder.webRequestEntries().find((e) => e.event === 'onAuthRequired' && e.details.url.endsWith('/admin'));
    expect(auth?.outcomes[0]).toMatchObject({ owner: 'basic-auth', status: 'applied' });
  });
});
