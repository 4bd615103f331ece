// The TrafficStore: journal entries folded into per-request records, the cap, batched
// notifications, the incremental filter, cookie changes attributed to requests.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Journal } from '../../src/engine/journal.js';
import { compileFilter } from '../../src/ui/filter/compile-filter.js';
import { TrafficStore } from '../../src/ui/store/traffic-store.js';
import { requestColumns, requestRow } from '../../src/ui/list/request-columns.js';
import { lineText } from '../../src/ui/detail/styled-line.js';
import { timelineLines } from '../../src/ui/detail/timeline-lines.js';
import { createEngineDriver, respond, type EngineDriver } from './engine-driver.js';

let driver: EngineDriver;
let store: TrafficStore;

beforeEach(async () => {
  driver = await createEngineDriver();
  store = new TrafficStore({ maxRequests: 100, flushIntervalMs: 0 });
  store.attach(driver.engine.journal);
});
afterEach(async () => {
  store.close();
  await driver.close();
  vi.useRealTimers();
});

function predicate(expression: string) {
  const compiled = compileFilter(expression);
  if (!compiled.ok) throw new Error(compiled.error.message);
  return compiled.predicate;
}

describe('folding', () => {
  it('a replay numbers requests by requestId: one whose first event comes after a later-numbered one\'s still takes its place (and keeps it across re-runs)', () => {
    const replayStore = new TrafficStore({ flushIntervalMs: 0, ordinals: 'requestId' });
    const started = (requestId: string, seq: number) =>
      replayStore.ingest({ kind: 'webRequest', event: 'onBeforeRequest', details: { requestId, url: `http://a.test/${requestId}`, method: 'GET', frameId: 0, parentFrameId: -1, tabId: -1, type: 'other', timeStamp: 0 }, outcomes: [], seq, time: 0 } as never);
    const run = (order: string[]) => {
      replayStore.clear({ rerun: true });
      order.forEach((requestId, index) => started(requestId, index + 1));
      replayStore.flush();
      return replayStore.visible().map((record) => `${record.ordinal} ${record.url}`);
    };
    const inOrder = run(['1', '2', '3']);
    expect(inOrder).toEqual(['1 http://a.test/1', '2 http://a.test/2', '3 http://a.test/3']);
    // Request 2's listener answered last this time: it is still second, numbered 2.
    expect(run(['1', '3', '2'])).toEqual(inOrder);
    expect(replayStore.visibleIndexOf(2)).toBe(1);
    replayStore.close();
  });

  it('a replay\'s re-run updates the list in place: the last run\'s rows stay, dim and "…same" or "…CHANGED", until the new run replaces each where it was; what it did not replay leaves at its end', () => {
    const replayStore = new TrafficStore({ flushIntervalMs: 0, ordinals: 'requestId' });
    let seq = 0;
    const replayed = (requestId: string, identical: boolean, path = requestId) => {
      const url = `http://a.test/${path}`;
      replayStore.ingest({ kind: 'webRequest', event: 'onBeforeRequest', details: { requestId, url, method: 'POST', frameId: 0, parentFrameId: -1, tabId: -1, type: 'other', timeStamp: 0 }, outcomes: [], seq: ++seq, time: 0 } as never);
      replayStore.ingest({ kind: 'replayDiff', index: Number(requestId) - 1, replayedRequestId: requestId, identical, changes: identical ? [] : ['status'], status: { recorded: 200, replayed: 500 }, seq: ++seq, time: 0 } as never);
    };
    const rows = () => replayStore.visible().map((record) => `${record.ordinal} ${record.path}${record.replayStale ? ' (stale)' : ''} ${record.replayDiff?.identical ? 'same' : 'CHANGED'}`);
    replayed('1', true);
    replayed('2', false);
    replayed('3', true);
    replayStore.flush();
    const [, second] = replayStore.visible();

    replayStore.beginRerun();
    expect(rows()).toEqual(['1 /1 (stale) same', '2 /2 (stale) CHANGED', '3 /3 (stale) same']);
    const marks = (ordinal: number) => requestRow(replayStore.byOrdinal(ordinal)!, requestColumns(120)).map((cell) => cell.text).join('');
    expect(marks(2)).toContain('…CHANGED');
    expect(requestRow(replayStore.byOrdinal(2)!, requestColumns(120)).every((cell) => cell.dim)).toBe(true);
    // The new run's request 2 body arrives before its first event, as the proxy journals it: it is the new record's.
    replayStore.ingest({ kind: 'body', requestId: '2', direction: 'request', url: 'http://a.test/2b', bytes: new TextEncoder().encode('new body'), complete: true, seq: ++seq, time: 0 } as never);
    expect(second!.requestBytes).toBeUndefined();
    replayed('1', true);
    replayed('2', true, '2b');
    replayStore.flush();
    expect(rows()).toEqual(['1 /1 same', '2 /2b same', '3 /3 (stale) same']);
    expect(Buffer.from(replayStore.byOrdinal(2)!.requestBytes!.bytes).toString()).toBe('new body');
    expect(marks(2)).toContain('same');
    expect(marks(2)).not.toContain('…same');

    replayStore.endRerun();
    expect(rows()).toEqual(['1 /1 same', '2 /2b same']);
    expect(replayStore.all()).toHaveLength(2);

    // Filtered (is:changed): a stale row that matched stays until its request is replayed; then the filter places the new one.
    replayStore.setFilter(predicate('is:changed'));
    expect(rows()).toEqual([]);
    replayStore.beginRerun();
    replayed('1', false);
    replayStore.flush();
    expect(rows()).toEqual(['1 /1 CHANGED']);
    replayStore.beginRerun();
    expect(rows()).toEqual(['1 /1 (stale) CHANGED']);
    replayed('1', true);
    replayed('2', false);
    replayStore.flush();
    expect(rows()).toEqual(['2 /2 CHANGED']);
    replayStore.endRerun();
    expect(rows()).toEqual(['2 /2 CHANGED']);
    replayStore.close();
  });

  it("request bodies that come before their request's onBeforeRequest wait for it: at most 256 of them, and no more bytes than the body budget (the oldest go)", () => {
    const small = new TrafficStore({ flushIntervalMs: 0, maxBodyBytes: 1000 });
    let seq = 0;
    const body = (requestId: string, size: number) =>
      small.ingest({ kind: 'body', requestId, direction: 'request', url: `http://a.test/${requestId}`, bytes: new Uint8Array(size), complete: true, seq: ++seq, time: 0 } as never);
    const started = (requestId: string) => {
      small.ingest({ kind: 'webRequest', event: 'onBeforeRequest', details: { requestId, url: `http://a.test/${requestId}`, method: 'POST', frameId: 0, parentFrameId: -1, tabId: -1, type: 'other', timeStamp: 0 }, outcomes: [], seq: ++seq, time: 0 } as never);
      small.flush();
      return small.all().find((record) => record.requestId === requestId)!.requestBytes?.bytes.length;
    };
    body('a', 400);
    body('b', 400);
    body('c', 400);
    expect([started('a'), started('b'), started('c')]).toEqual([undefined, 400, 400]);
    for (let i = 0; i < 300; i++) body(`n${i}`, 1);
    expect([started('n0'), started('n43'), started('n44'), started('n299')]).toEqual([undefined, undefined, 1, 1]);
    small.close();
  });

  it('one record per request with what the list shows', async () => {
    await driver.request('http://shop.test/cart?x=1', { route: () => respond(201, 'hello', [{ name: 'X-A', value: '1' }]) });
    store.flush();
    const [record] = store.all();
    expect(store.all()).toHaveLength(1);
    expect(record).toMatchObject({
      ordinal: 1,
      method: 'GET',
      url: 'http://shop.test/cart?x=1',
      host: 'shop.test',
      path: '/cart?x=1',
      statusCode: 201,
      phase: 'completed',
      error: undefined,
      responseSize: 5,
      hops: 1,
    });
    expect(record!.events.map((event) => event.event)).toEqual(['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onResponseStarted', 'onCompleted']);
    expect(record!.endedAt! - record!.startedAt).toBeGreaterThanOrEqual(0);
    expect(record!.sentHeaders?.map((header) => header.name)).toContain('Accept');
  });

  it('a redirect chain keeps one record (one requestId) with every hop', async () => {
    await driver.request('http://a.test/old', {
      route: (request) => (request.url.endsWith('/old') ? respond(302, '', [{ name: 'Location', value: 'http://a.test/new' }]) : respond(200, 'new')),
    });
    store.flush();
    expect(store.all()).toHaveLength(1);
    const record = store.all()[0]!;
    expect(record).toMatchObject({ hops: 2, firstUrl: 'http://a.test/old', url: 'http://a.test/new', path: '/new', statusCode: 200 });
    expect(record.events.map((event) => event.event)).toContain('onBeforeRedirect');
  });

  it('a redirect to data: ends the request there (wrtui answers it; no more events come): the row is not left in progress', async () => {
    driver.rule('to-data').onBeforeRequest.addListener(() => ({ redirectUrl: 'data:text/plain,hi' }), { urls: ['<all_urls>'] }, ['blocking']);
    await driver.request('http://a.test/page');
    store.flush();
    const record = store.all()[0]!;
    expect(record).toMatchObject({ phase: 'completed', statusCode: 307, redirectTarget: 'data:text/plain,hi' });
    expect(record.endedAt).toBe(record.events.at(-1)!.timeStamp);
  });

  it('failures keep the net::ERR_* name', async () => {
    await driver.request('http://down.test/', { refuse: true });
    store.flush();
    expect(store.all()[0]).toMatchObject({ phase: 'failed', error: 'net::ERR_CONNECTION_REFUSED', statusCode: undefined });
  });

  it('what rules did: applied cancel and redirect, dry-run would-…, failed, ignored', async () => {
    driver.rule('blocker').onBeforeRequest.addListener((details) => (details.url.includes('ads') ? { cancel: true } : undefined), { urls: ['<all_urls>'] }, ['blocking']);
    driver.rule('mover').onBeforeRequest.addListener((details) => (details.url.endsWith('/from') ? { redirectUrl: 'http://a.test/to' } : undefined), { urls: ['<all_urls>'] }, ['blocking']);
    driver.rule('dreamer', { dryRun: true }).onBeforeSendHeaders.addListener(() => ({ requestHeaders: [] }), { urls: ['<all_urls>'] }, ['blocking', 'requestHeaders']);
    driver.rule('broken').onHeadersReceived.addListener(() => {
      throw new Error('boom');
    }, { urls: ['http://a.test/*'] }, ['blocking']);

    await driver.request('http://ads.test/banner');
    await driver.request('http://a.test/from');
    store.flush();
    const [ads, moved] = store.all();
    expect([...ads!.verdicts]).toEqual(expect.arrayContaining(['cancelled']));
    expect(ads!.error).toBe('net::ERR_BLOCKED_BY_CLIENT');
    expect([...ads!.rules]).toContain('blocker');
    expect([...moved!.verdicts]).toEqual(expect.arrayContaining(['redirected', 'dry-run', 'failed']));
    expect(moved!.dryRunNotes.join(' ')).toMatch(/dreamer: would/);
    expect([...moved!.rules].sort()).toEqual(['broken', 'dreamer', 'mover']);
  });

  it('a request body is kept as requestBody and as body entries', async () => {
    await driver.request('http://a.test/post', { method: 'POST', body: '{"a":1}' });
    driver.engine.journal.append({ kind: 'body', requestId: store.all()[0]?.requestId ?? '1', direction: 'response', url: 'http://a.test/post', bytes: new Uint8Array(Buffer.from('hello')), complete: true });
    store.flush();
    expect(store.all()[0]!.responseBytes).toMatchObject({ size: 5, complete: true });
  });
});

