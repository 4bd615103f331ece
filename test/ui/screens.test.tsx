// Every view at the widths users run it (80, 100, 120, 160, 200 columns), as text files a reviewer
// can read: test/ui/__screens__/<view>-<width>.txt. The traffic is the kind that used to show
// something false (an unfollowed redirect, a chain, a long URL, an error with a long name, a rule
// with many marks, a jar cookie); clocks, durations and rates are normalized. A changed screen
// fails the test: look at the diff, and update with `npx vitest run test/ui/screens.test.tsx -u`.
import { afterEach, describe, expect, it } from 'vitest';
import type { RuleStatus } from '../../src/engine/extensions/extension-host.js';
import { KEYS, respond, startHarness, type Harness } from './ui-harness.js';

const WIDTHS = [80, 100, 120, 160, 200];

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const RULES: RuleStatus[] = [
  {
    name: 'strip-tracking',
    file: '/rules/strip-tracking.ts',
    kind: 'rule',
    extensionId: undefined,
    persona: 'chrome',
    runtime: { state: 'running', restarts: 0, heapUsedBytes: 5_000_000, node: false },
    state: 'active',
    dryRun: false,
    precedence: 2,
    reloadCount: 3,
    listeners: [{ id: 1, owner: 'strip-tracking', event: 'onBeforeRequest', filter: { urls: ['<all_urls>'] }, extraInfoSpec: ['blocking'] }],
    eventListeners: [{ event: 'cookies.onChanged', count: 1 }],
    quota: { used: 4, limit: 20, refused: 0, nextSlotFreeAt: null },
    lastLoadedAt: undefined,
    typeErrors: [],
  },
  {
    name: 'hbc-loop',
    file: '/rules/hbc-loop.ts',
    kind: 'rule',
    extensionId: undefined,
    persona: 'spec',
    runtime: { state: 'running', restarts: 1, heapUsedBytes: 4_000_000, node: false },
    state: 'active',
    dryRun: true,
    precedence: 1,
    reloadCount: 0,
    listeners: [],
    eventListeners: [],
    quota: { used: 20, limit: 20, refused: 6, nextSlotFreeAt: null },
    lastLoadedAt: undefined,
    typeErrors: [],
  },
];

async function traffic(h: Harness): Promise<void> {
  h.driver.rule('marker').onBeforeRequest.addListener(() => ({ redirectUrl: 'http://shop.test/moved-by-rule' }), { urls: ['http://shop.test/old-by-rule'] }, ['blocking']);
  h.driver.rule('tagger', { dryRun: true }).onBeforeSendHeaders.addListener((d) => ({ requestHeaders: [...d.requestHeaders!, { name: 'X-Served-Via', value: 'wrtui' }] }), { urls: ['http://shop.test/*'] }, ['blocking', 'requestHeaders']);
  await h.request('http://shop.test/login', { route: () => respond(200, 'ok', [{ name: 'Set-Cookie', value: 'sid=abc; Path=/' }]) });
  await h.request('http://shop.test/old-by-rule');
  await h.request(`http://cdn.example.test/assets/${'very-long-segment/'.repeat(8)}bundle.min.js?v=1234567890`);
  await h.request('http://down.test/', { refuse: true });
  await h.request('http://shop.test/api/items', { method: 'POST', body: '{"a":1}', headers: [{ name: 'Content-Type', value: 'application/json' }] });
}

function normalize(frame: string): string {
  return frame
    .replace(/\d\d:\d\d:\d\d\.\d\d\d/g, 'HH:MM:SS.mmm')
    .replace(/\d\d:\d\d:\d\d/g, 'HH:MM:SS')
    .replace(/(<1|\d+) ms\b/g, (match) => 'N ms'.padStart(match.length))
    .replace(/\d+\.\d+ req\/s/g, (match) => 'N req/s'.padStart(match.length))
    .replace(/\d{4}-\d\d-\d\d/g, 'YYYY-MM-DD')
    .replace(/in \d+m\d\ds/g, 'in NmNNs')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

describe('every view at every common width', () => {
  for (const columns of WIDTHS) {
    it(`at ${columns} columns`, async () => {
      const h = (harness = await startHarness({ size: { columns, rows: 30 }, rules: RULES }));
      await traffic(h);
      await h.settle();
      const screens: Record<string, string> = { list: h.frame() };
      await h.press(KEYS.enter, KEYS.tab); // the POST: a jar cookie, a dry-run header, a JSON body
      screens['request-tab'] = h.frame();
      await h.press(KEYS.escape, '2');
      screens.cookies = h.frame();
      await h.press('3');
      screens.rules = h.frame();
      await h.press('?');
      screens.help = h.frame();
      for (const [view, frame] of Object.entries(screens)) {
        await expect(normalize(frame)).toMatchFileSnapshot(`__screens__/${view}-${columns}.txt`);
      }
    });
  }
});
