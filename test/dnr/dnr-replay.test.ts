// declarativeNetRequest takes part in replay like listeners do: a recording made with an
// extension's ruleset, replayed with the ruleset edited, says which requests are now blocked or
// no longer, by which rule, so a ruleset change can be a regression test in CI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRecording } from '../../src/engine/session/open-recording.js';
import type { ReplayRunView } from '../../src/engine/session/replay-run-view.js';
import { replaySession } from '../../src/engine/session/session-replay.js';
import { recordSession, type Recording } from '../session/session-harness.js';

const manifest = JSON.stringify({
  manifest_version: 3,
  name: 'Ad Rules',
  version: '1.0',
  permissions: ['declarativeNetRequest'],
  host_permissions: ['<all_urls>'],
  declarative_net_request: { rule_resources: [{ id: 'main', enabled: true, path: 'rules.json' }] },
});
const rules = (blocked: string) => JSON.stringify([
  { id: 1, action: { type: 'block' }, condition: { urlFilter: blocked } },
  { id: 2, action: { type: 'modifyHeaders', requestHeaders: [{ header: 'x-ad-rules', operation: 'set', value: 'on' }] }, condition: { urlFilter: '/api' } },
]);

let recording: Recording;
beforeAll(async () => {
  recording = await recordSession({
    rules: { 'ad-rules/manifest.json': manifest, 'ad-rules/rules.json': rules('/tracker/') },
    async traffic(harness, origin) {
      await harness.curl([`${origin.url}/tracker/pixel.gif`]);
      await harness.curl([`${origin.url}/page`]);
      await harness.curl([`${origin.url}/api`]);
    },
  });
}, 60_000);
afterAll(() => recording?.cleanup());

describe('declarativeNetRequest in replay', () => {
  it('with the same ruleset, every request replays identically (DNR matches included)', async () => {
    const session = await openRecording(recording.file);
    expect(session.journal!.some((entry) => entry.kind === 'dnr')).toBe(true);
    const result = await replaySession(session, { rulesDir: recording.rulesDir });
    expect(result.diffs.map((diff) => diff.identical)).toEqual([true, true, true]);
  });

  it('with the ruleset edited, the diff names the rule: /page newly blocked, /tracker/ no longer, and /api lost the cookie /page set', async () => {
    const session = await openRecording(recording.file);
    const edited = await recording.editedRules({ 'ad-rules/rules.json': rules('/page') });
    const result = await replaySession(session, { rulesDir: edited });
    const byPath = Object.fromEntries(result.diffs.map((diff) => [new URL(diff.url).pathname, diff]));
    expect(byPath['/tracker/pixel.gif']).toMatchObject({ changes: ['no-longer-blocked'], blocked: { recorded: { owner: 'Ad Rules (declarativeNetRequest main#1)', event: 'onBeforeRequest' }, replayed: null } });
    expect(byPath['/page']).toMatchObject({ changes: ['newly-blocked'], blocked: { recorded: null, replayed: { owner: 'Ad Rules (declarativeNetRequest main#1)' } } });
    // A knock-on effect: /page set the session cookie /api used to carry.
    expect(byPath['/api']).toMatchObject({ changes: ['request-headers'], requestHeaders: [{ removed: [{ name: 'Cookie', value: 'session=abc123' }] }] });
  });

  it('a header rule removed: the request headers sent and the DNR rules that acted both differ', async () => {
    const session = await openRecording(recording.file);
    const edited = await recording.editedRules({ 'ad-rules/rules.json': JSON.stringify([{ id: 1, action: { type: 'block' }, condition: { urlFilter: '/tracker/' } }]) });
    const result = await replaySession(session, { rulesDir: edited });
    const api = result.diffs.find((diff) => diff.url.endsWith('/api'))!;
    expect(api.changes).toEqual(['request-headers', 'dnr-rules']);
    expect(api.dnr).toEqual({ added: [], removed: ['onBeforeSendHeaders modifyHeaders Ad Rules main#2 applied'] });
  });

  it('once the replay has ended, its rules still explain a request (the TUI\'s Rules tab and dnr: filter in a replay)', async () => {
    const session = await openRecording(recording.file);
    let run: ReplayRunView | undefined;
    await replaySession(session, { rulesDir: recording.rulesDir, onLoaded: (_failures, loaded) => void (run = loaded) });
    const tracker = { url: 'http://127.0.0.1:9/tracker/pixel.gif', method: 'GET', type: 'image' as const, tabId: -1 };
    expect(run!.explainDnr(tracker).rules).toEqual([expect.objectContaining({ extension: 'Ad Rules', rulesetId: 'main', ruleId: 1, failed: undefined })]);
    expect(run!.dnrRuleMatches({ rulesetId: 'main', ruleId: 1 }, tracker)).toBe(true);
    expect(run!.dnrRuleMatches({ rulesetId: 'main', ruleId: 1 }, { ...tracker, url: 'http://127.0.0.1:9/page' })).toBe(false);
  });
});
