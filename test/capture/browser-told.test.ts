// The attached browser's reports, matched to the requests the proxy receives (browser-told.ts).
import { describe, expect, it } from 'vitest';
import { BrowserToldRequests, type ToldRequest } from '../../src/engine/capture/browser-told.js';

const report = (url: string, tabId: number, method = 'GET'): ToldRequest => ({ method, url, type: 'image', tabId, frameId: 0, parentFrameId: -1 });

describe('BrowserToldRequests', () => {
  it('a request takes the oldest report of its method and URL, each report once', () => {
    const told = new BrowserToldRequests();
    told.told(report('http://a.test/x.png', 1));
    told.told(report('http://a.test/x.png', 2));
    told.told(report('http://a.test/x.png', 3, 'POST'));
    expect(told.claim('GET', 'http://a.test/x.png', 0)).toMatchObject({ tabId: 1 });
    expect(told.claim('GET', 'http://a.test/x.png', 0)).toMatchObject({ tabId: 2 });
    expect(told.claim('GET', 'http://a.test/x.png', 0)).toBeUndefined();
    expect(told.claim('post', 'http://a.test/x.png', 0)).toMatchObject({ tabId: 3 });
    expect(told.stats).toMatchObject({ matched: 3, unmatched: 1 });
  });

  it('a request that arrives before its report gets it when it comes within the bound', async () => {
    const told = new BrowserToldRequests();
    const waiting = told.claim('GET', 'http://a.test/late', 5_000);
    told.told(report('http://a.test/late', 7));
    await expect(waiting).resolves.toMatchObject({ tabId: 7 });
    expect(told.stats.matchedAfterWait).toBe(1);
    expect(told.size).toBe(0);
  });

  it('a request whose report never comes goes on after the bound, unmatched (wrtui infers)', async () => {
    const told = new BrowserToldRequests();
    const started = performance.now();
    await expect(told.claim('GET', 'http://a.test/never', 30)).resolves.toBeUndefined();
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    expect(told.stats.unmatched).toBe(1);
    // A report arriving after that waits for the next such request instead of being given to the one that left.
    told.told(report('http://a.test/never', 4));
    expect(told.claim('GET', 'http://a.test/never', 0)).toMatchObject({ tabId: 4 });
  });

  it('the fragment is not part of the match: the proxy never sees one', () => {
    const told = new BrowserToldRequests();
    told.told(report('http://a.test/page#section', 1));
    expect(told.claim('GET', 'http://a.test/page', 0)).toMatchObject({ tabId: 1 });
  });

  it('reports nobody claims (a cached answer) are forgotten after 30 s, never given to a later request', () => {
    let now = 0;
    const told = new BrowserToldRequests(() => now);
    told.told(report('http://a.test/cached.png', 1));
    now = 31_000;
    expect(told.claim('GET', 'http://a.test/cached.png', 0)).toBeUndefined();
    expect(told.stats.dropped).toBe(1);
  });

  it('never keeps more than 2000 unclaimed reports: the oldest go first', () => {
    let now = 0;
    const told = new BrowserToldRequests(() => now);
    for (let i = 0; i < 2_001; i++) {
      now = i;
      told.told(report(`http://a.test/${i}`, 1));
    }
    expect(told.size).toBeLessThanOrEqual(2_000);
    expect(told.claim('GET', 'http://a.test/0', 0)).toBeUndefined();
    expect(told.claim('GET', 'http://a.test/2000', 0)).toMatchObject({ tabId: 1 });
  });
});