describe('the cap', () => {
  it('keeps the newest maxRequests, counts the dropped, ignores their later events', async () => {
    const capped = new TrafficStore({ maxRequests: 3, flushIntervalMs: 0 });
    capped.attach(driver.engine.journal);
    for (let index = 1; index <= 5; index++) await driver.request(`http://a.test/${index}`);
    capped.flush();
    expect(capped.all().map((record) => record.path)).toEqual(['/3', '/4', '/5']);
    expect(capped.droppedCount).toBe(2);
    expect(capped.seenCount).toBe(5);
    // A late event of a dropped request (requestId "1") does not bring it back.
    const late = store.all()[0]!.events.at(-1)!;
    capped.ingest({ kind: 'webRequest', event: late.event, details: late.details, outcomes: [], seq: 999, time: Date.now() });
    capped.flush();
    expect(capped.all()).toHaveLength(3);
    capped.close();
  });

  it('a filtered list loses the dropped requests too', async () => {
    const capped = new TrafficStore({ maxRequests: 4, flushIntervalMs: 0 });
    capped.attach(driver.engine.journal);
    capped.setFilter(predicate('path:[13579]$'));
    for (let index = 1; index <= 8; index++) await driver.request(`http://a.test/${index}`);
    capped.flush();
    expect(capped.visible().map((record) => record.path)).toEqual(['/5', '/7']);
    capped.close();
  });
});

