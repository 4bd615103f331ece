// Where a rule's verdict was not given (its listener did not answer within --listener-timeout, its
// worker was not responding), the replay diff says so in words: a request a rule blocks now but
// not when it was recorded, or blocked when recorded but not in this replay, is explained by that
// rule's failed outcome, not left as a status such as net::ERR_CACHE_MISS (the recording has no
// answer for a request that was blocked) for the reader to puzzle out (issue #33).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRecording } from '../../src/engine/session/open-recording.js';
import { changeLines } from '../../src/engine/session/replay-report.js';
import { replaySession } from '../../src/engine/session/session-replay.js';
import { recordSession, rule, type Recording } from './session-harness.js';

const TIMEOUT_MS = 300;
const FAST = rule('block-tracker', `  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['*://*/tracker/*'] }, ['blocking']);`);
/** The same rule, its answer later than the listener timeout. */
const SLOW = rule('block-tracker', `  chrome.webRequest.onBeforeRequest.addListener(async () => { await new Promise((resolve) => setTimeout(resolve, ${TIMEOUT_MS * 4})); return { cancel: true }; }, { urls: ['*://*/tracker/*'] }, ['blocking']);`);
const NOT_GIVEN = `listener did not answer within ${TIMEOUT_MS} ms; the request went on without it`;

let slowWhenRecorded: Recording;
let fastWhenRecorded: Recording;

beforeAll(async () => {
  const traffic = async (harness: Parameters<Parameters<typeof recordSession>[0]['traffic']>[0], origin: { url: string }) => {
    await harness.curl([`${origin.url}/page`]);
    await harness.curl([`${origin.url}/tracker/pixel.gif`]);
  };
  slowWhenRecorded = await recordSession({ rules: { 'block-tracker.ts': SLOW }, listenerTimeoutMs: TIMEOUT_MS, traffic });
  fastWhenRecorded = await recordSession({ rules: { 'block-tracker.ts': FAST }, listenerTimeoutMs: TIMEOUT_MS, traffic });
}, 60_000);

afterAll(async () => {
  await slowWhenRecorded?.cleanup();
  await fastWhenRecorded?.cleanup();
});

describe('a verdict that was not given is named in the replay diff', () => {
  it('not given when recorded: "newly blocked", and why it was not blocked then', async () => {
    const rulesDir = await slowWhenRecorded.editedRules({ 'block-tracker.ts': FAST });
    const { diffs } = await replaySession(await openRecording(slowWhenRecorded.file), { rulesDir });
    const tracker = diffs.find((diff) => diff.url.endsWith('/tracker/pixel.gif'))!;
    expect(tracker).toMatchObject({ changes: ['newly-blocked'], skippedVerdict: { in: 'recording', owner: 'block-tracker', event: 'onBeforeRequest', reason: NOT_GIVEN } });
    expect(changeLines(tracker)).toEqual([
      `newly blocked by block-tracker at onBeforeRequest (was 404): when it was recorded, block-tracker's verdict was not given (${NOT_GIVEN}), so the request went on unblocked`,
    ]);
  });

  it('not given in this replay: "no longer blocked", and why, not "now net::ERR_CACHE_MISS"', async () => {
    const rulesDir = await fastWhenRecorded.editedRules({ 'block-tracker.ts': SLOW });
    const { diffs } = await replaySession(await openRecording(fastWhenRecorded.file), { rulesDir });
    const tracker = diffs.find((diff) => diff.url.endsWith('/tracker/pixel.gif'))!;
    expect(tracker).toMatchObject({ changes: ['no-longer-blocked'], skippedVerdict: { in: 'replay', owner: 'block-tracker', event: 'onBeforeRequest', reason: NOT_GIVEN } });
    expect(changeLines(tracker)).toEqual([
      `no longer blocked (was by block-tracker at onBeforeRequest): in this replay block-tracker's verdict was not given (${NOT_GIVEN}), and the recording has no answer for a request that was blocked`,
    ]);
    expect(changeLines(tracker).join('\n')).not.toContain('ERR_CACHE_MISS');
  });

  it('a rule that simply no longer blocks keeps the plain wording', async () => {
    const rulesDir = await fastWhenRecorded.editedRules({ 'block-tracker.ts': rule('block-tracker', '') });
    const { diffs } = await replaySession(await openRecording(fastWhenRecorded.file), { rulesDir });
    const tracker = diffs.find((diff) => diff.url.endsWith('/tracker/pixel.gif'))!;
    expect(tracker.skippedVerdict).toBeUndefined();
    expect(changeLines(tracker)).toEqual(['no longer blocked (was by block-tracker at onBeforeRequest), now net::ERR_CACHE_MISS']);
  });
});
