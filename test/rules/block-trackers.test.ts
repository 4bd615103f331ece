// rules/block-trackers.ts with real traffic: images and scripts from tracker hosts are cancelled
// before they leave wrtui; other types, and other hosts, go through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleFiles } from './example-rules.js';
import { startOrigin, startProxy, type Origin, type Proxy } from './real-traffic.js';
import { openRuleFolder, type RuleFolder } from './rule-folder.js';

describe('block-trackers', () => {
  let folder: RuleFolder;
  let origin: Origin;
  let proxy: Proxy;

  beforeAll(async () => {
    folder = await openRuleFolder({ files: await exampleFiles('block-trackers'), host: { watch: false } });
    origin = await startOrigin((_request, response) => response.end('pixel'));
    proxy = await startProxy(folder.engine);
  });
  afterAll(async () => {
    await proxy?.close();
    await origin?.close();
    await folder?.close();
  });

  it('ships in dry-run: it journals "would cancel" and cancels nothing', async () => {
    expect(folder.host.rule('block-trackers')).toMatchObject({ state: 'active', dryRun: true });
    const since = folder.mark();
    // The made-up host does not resolve, whatever the rule says; only the journal matters here.
    await proxy.fetch('http://pixel.tracker.example/p.gif', { headers: { 'Sec-Fetch-Dest': 'image' } }).catch(() => undefined);
    const entry = await folder.waitForEntry((e) => e.kind === 'webRequest' && e.event === 'onBeforeRequest' && e.details.url.includes('tracker.example'), { since });
    expect(entry.kind === 'webRequest' && entry.outcomes).toEqual([expect.objectContaining({ owner: 'block-trackers', status: 'dry-run', reason: 'would cancel' })]);
  });

  it('once applied, cancels images and scripts from a tracker host: the origin never sees them', async () => {
    folder.host.setDryRun('block-trackers', false);
    const since = folder.mark();
    for (const dest of ['image', 'script']) {
      await expect(proxy.fetch(`http://tracker.example:${origin.port}/t.${dest}`, { headers: { 'Sec-Fetch-Dest': dest } })).rejects.toThrow();
    }
    const errors = folder.entries.slice(since).filter((e) => e.kind === 'webRequest' && e.event === 'onErrorOccurred');
    expect(errors.map((e) => e.kind === 'webRequest' && (e.details as { error?: string }).error)).toEqual(['net::ERR_BLOCKED_BY_CLIENT', 'net::ERR_BLOCKED_BY_CLIENT']);
    expect(origin.received).toEqual([]);
  });

  it('lets other types from the tracker host, and images from other hosts, through', async () => {
    const image = await proxy.fetch(`${origin.url}/logo.png`, { headers: { 'Sec-Fetch-Dest': 'image' } });
    expect(image).toMatchObject({ statusCode: 200, body: 'pixel' });
    expect(origin.received.map((r) => r.url)).toEqual(['/logo.png']);
  });
});