describe('notifications are batched', () => {
  it('thousands of entries between two flushes make one notification', async () => {
    vi.useFakeTimers();
    const journal = new Journal();
    const batched = new TrafficStore({ flushIntervalMs: 50 });
    batched.attach(journal);
    const notified = vi.fn();
    batched.subscribe(notified);
    for (let index = 0; index < 2000; index++) journal.append({ kind: 'log', level: 'info', source: 'test', message: `line ${index}` });
    expect(notified).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(0);
    expect(notified).toHaveBeenCalledTimes(1); // the first flush comes at once (nothing flushed lately)
    for (let index = 0; index < 2000; index++) journal.append({ kind: 'log', level: 'info', source: 'test', message: `more ${index}` });
    await vi.advanceTimersByTimeAsync(49);
    expect(notified).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(notified).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(notified).toHaveBeenCalledTimes(2); // nothing new, no notification
    expect(batched.logCount).toBe(2000); // the log is a ring: the newest 2000 of 4000
    expect(batched.logs(0, 1)[0]!.message).toBe('more 0');
    batched.close();
  });

  it('the version changes with each notification (useSyncExternalStore snapshot)', async () => {
    const before = store.getVersion();
    await driver.request('http://a.test/');
    store.flush();
    expect(store.getVersion()).toBeGreaterThan(before);
    const after = store.getVersion();
    store.flush();
    expect(store.getVersion()).toBe(after);
  });
});

