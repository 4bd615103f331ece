// "The same event" when a replay is compared with its recording (event-signature.ts): sameEvent
// compares in place and must agree with the signature strings it replaced in the diff.
import { describe, expect, it } from 'vitest';
import type { WebRequestEntry } from '../../src/engine/journal.js';
import { eventSignature, sameEvent } from '../../src/engine/session/event-signature.js';

const entry = (details: Record<string, unknown>, outcomes: unknown[] = [], event = 'onSendHeaders'): WebRequestEntry =>
  ({ kind: 'webRequest', seq: 1, time: 0, event, details: { requestId: '1', url: 'http://a.test/', method: 'GET', type: 'other', tabId: -1, frameId: 0, parentFrameId: -1, timeStamp: 1, ...details }, outcomes }) as unknown as WebRequestEntry;

const outcome = (extra: Record<string, unknown> = {}) => ({ owner: 'gpc', event: 'onBeforeSendHeaders', status: 'applied', durationMs: 1, ...extra });

const cases: [name: string, a: WebRequestEntry, b: WebRequestEntry, same: boolean][] = [
  ['requestId and timeStamp do not count', entry({}), entry({ requestId: '9', timeStamp: 99 }), true],
  ['header order across names and name case do not count', entry({ requestHeaders: [{ name: 'A', value: '1' }, { name: 'b', value: '2' }] }), entry({ requestHeaders: [{ name: 'B', value: '2' }, { name: 'a', value: '1' }] }), true],
  ['headers in the same order compare pairwise, name case aside', entry({ requestHeaders: [{ name: 'Accept', value: '*/*' }, { name: 'X-A', value: '1' }] }), entry({ requestHeaders: [{ name: 'accept', value: '*/*' }, { name: 'x-a', value: '1' }] }), true],
  ['a binaryValue header equals the value with the same bytes', entry({ requestHeaders: [{ name: 'A', value: 'hi' }] }), entry({ requestHeaders: [{ name: 'A', binaryValue: [104, 105] }] }), true],
  ['a value that differs in the same order counts', entry({ responseHeaders: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }), entry({ responseHeaders: [{ name: 'A', value: '1' }, { name: 'B', value: '3' }] }), false],
  ['one header more counts', entry({ requestHeaders: [{ name: 'A', value: '1' }] }), entry({ requestHeaders: [{ name: 'A', value: '1' }, { name: 'A', value: '1' }] }), false],
  ['a header value counts', entry({ requestHeaders: [{ name: 'A', value: '1' }] }), entry({ requestHeaders: [{ name: 'A', value: '2' }] }), false],
  ['the order of repeated headers counts', entry({ requestHeaders: [{ name: 'A', value: '1' }, { name: 'A', value: '2' }] }), entry({ requestHeaders: [{ name: 'A', value: '2' }, { name: 'A', value: '1' }] }), false],
  ['a key left undefined is a key absent', entry({ ip: undefined }), entry({}), true],
  ['a null key is not an absent key', entry({ ip: null }), entry({}), false],
  ['a listener outcome\'s durationMs and location do not count', entry({}, [outcome()]), entry({}, [outcome({ durationMs: 7, location: 'x.ts:1:1' })]), true],
  ['what a listener returned counts, key order aside', entry({}, [outcome({ response: { cancel: false, redirectUrl: 'http://b.test/' } })]), entry({}, [outcome({ response: { redirectUrl: 'http://b.test/', cancel: false } })]), true],
  ['a different answer counts', entry({}, [outcome({ response: { cancel: true } })]), entry({}, [outcome({ response: { cancel: false } })]), false],
  ['a reason counts', entry({}, [outcome({ reason: 'x' })]), entry({}, [outcome()]), false],
  ['bytes compare by content', entry({ requestBody: { raw: [{ bytes: new Uint8Array([1, 2]).buffer }] } }), entry({ requestBody: { raw: [{ bytes: new Uint8Array([1, 2]).buffer }] } }), true],
  ['other bytes differ', entry({ requestBody: { raw: [{ bytes: new Uint8Array([1, 2]).buffer }] } }), entry({ requestBody: { raw: [{ bytes: new Uint8Array([1, 3]).buffer }] } }), false],
  ['the event name counts', entry({}, [], 'onSendHeaders'), entry({}, [], 'onBeforeSendHeaders'), false],
  ['nested key order does not count', entry({ frameAncestors: [{ url: 'http://p.test/', frameId: 0 }] }), entry({ frameAncestors: [{ frameId: 0, url: 'http://p.test/' }] }), true],
];

describe('sameEvent', () => {
  for (const [name, a, b, same] of cases) {
    it(`${name} (agrees with eventSignature)`, () => {
      expect(eventSignature(a) === eventSignature(b)).toBe(same);
      expect(sameEvent(a, b)).toBe(same);
      expect(sameEvent(b, a)).toBe(same);
    });
  }
});
