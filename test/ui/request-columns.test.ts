// The request list's rows at every common width: redirects as they happened, a URL that keeps its
// room, error names never cut mid-word, marks never dropped silently. Records are folded from
// journal entries exactly as the live UI folds them.
import { describe, expect, it } from 'vitest';
import { createRequestLog } from '../../src/app/request-log.js';
import type { JournalEntry, ListenerOutcome, WebRequestEntry } from '../../src/engine/journal.js';
import type { WebRequestEventName } from '../../src/engine/types.js';
import { lineText } from '../../src/ui/detail/styled-line.js';
import { compileFilter } from '../../src/ui/filter/compile-filter.js';
import { cutMiddle, errorLabel, headerRow, requestColumns, requestRow } from '../../src/ui/list/request-columns.js';
import { requestsLayout } from '../../src/ui/list/requests-layout.js';
import { applyWebRequestEntry, createRecord, type RequestRecord } from '../../src/ui/store/request-record.js';

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);

function entry(event: WebRequestEventName, at: number, fields: Record<string, unknown> = {}, extra: Partial<WebRequestEntry> = {}): WebRequestEntry {
  return {
    kind: 'webRequest',
    event,
    details: { requestId: '7', url: 'http://a.test/old', method: 'GET', frameId: 0, parentFrameId: -1, tabId: -1, type: 'xmlhttprequest', timeStamp: T0 + at, ...fields } as never,
    outcomes: [],
    ...extra,
  };
}

function fold(entries: WebRequestEntry[]): RequestRecord {
  const record = createRecord(1, entries[0]!);
  for (const one of entries) applyWebRequestEntry(record, one);
  return record;
}

function hop(url: string, at: number, status: number, location?: string): WebRequestEntry[] {
  const statusLine = `HTTP/1.1 ${status} X`;
  const response = { url, statusCode: status, statusLine, responseHeaders: location ? [{ name: 'Location', value: location }] : [{ name: 'Content-Length', value: '5' }] };
  return [
    entry('onBeforeRequest', at, { url }),
    entry('onBeforeSendHeaders', at + 1, { url }),
    entry('onSendHeaders', at + 1, { url }),
    entry('onHeadersReceived', at + 20, response),
    ...(location ? [entry('onBeforeRedirect', at + 21, { ...response, redirectUrl: new URL(location, url).href, fromCache: false })] : []),
  ];
}

const rowText = (record: RequestRecord, width: number) => lineText(requestRow(record, requestColumns(width)));
const matches = (filter: string, record: RequestRecord) => {
  const compiled = compileFilter(filter);
  if (!compiled.ok) throw new Error(compiled.error.message);
  return compiled.predicate!(record);
};

const unfollowed = () => fold([...hop('http://a.test/old', 0, 302, '/new'), entry('onErrorOccurred', 10_021, { error: 'net::ERR_ABORTED', fromCache: false }, { ending: 'redirect-not-followed' })]);

describe('redirects as they happened', () => {
  it('a 3xx the client does not follow is a completed 302 with its target, not an error, and lasts until the redirect arrived', () => {
    const record = unfollowed();
    expect(record).toMatchObject({ phase: 'completed', error: undefined, statusCode: 302, redirectNotFollowed: true, redirectTarget: 'http://a.test/new' });
    const row = rowText(record, 100);
    expect(row).toMatch(/GET\s+302\s+xhr\s+http:\/\/a\.test\/old -\/-> \/new\s+21 ms\s+unfollowed/);
    expect(row).not.toMatch(/ERR|aborted|10\.0 s/);
    expect(matches('status:error', record)).toBe(false);
    expect(matches('is:error', record)).toBe(false);
    expect(matches('status:3xx', record)).toBe(true);
  });

  it('a followed chain is one row, first -> latest (the host said once), the hop count past two; filters match any hop', () => {
    const twoHops = fold([...hop('http://a.test/old', 0, 301, '/new'), ...hop('http://a.test/new', 30, 200), entry('onCompleted', 60, { url: 'http://a.test/new', statusCode: 200, statusLine: 'HTTP/1.1 200 OK', fromCache: false })]);
    expect(rowText(twoHops, 100)).toMatch(/GET\s+200\s+xhr\s+http:\/\/a\.test\/old -> \/new\s/);
    const threeHops = fold([...hop('http://a.test/old', 0, 302, 'http://b.test/mid'), ...hop('http://b.test/mid', 30, 302, '/end'), ...hop('http://b.test/end', 60, 200)]);
    expect(rowText(threeHops, 120)).toContain('a.test/old -(3 hops)-> b.test/end');
    for (const filter of ['old', 'url:a\\.test/old', 'host:^a\\.test$', 'path:^/mid$', 'end']) expect(matches(filter, threeHops), filter).toBe(true);
    expect(matches('host:^c\\.test$', threeHops)).toBe(false);
  });

  it('headless names the URL the client asked for: the 3xx and its target for an unfollowed redirect, the first URL of a followed chain', () => {
    const lines: string[] = [];
    const log = createRequestLog((text) => lines.push(text));
    const asJournal = (one: WebRequestEntry, seq: number) => ({ ...one, seq, time: T0 + seq }) as JournalEntry;
    let seq = 0;
    for (const one of [...hop('http://a.test/old', 0, 302, '/new'), entry('onErrorOccurred', 10_021, { error: 'net::ERR_ABORTED' }, { ending: 'redirect-not-followed' })]) log(asJournal(one, ++seq));
    expect(lines[0]).toMatch(/GET\s+302 xmlhttprequest\s+http:\/\/a\.test\/old {2}\(redirect to http:\/\/a\.test\/new not followed\) {2}21 ms$/);
    const chain = [...hop('http://a.test/old', 0, 301, '/new'), ...hop('http://a.test/new', 30, 200), entry('onCompleted', 60, { url: 'http://a.test/new', statusCode: 200 })];
    for (const one of chain) log(asJournal({ ...one, details: { ...one.details, requestId: '8' } }, ++seq));
    expect(lines[1]).toMatch(/GET\s+200 xmlhttprequest\s+http:\/\/a\.test\/new {2}\(redirected from http:\/\/a\.test\/old\) {2}60 ms$/);
  });
});