describe('the filter', () => {
  it('applies to kept records at once and to changed ones on each flush', async () => {
    let answer = 200;
    const route = () => respond(answer);
    await driver.request('http://a.test/ok', { route });
    store.setFilter(predicate('status:4xx'));
    expect(store.visible()).toHaveLength(0);
    answer = 404;
    await driver.request('http://a.test/missing', { route });
    store.flush();
    expect(store.visible().map((record) => record.path)).toEqual(['/missing']);
    store.setFilter(undefined);
    expect(store.visible().map((record) => record.path)).toEqual(['/ok', '/missing']);
  });

  it('a pending request appears once it matches', async () => {
    store.setFilter(predicate('status:2xx'));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running = driver.request('http://a.test/slow', { route: async () => (await gate, respond()) });
    await new Promise((resolve) => setTimeout(resolve, 20));
    store.flush();
    expect(store.all()[0]).toMatchObject({ path: '/slow', phase: 'pending' });
    expect(store.visible()).toHaveLength(0);
    release();
    await running;
    store.flush();
    expect(store.visible().map((record) => record.path)).toEqual(['/slow']);
  });

  it('clear() keeps the requests still in flight: their outcome shows when it comes (before, it never did)', async () => {
    await driver.request('http://a.test/done');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running = driver.request('http://a.test/long-poll', { route: async () => (await gate, respond(200, 'news')) });
    await new Promise((resolve) => setTimeout(resolve, 20));
    store.flush();
    store.setFilter(predicate('a.test'));
    store.clear();
    expect(store.all().map((record) => [record.path, record.phase])).toEqual([['/long-poll', 'pending']]);
    expect(store.visible().map((record) => record.path)).toEqual(['/long-poll']);
    release();
    await running;
    store.flush();
    expect(store.all().map((record) => [record.path, record.phase, record.statusCode])).toEqual([['/long-poll', 'completed', 200]]);
  });

  it('clear() forgets every request, filtered or not', async () => {
    await driver.request('http://a.test/1');
    store.setFilter(predicate('a.test'));
    store.clear();
    expect(store.all()).toHaveLength(0);
    expect(store.visible()).toHaveLength(0);
    await driver.request('http://a.test/2');
    store.flush();
    expect(store.visible().map((record) => record.path)).toEqual(['/2']);
  });
});

describe('cookies', () => {
  it('the changes a Set-Cookie caused belong to its request, and to the onChanged log', async () => {
    await driver.request('http://shop.test/login', { route: () => respond(200, 'ok', [{ name: 'Set-Cookie', value: 'sid=1; Path=/' }]) });
    await driver.request('http://shop.test/again', { route: () => respond(200, 'ok', [{ name: 'Set-Cookie', value: 'sid=2; Path=/' }]) });
    store.flush();
    const [login, again] = store.all();
    expect(login!.setCookieHeaders).toEqual(['sid=1; Path=/']);
    expect(login!.cookieChanges.map((change) => [change.changeInfo.removed, change.changeInfo.cause, change.changeInfo.cookie.value])).toEqual([[false, 'explicit', '1']]);
    // An overwrite: the old cookie's removal and the new one's insertion, both caused by /again.
    expect(again!.cookieChanges.map((change) => [change.changeInfo.removed, change.changeInfo.cause, change.changeInfo.cookie.value])).toEqual([
      [true, 'overwrite', '1'],
      [false, 'explicit', '2'],
    ]);
    expect(store.cookieLog().map((line) => line.request?.requestId)).toEqual([login!.requestId, again!.requestId, again!.requestId]);
    expect(store.cookiesVersion).toBe(3);
  });

  it('changes made outside any request are logged without one', async () => {
    const owner = (await import('../../src/engine/owner.js')).createTrustedOwner('editor');
    await driver.engine.extensionApi(owner).browser.cookies!.set({ url: 'http://shop.test/', name: 'theme', value: 'dark' });
    store.flush();
    expect(store.cookieLog().map((line) => [line.changeInfo.cookie.name, line.request])).toEqual([['theme', undefined]]);
  });
});

