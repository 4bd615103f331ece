// A differential test that fails says which browser and what differs first (issue: a Firefox ESR
// update once read as forty lines of JSON diff).
import { describe, expect, it } from 'vitest';
import { expectAgreement, firstDifference } from './helpers/differential.js';

const record = (headers: string[], path = '/probe/filtered') => JSON.stringify({ event: 'onSendHeaders', method: 'GET', path, type: 'xmlhttprequest', headers, frame: 0 });

describe('a differential failure names the browser and the first differing field', () => {
  it('names the record and the header names one side has more', () => {
    const oracle = [record(['accept', 'host'], '/a'), record(['accept', 'host'])];
    const ours = [record(['accept', 'host'], '/a'), record(['accept', 'dnt', 'host', 'sec-gpc'])];
    expect(firstDifference(oracle, ours)).toBe('onSendHeaders GET /probe/filtered xmlhttprequest: headers: wrtui has "dnt", "sec-gpc" more');
  });

  it('names a record the browser has and wrtui lacks, and one wrtui has more', () => {
    expect(firstDifference([record(['a']), JSON.stringify({ event: 'onCompleted', path: '/x' })], [record(['a'])])).toBe('onCompleted /x: the browser has it, wrtui has nothing like it');
    expect(firstDifference([record(['a'])], [record(['a']), record(['a'], '/b')])).toBe('wrtui has 1 more: onSendHeaders GET /b xmlhttprequest first');
  });

  it('names a nested field of a report', () => {
    expect(firstDifference({ star: { type: 'cors', status: 200 } }, { star: { type: 'basic', status: 200 } })).toBe('star.type: browser "cors", wrtui "basic"');
    expect(firstDifference({ same: 1 }, { same: 1 })).toBeUndefined();
  });

  it("puts the browser's version and the difference in the failure's first line", () => {
    let message = '';
    try {
      expectAgreement('Mozilla Firefox 153.8.0esr', 'records', [record(['dnt'])], [record([])]);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split('\n')[0]).toMatch(/^records: wrtui and Mozilla Firefox 153\.8\.0esr differ; first: onSendHeaders GET \/probe\/filtered xmlhttprequest: headers: wrtui has "dnt" more: expected /);
  });
});
