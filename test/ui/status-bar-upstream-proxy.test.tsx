// --upstream-proxy shows in the status bar: where requests go next, the credentials hidden.
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './ui-harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('the status bar with an upstream proxy', () => {
  it('names the upstream proxy beside the listening one, at 120 and at 80 columns', async () => {
    harness = await startHarness({ upstreamProxy: 'http://***@proxy.corp:3128', size: { columns: 120, rows: 30 } });
    const top = harness.frame().split('\n')[0] ?? '';
    expect(top).toContain('proxy 127.0.0.1:8080 incognito :8081 via http://***@proxy.corp:3128');
    await harness.close();
    harness = await startHarness({ upstreamProxy: 'http://proxy.corp:3128', size: { columns: 80, rows: 24 } });
    expect(harness.frame().split('\n')[0]).toContain('via http://proxy.corp:3128');
  });

  it('says nothing of one when requests go direct', async () => {
    harness = await startHarness();
    expect(harness.frame()).not.toContain(' via ');
  });
});