describe('columns that keep what matters', () => {
  const longUrl = `http://shop.example.test/api/v2/${'segment/'.repeat(12)}final-part?id=42`;
  const record = fold([...hop(longUrl, 0, 200), entry('onCompleted', 40, { url: longUrl, statusCode: 200, statusLine: 'HTTP/1.1 200 OK' })]);

  // 160 and 200 with the detail pane open give the list 72 and 90 columns.
  for (const width of [80, 100, 120, 160, 200, requestsLayout(160, 40, true).listWidth, requestsLayout(200, 40, true).listWidth]) {
    it(`at ${width} columns the URL keeps at least 40 % of the row, cut in the middle so the host and the end stay`, () => {
      const columns = requestColumns(width);
      expect(columns.url).toBeGreaterThanOrEqual(Math.floor(width * 0.4));
      const row = rowText(record, width);
      expect(row.length).toBeLessThanOrEqual(width);
      expect(lineText(headerRow(columns)).length).toBeLessThanOrEqual(width);
      expect(row).toContain(' http://shop.example.test'); // the scheme, then the host whole
      expect(row).toMatch(/\.\.\.[a-z/?=-]*id=42 /); // and the end of the path
    });
  }

  it('cutMiddle keeps both ends and never exceeds the width', () => {
    expect(cutMiddle('abcdefghijklmnopqrstuvwxyz', 26)).toBe('abcdefghijklmnopqrstuvwxyz');
    expect(cutMiddle('abcdefghijklmnopqrstuvwxyz', 15)).toBe('abcdefgh...wxyz');
    expect(cutMiddle('abcdefghijklmnopqrstuvwxyz', 15)).toHaveLength(15);
  });

  it('an error is its whole net::ERR_* name when it fits, else a short form from the legend, never a cut word', () => {
    expect(errorLabel('net::ERR_CONNECTION_REFUSED', 18)).toBe('CONNECTION_REFUSED');
    expect(errorLabel('net::ERR_CONNECTION_REFUSED', 8)).toBe('refused');
    expect(errorLabel('net::ERR_BLOCKED_BY_CLIENT', 8)).toBe('blocked');
    expect(errorLabel('net::ERR_CERT_AUTHORITY_INVALID', 18)).toBe('cert');
    expect(errorLabel('net::ERR_SSL_PROTOCOL_ERROR', 8)).toBe('tls');
    expect(errorLabel('net::ERR_SOMETHING_NEW_AND_LONG', 8)).toBe('error');
    const failed = fold([...hop('http://a.test/x', 0, 200).slice(0, 3), entry('onErrorOccurred', 5, { url: 'http://a.test/x', error: 'net::ERR_TUNNEL_CONNECTION_FAILED' })]);
    expect(rowText(failed, 80)).toMatch(/GET\s+tunnel\s+http:\/\/a\.test\/x/);
    expect(rowText(failed, 200)).toMatch(/GET\s+tunnel\s/); // 24 letters do not fit 18: the legend's form; the detail pane has the name
  });

  it('marks never drop silently: what does not fit is counted, +N', () => {
    const outcome = (status: ListenerOutcome['status'], response?: object): ListenerOutcome => ({ owner: 'r', event: 'onBeforeRequest', status, ...(response && { response }) }) as ListenerOutcome;
    const busy = fold([
      entry('onBeforeRequest', 0, {}, { outcomes: [outcome('applied', { redirectUrl: 'http://a.test/x' }), outcome('failed'), outcome('ignored'), outcome('applied', { requestHeaders: [] })] }),
      entry('onErrorOccurred', 5, { error: 'net::ERR_FAILED' }),
    ]);
    const narrow = rowText(busy, 80);
    expect(narrow).toMatch(/FAIL \+3\s*$/);
    expect(rowText(busy, 200)).toMatch(/FAIL redir hdrs ignored\s*$/);
  });
});

describe('what the row says about where a request went', () => {
  it('the scheme is always there: https dim, plain http in yellow, so the two never look alike', () => {
    const secure = fold([...hop('https://shop.test/login', 0, 200), entry('onCompleted', 9, { url: 'https://shop.test/login', statusCode: 200 })]);
    const plain = fold([...hop('http://shop.test/login', 0, 200), entry('onCompleted', 9, { url: 'http://shop.test/login', statusCode: 200 })]);
    for (const width of [80, 120, 200]) {
      expect(rowText(secure, width)).toContain(' https://shop.test/login ');
      expect(rowText(plain, width)).toContain(' http://shop.test/login ');
    }
    const scheme = (record: RequestRecord) => requestRow(record, requestColumns(80)).find((segment) => /^https?:\/\/$/.test(segment.text));
    expect(scheme(secure)).toMatchObject({ dim: true });
    expect(scheme(plain)).toMatchObject({ color: 'yellow' });
  });

  it('a resent request is marked "resent" at 80 columns as at 200', () => {
    const resent = fold([...hop('http://a.test/x', 0, 200), entry('onCompleted', 9, { url: 'http://a.test/x', statusCode: 200 })]);
    resent.resentFrom = { ordinal: 3, requestId: '3' };
    for (const width of [80, 200]) expect(rowText(resent, width)).toMatch(/ resent\s*$/);
  });
});