describe('the rest of the journal', () => {
  it('a handlerBehaviorChanged refused on a reload says wrtui made the call, not the rule', () => {
    const journal = new Journal();
    const other = new TrafficStore({ flushIntervalMs: 0 });
    other.attach(journal);
    journal.append({ kind: 'handlerBehaviorChanged', owner: 'r1', accepted: false, madeBy: 'reload', used: 20, limit: 20, refused: 1, nextSlotFreeAt: null });
    journal.append({ kind: 'handlerBehaviorChanged', owner: 'r2', accepted: false, used: 20, limit: 20, refused: 1, nextSlotFreeAt: null });
    other.flush();
    const [byReload, byRule] = other.logs().map((line) => `${line.source}: ${line.message}`);
    expect(byReload).toMatch(/^r1: handlerBehaviorChanged \(called by wrtui on reloading the rule\) refused/);
    expect(byRule).toMatch(/^r2: handlerBehaviorChanged refused/);
    expect(other.lastRefusal?.text).toMatch(/^r2: /);
    other.close();
  });

  it('logs, rule entries and handlerBehaviorChanged go to the log; warnings count as unseen problems', () => {
    const journal = new Journal();
    const other = new TrafficStore({ flushIntervalMs: 0, logLimit: 3 });
    other.attach(journal);
    journal.append({ kind: 'log', level: 'info', source: 'mockttp', message: 'hello' });
    journal.append({ kind: 'rule', action: 'failed', rule: 'r1', message: 'SyntaxError', location: 'rules/r1.ts:3:1' });
    journal.append({ kind: 'handlerBehaviorChanged', owner: 'r1', accepted: false, used: 20, limit: 20, refused: 1, nextSlotFreeAt: 1 });
    journal.append({ kind: 'listening', url: 'http://127.0.0.1:1234' });
    other.flush();
    expect(other.logs().map((line) => `${line.level} ${line.source}: ${line.message}`)).toEqual([
      'error rule r1: failed: SyntaxError (rules/r1.ts:3:1)',
      'warn r1: handlerBehaviorChanged refused, caches not flushed: 0 of 20 calls left: the next is accepted now; 1 refused in the last 10 minutes',
      'info wrtui: listening on http://127.0.0.1:1234',
    ]);
    expect(other.unseenProblems).toBe(2);
    other.markProblemsSeen();
    expect(other.unseenProblems).toBe(0);
    expect(other.listening).toEqual({ url: 'http://127.0.0.1:1234', incognitoUrl: undefined });
    expect(other.rulesVersion).toBe(2);
    other.close();
  });

  it('requests per second over the last whole seconds', () => {
    let now = 10_000;
    const journal = new Journal({ now: () => now });
    const timed = new TrafficStore({ flushIntervalMs: 0, now: () => now });
    timed.attach(journal);
    const start = (requestId: string) =>
      journal.append({
        kind: 'webRequest',
        event: 'onBeforeRequest',
        details: { requestId, url: 'http://a.test/', method: 'GET', frameId: 0, parentFrameId: -1, tabId: -1, type: 'other', timeStamp: now },
        outcomes: [],
      });
    for (let second = 0; second < 3; second++) {
      for (let index = 0; index < 30; index++) start(`${second}-${index}`);
      now += 1000;
    }
    expect(timed.requestsPerSecond()).toBe(30);
    now += 5000;
    expect(timed.requestsPerSecond()).toBe(0);
    timed.close();
  });
});

