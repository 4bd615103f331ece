// rules/csp-report-only.ts with real traffic: the client receives the page's policy as
// Content-Security-Policy-Report-Only instead of an enforced Content-Security-Policy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleFiles } from './example-rules.js';
import { startOrigin, startProxy, type Origin, type Proxy } from './real-traffic.js';
import { openRuleFolder, type RuleFolder } from './rule-folder.js';

const POLICY = "default-src 'self'; script-src 'self' https://cdn.example";

describe('csp-report-only', () => {
  let folder: RuleFolder;
  let origin: Origin;
  let proxy: Proxy;

  beforeAll(async () => {
    folder = await openRuleFolder({ files: await exampleFiles('csp-report-only'), host: { watch: false } });
    origin = await startOrigin((_request, response) => {
      response.setHeader('Content-Security-Policy', POLICY);
      response.setHeader('Content-Type', 'text/html');
      response.end('<p>page</p>');
    });
    proxy = await startProxy(folder.engine);
  });
  afterAll(async () => {
    await proxy?.close();
    await origin?.close();
    await folder?.close();
  });

  it('ships in dry-run: the policy reaches the client enforced', async () => {
    expect(folder.host.rule('csp-report-only')).toMatchObject({ state: 'active', dryRun: true });
    const response = await proxy.fetch(`${origin.url}/dry`, { headers: { 'Sec-Fetch-Dest': 'document' } });
    expect(response.headers['content-security-policy']).toBe(POLICY);
  });

  it('once applied, rewrites the CSP header of documents into its report-only form', async () => {
    folder.host.setDryRun('csp-report-only', false);
    const response = await proxy.fetch(`${origin.url}/page`, { headers: { 'Sec-Fetch-Dest': 'document' } });
    expect(response).toMatchObject({ statusCode: 200, body: '<p>page</p>' });
    expect(response.headers['content-security-policy-report-only']).toBe(POLICY);
    expect(response.headers['content-security-policy']).toBeUndefined();
    expect(origin.received.at(-1)?.url).toBe('/page');
  });

  it('leaves the CSP of non-documents alone', async () => {
    const response = await proxy.fetch(`${origin.url}/app.js`, { headers: { 'Sec-Fetch-Dest': 'script' } });
    expect(response.headers['content-security-policy']).toBe(POLICY);
  });
});