describe('notes', () => {
  it("what wrtui logs about a request (a StreamFilter's pass, a failure's cause) is kept with it and shown on its Timeline tab", async () => {
    await driver.request('http://shop.test/page', { route: () => respond(200, 'hello') });
    store.flush();
    const record = store.all()[0]!;
    driver.engine.journal.append({ kind: 'log', level: 'info', source: 'capture', message: `request ${record.requestId}: the response body went through the StreamFilter of Upper (5 bytes in, 5 out)`, requestId: record.requestId });
    driver.engine.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: 'about nothing in particular' });
    store.flush();
    expect(record.notes).toEqual([{ level: 'info', source: 'capture', message: `request ${record.requestId}: the response body went through the StreamFilter of Upper (5 bytes in, 5 out)` }]);
    const text = timelineLines(record, 100).map(lineText);
    expect(text).toContain('Notes');
    expect(text.some((row) => row.includes('capture: request') && row.includes('StreamFilter of Upper'))).toBe(true);
  });
});

describe('resends', () => {
  it('the request a resend makes is marked resent from the one it resent; a client\'s own request of the same URL later is not', async () => {
    await driver.request('http://shop.test/cart', { route: () => respond(200) });
    const original = store.all()[0]!;
    const stop = store.expectResend(original, 'get', 'http://shop.test/cart');
    await driver.request('http://shop.test/other', { route: () => respond(200) });
    await driver.request('http://shop.test/cart', { route: () => respond(200) });
    stop();
    await driver.request('http://shop.test/cart', { route: () => respond(200) });
    store.flush();
    const [, other, resent, again] = store.all();
    expect(other!.resentFrom).toBeUndefined();
    expect(resent!.resentFrom).toEqual({ ordinal: original.ordinal, requestId: original.requestId });
    expect(again!.resentFrom).toBeUndefined();
    expect(lineText(requestRow(resent!, requestColumns(80)))).toMatch(/resent\s*$/);
    expect(timelineLines(resent!, 80).map(lineText).join('\n')).toContain(`resent by wrtui from #${original.requestId} (R selects it)`);
  });
});

describe('WebSocket messages', () => {
  it('are kept on the handshake\'s record within the body budget: the oldest give their bytes back, keeping their place; the row\'s size is the bytes exchanged; HAR has Chrome\'s _webSocketMessages', async () => {
    const journal = new Journal();
    const small = new TrafficStore({ flushIntervalMs: 0, maxBodyBytes: 1000 });
    small.attach(journal);
    const details = { requestId: '9', url: 'ws://chat.test/socket', method: 'GET', frameId: 0, parentFrameId: -1, tabId: -1, type: 'websocket', timeStamp: 1_000 };
    journal.append({ kind: 'webRequest', event: 'onBeforeRequest', details: details as never, outcomes: [] });
    journal.append({ kind: 'webRequest', event: 'onHeadersReceived', details: { ...details, statusCode: 101, statusLine: 'HTTP/1.1 101 Switching Protocols', responseHeaders: [] } as never, outcomes: [] });
    journal.append({ kind: 'webRequest', event: 'onCompleted', details: { ...details, statusCode: 101, statusLine: 'HTTP/1.1 101 Switching Protocols', fromCache: false } as never, outcomes: [] });
    journal.append({ kind: 'websocketMessage', requestId: '9', direction: 'send', opcode: 'text', size: 5, data: Buffer.from('hello'), complete: true });
    journal.append({ kind: 'websocketMessage', requestId: '9', direction: 'receive', opcode: 'binary', size: 600, data: new Uint8Array(600), complete: true });
    journal.append({ kind: 'websocketMessage', requestId: '9', direction: 'receive', opcode: 'binary', size: 600, data: new Uint8Array(600), complete: true });
    small.flush();
    const record = small.all()[0]!;
    expect(record.responseSize).toBe(1205);
    expect(record.wsMessages!.map((message) => [message.direction, message.size, message.bytes.length, message.dropped ?? false])).toEqual([
      ['send', 5, 0, true],
      ['receive', 600, 0, true],
      ['receive', 600, 600, false],
    ]);
    expect(small.bodyBudget.bytes).toBeLessThanOrEqual(1000);
    const { recordsAsHar } = await import('../../src/ui/export/session-export.js');
    const entry = recordsAsHar(small.all()).har.log.entries[0] as unknown as { _webSocketMessages: { type: string; opcode: number; data: string; time: number }[] };
    expect(entry._webSocketMessages.map((message) => [message.type, message.opcode])).toEqual([
      ['send', 1],
      ['receive', 2],
      ['receive', 2],
    ]);
    expect(entry._webSocketMessages[2]!.data).toBe(Buffer.alloc(600).toString('base64'));
    small.close();
  });
});
