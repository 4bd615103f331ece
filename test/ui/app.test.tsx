// The TUI with ink-testing-library: keys, the list, filtering, the detail pane's tabs, resizing
// (the size is passed in: the test terminal has no rows), the cookies and rules views, help.
import { createTrustedOwner } from '../../src/engine/owner.js';
import type { JournalEntry } from '../../src/engine/journal.js';
import { openRecording } from '../../src/engine/session/open-recording.js';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RuleStatus } from '../../src/engine/extensions/extension-host.js';
import { COMMANDS } from '../../src/ui/commands/command-table.js';
import { KEYS, respond, startHarness, type Harness } from './ui-harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  harness = await startHarness(options);
  return harness;
}

/** The list's data rows (lines with a time in them). */
function rows(frame: string): string[] {
  // A row: the selection marker, the clock (on wide enough screens), then the method.
  return frame.split('\n').filter((line) => /^(▶ | {2})(\d\d:\d\d:\d\d\S* +)?(GET|POST|PUT|DELETE|HEAD|PATCH|OPTIONS) /.test(line));
}

function selectedRow(frame: string): string | undefined {
  return frame.split('\n').find((line) => line.startsWith('▶'));
}

describe('the frame', () => {
  it.each([
    [80, 24],
    [100, 30],
    [120, 40],
    [200, 50],
  ])('at %d×%d it is one line shorter than the terminal and no line is wider', async (columns, rowCount) => {
    const h = await start({ size: { columns, rows: rowCount } });
    await h.request('http://a.test/one');
    await h.settle();
    const lines = h.frame().split('\n');
    expect(lines).toHaveLength(rowCount - 1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(columns);
    await h.press(KEYS.enter);
    const withDetail = h.frame().split('\n');
    expect(withDetail).toHaveLength(rowCount - 1);
    for (const line of withDetail) expect(line.length).toBeLessThanOrEqual(columns);
  });

  it('shows the status bar: proxy, incognito port, mode, rules, CA', async () => {
    const h = await start();
    const frame = h.frame();
    expect(frame).toContain('proxy 127.0.0.1:8080');
    expect(frame).toContain('incognito :8081');
    expect(frame).toContain(' LIVE ');
    expect(frame).toContain('no rules');
    expect(frame).toContain('CA /tmp/wrtui-test/ca.pem');
    expect(frame).toContain('No requests yet');
    expect(frame).toContain('curl -x http://127.0.0.1:8080');
  });

  it('a resize redraws to the new size: more columns, then the detail pane side by side', async () => {
    const h = await start({ size: { columns: 80, rows: 24 } });
    await h.request('http://a.test/', { refuse: true });
    await h.settle();
    // A short form at 80 columns (the help screen's legend says what it stands for), never a cut word.
    expect(rows(h.frame())[0]).toContain(' refused ');
    h.terminal.rerender(<AppAt harness={h} columns={170} rows={30} />);
    await h.settle();
    expect(rows(h.frame())[0]).toContain('CONNECTION_REFUSED');
    expect(h.frame().split('\n')).toHaveLength(29);
    await h.press(KEYS.enter);
    // Side by side: the list row and the detail's tab bar share a line.
    const frame = h.frame();
    expect(frame.split('\n').some((line) => line.includes('CONNECTION') && line.includes('│'))).toBe(true);
    expect(frame).toContain('[Timeline]');
  });
});

// Rerendering with another size, as the terminal-size hook would after a resize.
import { App } from '../../src/ui/components/App.js';
function AppAt({ harness: h, columns, rows: rowCount }: { harness: Harness; columns: number; rows: number }) {
  return <App store={h.store} backend={h.backend} onQuit={() => h.quits++} size={{ columns, rows: rowCount }} noticeMs={60_000} />;
}

describe('the request list', () => {
  it('one row per request: method, status, host and path, size, duration; the type from 90 columns, the clock from 110', async () => {
    const h = await start({ size: { columns: 80, rows: 24 } });
    await h.request('http://shop.test/cart', { route: () => respond(404, 'not here') });
    await h.request('http://shop.test/pay', { method: 'POST', body: 'a=1' });
    await h.settle();
    const [cart, pay] = rows(h.frame());
    expect(cart).toMatch(/^ {2}GET\s+404\s+http:\/\/shop\.test\/cart\s+8 B\s+(<1|\d+) ms/);
    expect(pay).toMatch(/POST\s+200\s+http:\/\/shop\.test\/pay\s+2 B/);
    h.terminal.rerender(<AppAt harness={h} columns={120} rows={24} />);
    await h.settle();
    expect(rows(h.frame())[0]).toMatch(/^ {2}\d\d:\d\d:\d\d GET\s+404\s+other\s+http:\/\/shop\.test\/cart\s+8 B\s+(<1|\d+) ms/);
  });

  it('a request still waiting for its upstream shows how long it has waited, counting up', async () => {
    const h = await start({ tickMs: 200 });
    let answer!: () => void;
    const waiting = h.request('http://slow.test/waiting', { route: () => new Promise((resolve) => (answer = () => resolve(respond(200, 'late')))) });
    const frame = await h.waitFor((f) => /slow\.test\/waiting\s+\d\.\d\d s…/.test(f), 4000);
    expect(rows(frame)[0]).toMatch(/GET\s+…\s+other\s+http:\/\/slow\.test\/waiting\s+1\.\d\d s…/);
    answer();
    await waiting;
    await h.settle();
    expect(rows(h.frame())[0]).not.toContain('s…');
  });

  it('marks what rules did: cancelled, redirected, dry-run would-…, failed', async () => {
    const h = await start({ size: { columns: 120, rows: 30 } });
    h.driver.rule('blocker').onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['http://ads.test/*'] }, ['blocking']);
    h.driver.rule('mover').onBeforeRequest.addListener(() => ({ redirectUrl: 'http://a.test/to' }), { urls: ['http://a.test/from'] }, ['blocking']);
    h.driver.rule('dreamer', { dryRun: true }).onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['http://maybe.test/*'] }, ['blocking']);
    h.driver.rule('broken').onBeforeRequest.addListener(() => {
      throw new Error('boom');
    }, { urls: ['http://bad.test/*'] }, ['blocking']);
    await h.request('http://ads.test/x');
    await h.request('http://a.test/from');
    await h.request('http://maybe.test/x');
    await h.request('http://bad.test/x');
    await h.settle();
    const [ads, moved, maybe, bad] = rows(h.frame());
    expect(ads).toMatch(/blocked.*cancel/);
    expect(moved).toMatch(/a\.test\/from -> \/to.*redir/);
    expect(maybe).toMatch(/200.*~cancel/);
    expect(bad).toMatch(/FAIL/);
  });

  it('o sorts by duration, size, status and back to arrival, as mitmproxy\'s o does; O reverses; G follows by arrival again', async () => {
    const h = await start({ size: { columns: 120, rows: 30 } });
    await h.request('http://a.test/small', { route: () => respond(200, 'x') });
    await h.request('http://a.test/big', { route: () => respond(404, 'x'.repeat(5000)) });
    await h.request('http://a.test/mid', { route: () => respond(500, 'x'.repeat(300)) });
    await h.settle();
    const order = () => rows(h.frame()).map((row) => /a\.test\/(\w+)/.exec(row)?.[1]);
    expect(order()).toEqual(['small', 'big', 'mid']);
    await h.press('o');
    expect(h.frame()).toContain('sorted by duration ↓');
    expect(h.frame()).toContain('following off (G)');
    await h.press('o');
    expect(h.frame()).toContain('sorted by size ↓');
    expect(order()).toEqual(['big', 'mid', 'small']);
    await h.press('O');
    expect(order()).toEqual(['small', 'mid', 'big']);
    await h.press('o');
    expect(h.frame()).toContain('sorted by status ↓');
    expect(order()).toEqual(['mid', 'big', 'small']);
    await h.press('G');
    expect(order()).toEqual(['small', 'big', 'mid']);
    expect(h.frame()).toContain('● following');
  });

  it('follows new requests until the user moves up; G follows again', async () => {
    const h = await start();
    for (const path of ['/1', '/2', '/3']) await h.request(`http://a.test${path}`);
    await h.settle();
    expect(selectedRow(h.frame())).toContain('a.test/3');
    expect(h.frame()).toContain('● following');
    await h.press('k');
    expect(selectedRow(h.frame())).toContain('a.test/2');
    expect(h.frame()).toContain('following off (G)');
    await h.request('http://a.test/4');
    await h.settle();
    expect(selectedRow(h.frame())).toContain('a.test/2');
    await h.press('G');
    expect(selectedRow(h.frame())).toContain('a.test/4');
    await h.request('http://a.test/5');
    await h.settle();
    expect(selectedRow(h.frame())).toContain('a.test/5');
    await h.press(KEYS.up, KEYS.up, 'j');
    expect(selectedRow(h.frame())).toContain('a.test/4');
    await h.press(KEYS.end);
    expect(h.frame()).toContain('● following');
  });

  it('keys typed faster than they are read still count one by one', async () => {
    const h = await start();
    for (const path of ['/1', '/2', '/3', '/4']) await h.request(`http://a.test${path}`);
    await h.settle();
    await h.press('kkk');
    expect(selectedRow(h.frame())).toContain('a.test/1');
  });

  it('draws only the rows on screen: 3000 requests, page down and up, g and G', async () => {
    const h = await start({ size: { columns: 100, rows: 30 }, maxRequests: 5000 });
    for (let index = 1; index <= 3000; index++) await h.request(`http://bulk.test/${index}`);
    await h.settle();
    const frame = h.frame();
    expect(rows(frame)).toHaveLength(30 - 1 - 2 - 1 - 2); // status, footer, list title and header
    expect(selectedRow(frame)).toContain('bulk.test/3000');
    expect(frame).toContain('Requests  3000');
    await h.press('g');
    expect(selectedRow(h.frame())).toContain('bulk.test/1 ');
    await h.press(KEYS.pageDown);
    const page = Number(/bulk\.test\/(\d+)/.exec(selectedRow(h.frame())!)![1]);
    expect(page).toBeGreaterThan(20);
    await h.press(KEYS.pageUp);
    expect(selectedRow(h.frame())).toContain('bulk.test/1 ');
    await h.press('G');
    expect(selectedRow(h.frame())).toContain('bulk.test/3000');
  });

  it('the cap drops the oldest and says so in the status bar', async () => {
    const h = await start({ maxRequests: 5 });
    for (let index = 1; index <= 8; index++) await h.request(`http://a.test/${index}`);
    await h.settle();
    expect(rows(h.frame())).toHaveLength(5);
    expect(h.frame()).toContain('5 kept, 3 dropped');
    expect(h.frame()).not.toContain('a.test/3 ');
  });

  it('x clears the list', async () => {
    const h = await start();
    await h.request('http://a.test/1');
    await h.settle();
    await h.press('x');
    expect(rows(h.frame())).toHaveLength(0);
    expect(h.frame()).toContain('No requests yet');
  });
});

describe('the filter', () => {
  it('/ filters the list; f turns the last filter off and on', async () => {
    const h = await start();
    await h.request('http://shop.test/ok');
    await h.request('http://shop.test/missing', { route: () => respond(404) });
    await h.request('http://api.test/users', { method: 'POST' });
    await h.settle();
    await h.press('/');
    expect(h.frame()).toContain('enter apply');
    await h.press('status:4xx or method:POST', KEYS.enter);
    let frame = h.frame();
    expect(rows(frame).map((row) => /\S+\.test\/\S+/.exec(row)?.[0])).toEqual(['http://shop.test/missing', 'http://api.test/users']);
    expect(frame).toContain('filter: status:4xx or method:POST');
    expect(frame).toContain('Requests  2 of 3');
    await h.press('f');
    frame = h.frame();
    expect(rows(frame)).toHaveLength(3);
    expect(frame).toContain('filter off (f): status:4xx or method:POST');
    await h.press('f');
    expect(rows(h.frame())).toHaveLength(2);
    // New requests are filtered as they come.
    await h.request('http://shop.test/gone', { route: () => respond(410) });
    await h.request('http://shop.test/fine');
    await h.settle();
    expect(rows(h.frame())).toHaveLength(3);
  });

  it('a bad expression is shown inline, with a caret where it is wrong, and is not applied', async () => {
    const h = await start({ size: { columns: 100, rows: 20 } });
    await h.request('http://shop.test/ok');
    await h.settle();
    await h.press('/', 'host:(shop');
    const lines = h.frame().split('\n');
    const prompt = lines.findIndex((line) => line.startsWith('/ host:(shop'));
    expect(prompt).toBeGreaterThan(0);
    const caretLine = lines[prompt + 1]!;
    expect(caretLine).toMatch(/bad regular expression/);
    expect(caretLine.indexOf('^')).toBe('/ host:'.length);
    await h.press(KEYS.enter); // refused: the prompt stays
    expect(h.frame()).toContain('bad regular expression');
    await h.press(KEYS.backspace, KEYS.backspace, KEYS.backspace, KEYS.backspace);
    expect(h.frame()).toContain('/ host:( ');
    await h.press(KEYS.backspace, 'shop', KEYS.enter);
    expect(h.frame()).toContain('filter: host:shop');
    expect(rows(h.frame())).toHaveLength(1);
  });

  it('the list narrows as one types (a valid expression, after a short pause); esc puts the earlier list back', async () => {
    const h = await start({ size: { columns: 100, rows: 24 } });
    for (const path of ['/shop/a', '/shop/b', '/api/c']) await h.request(`http://x.test${path}`);
    await h.settle();
    await h.press('/');
    for (const char of 'path:^/shop') await h.press(char);
    await h.waitFor((frame) => rows(frame).length === 2);
    expect(rows(h.frame()).every((row) => row.includes('/shop/'))).toBe(true);
    await h.press(KEYS.escape);
    await h.waitFor((frame) => rows(frame).length === 3);
    expect(h.frame()).not.toContain('filter:');
  });

  it('esc cancels the prompt; q typed in it is text, not quit', async () => {
    const h = await start();
    await h.press('/', 'q');
    expect(h.frame()).toContain('/ q');
    expect(h.quits).toBe(0);
    await h.press(KEYS.escape);
    expect(h.frame()).not.toContain('enter apply');
    expect(h.frame()).not.toContain('filter:');
    await h.press('q');
    expect(h.quits).toBe(1);
    await h.press(KEYS.ctrlC);
    await h.waitUntil(() => h.quits === 2);
  });

  it('f without a filter says how to write one', async () => {
    const h = await start();
    await h.press('f');
    expect(h.frame()).toContain('No filter yet: / writes one');
  });
});

describe('the detail pane', () => {
  it('enter opens it on the timeline; tab, shift-tab and arrows switch tabs; esc closes it', async () => {
    const h = await start({ size: { columns: 110, rows: 40 } });
    await h.request('http://shop.test/login?next=%2F', {
      method: 'POST',
      headers: [{ name: 'Content-Type', value: 'application/json' }, { name: 'Cookie', value: 'old=1' }],
      body: '{"user":"ann","tags":[1,2]}',
      route: () => respond(200, '{"ok":true}', [{ name: 'Set-Cookie', value: 'sid=abc; Path=/' }]),
    });
    await h.settle();
    await h.press(KEYS.enter);
    let frame = h.frame();
    expect(frame).toContain('[Timeline]');
    for (const event of ['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onResponseStarted', 'onCompleted']) expect(frame).toContain(event);
    expect(frame).toMatch(/\+\S+ ms\s+onCompleted\s+200/);
    expect(frame).toContain('Waterfall');
    expect(frame).toContain('esc close'); // the footer shows the detail's keys

    await h.press(KEYS.tab);
    frame = h.frame();
    expect(frame).toContain('[Request]');
    expect(frame).toContain('Content-Type: application/json');
    expect(frame).toContain('Body (');
    expect(frame).toContain('"user": "ann"'); // pretty JSON

    await h.press(KEYS.right);
    frame = h.frame();
    expect(frame).toContain('[Response]');
    expect(frame).toContain('HTTP/1.1 200 OK');
    expect(frame).toContain('Set-Cookie: sid=abc; Path=/');

    await h.press(KEYS.tab, KEYS.tab);
    frame = h.frame();
    expect(frame).toContain('[Cookies]');
    expect(frame).toContain('Cookie header sent (1 cookie)');
    expect(frame).toContain('old = 1');
    expect(frame).toMatch(/\+ sid=abc\s+shop\.test\/\s+store 0\s+explicit/);

    await h.press(KEYS.shiftTab);
    expect(h.frame()).toContain('[Rules]');
    expect(h.frame()).toContain('No rule answered');
    await h.press(KEYS.left, KEYS.left, KEYS.left);
    expect(h.frame()).toContain('[Timeline]');
    await h.press(KEYS.escape);
    expect(h.frame()).not.toContain('[Timeline]');
  });

  it('the rules tab: each rule\'s verdict per event', async () => {
    const h = await start({ size: { columns: 120, rows: 40 } });
    h.driver.rule('applier').onBeforeSendHeaders.addListener((details) => ({ requestHeaders: [...(details.requestHeaders ?? []), { name: 'X-Added', value: '1' }] }), { urls: ['<all_urls>'] }, ['blocking', 'requestHeaders']);
    h.driver.rule('dreamer', { dryRun: true }).onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['<all_urls>'] }, ['blocking']);
    h.driver.rule('broken').onHeadersReceived.addListener(() => {
      throw new TypeError('nope');
    }, { urls: ['<all_urls>'] }, ['blocking']);
    await h.request('http://a.test/x');
    await h.settle();
    await h.press(KEYS.enter, KEYS.tab);
    expect(h.frame()).toMatch(/\+ applier\s+X-Added: 1/); // the Request tab marks what rules added, and which
    await h.press(KEYS.tab, KEYS.tab);
    const frame = h.frame();
    expect(frame).toMatch(/dreamer\s+dry-run\s+would cancel/);
    expect(frame).toMatch(/applier\s+applied\s+set 2 request headers/);
    expect(frame).toMatch(/broken\s+failed\s+.*nope/);
  });

  it('/ in the detail pane searches the open tab: matches highlighted, n and N step, the whole body counted; esc ends the search, then closes', async () => {
    const h = await start({ size: { columns: 120, rows: 30 } });
    const body = Array.from({ length: 800 }, (_, index) => (index % 100 === 50 ? `line ${index} has the TOKEN here` : `line ${index}`)).join('\n');
    await h.request('http://a.test/big.txt', { route: () => respond(200, body) });
    const [record] = h.store.all();
    h.engine.journal.append({ kind: 'body', requestId: record!.requestId, direction: 'response', url: record!.url, bytes: new Uint8Array(Buffer.from(body)), complete: true, size: body.length });
    await h.settle();
    await h.press(KEYS.enter, KEYS.tab, KEYS.tab);
    await h.waitFor('[Response]');
    await h.press('/');
    for (const char of 'token') await h.press(char);
    await h.press(KEYS.enter);
    // 800 lines, 8 with the term; the pane draws the first 500 of them (5 matches).
    let frame = await h.waitFor('/token line 1/13 · 8 in body'); // 5 drawn, then the whole body's 8 with their line numbers
    expect(frame).toContain('line 50 has the TOKEN here');
    await h.press('n');
    frame = await h.waitFor('/token line 2/13');
    expect(frame).toContain('line 150 has the TOKEN here');
    await h.press('N');
    await h.waitFor('/token line 1/13');
    expect(h.frame()).not.toContain('In the whole body'); // back at the top
    await h.press(KEYS.escape);
    frame = await h.waitFor((f) => !f.includes('/token'));
    expect(frame).toContain('[Response]');
    await h.press(KEYS.escape);
    await h.waitFor((f) => !f.includes('[Response]'));
  });

  it('a long JSON array is folded with a count; z unfolds it and folds it again', async () => {
    const h = await start({ size: { columns: 100, rows: 40 } });
    const body = JSON.stringify({ items: Array.from({ length: 30 }, (_, index) => `item-${index}`) });
    await h.request('http://a.test/list.json', { route: () => respond(200, body, [{ name: 'Content-Type', value: 'application/json' }]) });
    const [record] = h.store.all();
    h.engine.journal.append({ kind: 'body', requestId: record!.requestId, direction: 'response', url: record!.url, bytes: new Uint8Array(Buffer.from(body)), complete: true, size: body.length });
    await h.settle();
    await h.press(KEYS.enter, KEYS.tab, KEYS.tab, 'G'); // the end of the body
    await h.waitFor('… 10 more items (z unfolds)');
    await h.press('z', 'G');
    await h.waitFor((frame) => frame.includes('"item-29"') && !frame.includes('more items'));
    await h.press('z', 'G');
    await h.waitFor('… 10 more items (z unfolds)');
  });

  it('n and p move to the next and previous request; arrows scroll the pane', async () => {
    const h = await start({ size: { columns: 100, rows: 24 } });
    await h.request('http://a.test/first');
    await h.request('http://a.test/second');
    await h.settle();
    await h.press('k', KEYS.enter);
    expect(h.frame()).toContain('GET http://a.test/first');
    await h.press('n');
    expect(h.frame()).toContain('GET http://a.test/second');
    await h.press('p');
    expect(h.frame()).toContain('GET http://a.test/first');
    const before = h.frame();
    await h.press('j', 'j');
    expect(h.frame()).not.toEqual(before);
    expect(h.frame()).not.toContain('GET http://a.test/first\n'); // scrolled past the first line
  });

  it('y exports the request as curl: a file in the state dir and OSC 52 to the terminal', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'wrtui-ui-export-'));
    try {
      const h = await start({ stateDir });
      await h.request('http://a.test/api', { method: 'PUT', headers: [{ name: 'X-Token', value: "it's" }], body: 'payload' });
      await h.settle();
      await h.press('y');
      await h.waitFor('copied (OSC 52)');
      const file = join(stateDir, 'exports', `curl-${h.store.all()[0]!.requestId}.sh`);
      const text = await readFile(file, 'utf8');
      expect(text).toContain("curl -X PUT http://a.test/api -H 'X-Token: it'\\''s' --data-binary payload");
      const osc = h.written.find((data) => data.startsWith('\x1b]52;c;'))!;
      expect(Buffer.from(osc.slice(7, -1), 'base64').toString()).toBe(text.split('\n')[2]);
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});

describe('what wrtui itself did, marked', () => {
  it('the Request tab says which headers came from the client, the jar and a rule; y exports what the client sent, Y what went upstream', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'wrtui-ui-origins-'));
    try {
      const h = await start({ stateDir, size: { columns: 120, rows: 40 } });
      // An earlier response left a cookie in the jar; the next request's client sends none.
      await h.request('http://shop.test/login', { route: () => respond(200, 'ok', [{ name: 'Set-Cookie', value: 'sid=abc; Path=/' }]) });
      h.driver.rule('tagger').onBeforeSendHeaders.addListener((d) => ({ requestHeaders: [...d.requestHeaders!.filter((x) => x.name !== 'Referer'), { name: 'X-Served-Via', value: 'wrtui' }] }), { urls: ['http://shop.test/cart'] }, ['blocking', 'requestHeaders']);
      await h.request('http://shop.test/cart', { headers: [{ name: 'Accept', value: 'text/html' }, { name: 'Referer', value: 'http://shop.test/' }] });
      await h.settle();
      await h.press(KEYS.enter, KEYS.tab);
      const frame = await h.waitFor('[Request]');
      expect(frame).toMatch(/client\s+Accept: text\/html/);
      expect(frame).toMatch(/jar\s+Cookie: sid=abc\s+\(from the jar: sid\)/);
      expect(frame).toMatch(/\+ tagger\s+X-Served-Via: wrtui/);
      expect(frame).toMatch(/- removed\s+Referer: http:\/\/shop\.test\/\s+by tagger/);
      await h.press('y');
      await h.waitFor('copied (OSC 52) and saved to');
      const id = h.store.all()[1]!.requestId;
      const asSent = await readFile(join(stateDir, 'exports', `curl-${id}.sh`), 'utf8');
      expect(asSent).toContain("curl http://shop.test/cart -H 'Accept: text/html' -H 'Referer: http://shop.test/'");
      expect(asSent).not.toContain('sid=abc');
      await h.press('Y');
      await h.waitFor((frame) => frame.includes('-upstream.sh'));
      const upstream = await readFile(join(stateDir, 'exports', `curl-${id}-upstream.sh`), 'utf8');
      expect(upstream).toContain("-H 'Cookie: sid=abc'");
      expect(upstream).toContain("-H 'X-Served-Via: wrtui'");
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});

describe('breakpoints', () => {
  it('i sets one (stage and filter); a matching request pauses, listed and marked, until X cancels it, as the "breakpoint" extension', async () => {
    const h = await start({ size: { columns: 140, rows: 40 } });
    await h.press('i');
    await h.press(KEYS.ctrlU);
    for (const char of 'onBeforeRequest host:pause.test') await h.press(char);
    await h.press(KEYS.enter);
    expect(h.frame()).toContain('breakpoint onBeforeRequest host:pause.test');
    let ended = false;
    const paused = h.request('http://pause.test/x').then(() => (ended = true));
    await h.request('http://other.test/y'); // not matching: goes through
    await h.waitFor('1 paused (a/A continue)');
    expect(rows(h.frame()).find((row) => row.includes('pause.test/x'))).toMatch(/PAUSED/);
    // Waiting, not timing out: the listener timeout does not apply to answers from the keyboard.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(ended).toBe(false);
    // Select it (the list follows the newest; the paused one came first) and look at it.
    while (!selectedRow(h.frame())?.includes('pause.test/x')) await h.press('k');
    await h.press(KEYS.enter);
    const detail = await h.waitFor('PAUSED at onBeforeRequest');
    expect(detail).toContain('"url": "http://pause.test/x"');
    await h.press('X');
    await paused;
    await h.settle();
    const entries: JournalEntry[] = [];
    h.engine.journal.subscribe((e) => entries.push(e), { fromStart: true })();
    const entry = entries.find((e) => e.kind === 'webRequest' && e.event === 'onBeforeRequest' && e.details.url === 'http://pause.test/x');
    expect(entry && entry.kind === 'webRequest' && entry.outcomes).toEqual([expect.objectContaining({ owner: 'breakpoint', status: 'applied', response: { cancel: true } })]);
    expect(h.frame()).not.toContain('paused (a/A continue)');
  });

  it('u redirects a paused request; A lets every paused request go on', async () => {
    const h = await start({ size: { columns: 140, rows: 40 } });
    await h.press('i', KEYS.ctrlU);
    for (const char of 'request path:^/(a|b)$') await h.press(char);
    await h.press(KEYS.enter);
    const first = h.request('http://x.test/a');
    const second = h.request('http://x.test/b');
    await h.waitFor('2 paused');
    while (!selectedRow(h.frame())?.includes('x.test/a')) await h.press('k');
    await h.press('u', KEYS.ctrlU);
    for (const char of 'http://x.test/elsewhere') await h.press(char);
    await h.press(KEYS.enter);
    await first;
    await h.waitFor('1 paused');
    await h.press('A');
    await second;
    await h.settle();
    expect(rows(h.frame()).find((row) => row.includes('x.test/a'))).toMatch(/x\.test\/a -> \/elsewhere/);
  });
});

describe('saving the session from the TUI', () => {
  it('S writes what the TUI holds as a HAR 1.2 file (0600) that wrtui reads back as a session, without --record', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'wrtui-ui-har-'));
    try {
      const h = await start({ stateDir });
      await h.request('http://shop.test/cart', { route: () => respond(404, 'not here') });
      await h.request('http://shop.test/pay', { method: 'POST', body: 'a=1', headers: [{ name: 'Content-Type', value: 'application/x-www-form-urlencoded' }] });
      await h.settle();
      await h.press('S');
      const frame = await h.waitFor('Saved 2 requests to');
      const path = /Saved 2 requests to (\S+\.har)/.exec(frame.replace(/\n/g, ''))?.[1];
      expect(path).toBeDefined();
      const file = (await readdir(join(stateDir, 'exports'))).find((name) => name.endsWith('.har'))!;
      const full = join(stateDir, 'exports', file);
      expect((await stat(full)).mode & 0o777).toBe(0o600);
      const session = await openRecording(full);
      expect(session.source).toBe('har');
      expect(session.requests.map((request) => [request.hops[0]!.method, request.hops[0]!.url])).toEqual([
        ['GET', 'http://shop.test/cart'],
        ['POST', 'http://shop.test/pay'],
      ]);
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});

describe('the cookies view', () => {
  it('shows both stores by domain with every field; deletes and edits through the cookies API', async () => {
    const h = await start({ size: { columns: 120, rows: 40 } });
    await h.request('http://shop.test/', { route: () => respond(200, 'ok', [{ name: 'Set-Cookie', value: 'sid=abc; Path=/; HttpOnly' }, { name: 'Set-Cookie', value: 'theme=dark; Max-Age=3600' }]) });
    await h.settle();
    await h.press('2');
    let frame = h.frame();
    expect(frame).toContain('store "0" (2)');
    expect(frame).toContain('shop.test  2 cookies');
    expect(frame).toMatch(/sid\s+abc\s+\/\s+-Hhs/);
    expect(frame).toMatch(/name "sid"\s+value "abc"/);
    expect(frame).toMatch(/hostOnly true\s+path \/\s+storeId "0"/);
    expect(frame).toMatch(/httpOnly true\s+session true/);
    expect(frame).toMatch(/\+ explicit\s+store 0 sid=abc\s+shop\.test\/\s+← Set-Cookie of #1/);

    // Edit: cookies.set fires onChanged (overwrite, then explicit).
    await h.press('e');
    expect(h.frame()).toContain('sid = abc');
    await h.press(KEYS.ctrlU, 'xyz', KEYS.enter);
    frame = await h.waitFor((f) => /name "sid"\s+value "xyz"/.test(f));
    expect(frame).toMatch(/- overwrite\s+store 0 sid=abc/);
    expect(frame).toMatch(/\+ explicit\s+store 0 sid=xyz/);
    expect(h.engine.cookies.allCookies('0').find((cookie) => cookie.key === 'sid')).toMatchObject({ value: 'xyz', httpOnly: true });

    // Delete: asks first; n keeps it, y deletes through cookies.remove.
    await h.press('j', 'd');
    expect(h.frame()).toContain('Delete cookie theme of shop.test/');
    await h.press('n');
    expect(h.engine.cookies.allCookies('0')).toHaveLength(2);
    await h.press('d', 'y');
    frame = await h.waitFor((f) => /- explicit\s+store 0 theme=dark/.test(f));
    expect(h.engine.cookies.allCookies('0').map((cookie) => cookie.key)).toEqual(['sid']);
    expect(frame).toContain('store "0" (1)');

    await h.press('s');
    expect(h.frame()).toContain('No cookies in store "1"');
  });
});

describe('the rules view', () => {
  // Built when the test runs: the quota countdowns are relative to now.
  const makeRules = (): RuleStatus[] => [
    {
      name: 'good-rule',
      file: '/r/good-rule.ts',
      kind: 'rule',
      extensionId: 'aaaabbbbccccddddeeeeffffgggghhhh',
      persona: 'chrome',
      runtime: { state: 'running', restarts: 0, heapUsedBytes: 6_291_456, node: false },
      state: 'active',
      dryRun: false,
      precedence: 1,
      reloadCount: 2,
      listeners: [{ id: 1, owner: 'good-rule', event: 'onBeforeRequest', filter: { urls: ['*://*.example.com/*'], types: ['image'] }, extraInfoSpec: ['blocking'] }],
      eventListeners: [{ event: 'cookies.onChanged', count: 1 }],
      quota: { used: 3, limit: 20, refused: 0, nextSlotFreeAt: Date.now() + 125_000 },
      lastLoadedAt: Date.now(),
      typeErrors: [{ file: '/r/good-rule.ts', line: 4, column: 7, code: 2322, message: "Type 'number' is not assignable to type 'string'." }],
    },
    {
      name: 'bad-rule',
      file: '/r/bad-rule.ts',
      kind: 'rule',
      extensionId: undefined,
      persona: 'spec',
      runtime: { state: 'stopped', restarts: 0, heapUsedBytes: 0, node: false },
      state: 'failed',
      dryRun: true,
      precedence: undefined,
      error: { message: 'the background threw TypeError: x is undefined', location: '/r/bad-rule.ts:12:5' },
      reloadCount: 0,
      listeners: [],
      eventListeners: [],
      quota: { used: 20, limit: 20, refused: 6, nextSlotFreeAt: Date.now() + 60_000 },
      lastLoadedAt: undefined,
      typeErrors: [],
    },
  ];

  it('names the rules folder the control says, and none with only --extension folders (not the folder an extension sits in)', async () => {
    const extension = { ...makeRules()[0]!, name: 'My Extension', kind: 'extension' as const, file: '/home/me/code/my-extension' };
    const control = (dir?: string) => ({ ...(dir && { dir }), list: () => [extension], onChange: () => () => {}, reload: async () => extension, setDryRun: () => extension });
    const header = (frame: string) => frame.split('\n').find((line) => line.includes('in any 10 minutes')) ?? '';
    let h = await start({ size: { columns: 140, rows: 30 }, rulesControl: control() });
    await h.press('3');
    expect(header(h.frame())).not.toContain('/home/me');
    expect(h.frame()).toContain('/home/me/code/my-extension'); // its own folder, in full, in the details
    await h.close();
    harness = undefined;
    h = await start({ size: { columns: 140, rows: 30 }, rulesControl: control('/home/me/rules') });
    await h.press('3');
    expect(header(h.frame())).toMatch(/in any 10 minutes\s+\/home\/me\/rules/);
  });

  it('lists every rule with state, its worker, dry-run, listeners, reloads, quota; r, d and enter act on the selected one', async () => {
    const rules = makeRules();
    const calls: string[] = [];
    const h = await start({
      size: { columns: 120, rows: 40 },
      rulesControl: {
        list: () => rules,
        onChange: () => () => {},
        reload: async (name) => (calls.push(`reload ${name}`), rules.find((rule) => rule.name === name)!),
        setDryRun: (name, on) => (calls.push(`dry-run ${name} ${on}`), { ...rules.find((rule) => rule.name === name)!, dryRun: on }),
      },
    });
    expect(h.frame()).toMatch(/rules 1 active 1 failing/);
    // Calls left, not used; a countdown only for the rule that has none left; its refusals counted.
    expect(h.frame()).toMatch(/hBC left: bad-rule 0\/20 \(next in (59s|1m00s)\) 6 refused, good-rule 17\/20/);
    await h.press('3');
    let frame = h.frame();
    expect(frame).toContain('hBC = handlerBehaviorChanged calls left of 20 in any 10 minutes');
    expect(frame).toMatch(/● active\s+good-rule\s+▶ running\s+live\s+2 listeners\s+reloads 2\s+hBC ▮{9}▯\s+17 left\s+1 type error/);
    expect(frame).toMatch(/× failed\s+bad-rule\s+■ stopped\s+dry-run\s+0 listeners\s+reloads 0\s+hBC ▯{10}\s+0 left next in (59s|1m00s) 6 refused/);
    expect(frame).toMatch(/3 accepted, 0 refused in the last 10 minutes; the oldest leaves the window in 2m0[45]s/);
    expect(frame).toMatch(/Worker\s+▶ running\s+6\.0 MiB heap\s+0 restarts\s+a browser's globals only\s+id aaaabbbbccccddddeeeeffffgggghhhh/);
    expect(frame).toMatch(/Persona\s+chrome\s+Chrome's types, options, headers \(extraHeaders\) and details fields/);
    expect(frame).toMatch(/onBeforeRequest\s+\*:\/\/\*\.example\.com\/\*\s+types: image\s+\[blocking\]/);
    expect(frame).toMatch(/Listeners \(2\)\s*\n\s*cookies\.onChanged/);
    expect(frame).toMatch(/good-rule\.ts:4:7\s+TS2322 Type 'number'/);
    await h.press('r');
    await h.waitFor('good-rule reloaded');
    await h.press('j');
    frame = h.frame();
    expect(frame).toContain('Failed to load:');
    expect(frame).toContain('the background threw TypeError: x is undefined');
    expect(frame).toContain('at /r/bad-rule.ts:12:5');
    await h.press('d');
    expect(h.frame()).toContain('bad-rule: dry-run off');
    await h.press(KEYS.enter);
    expect(h.frame()).toContain('details (enter: back to the list)');
    expect(calls).toEqual(['reload good-rule', 'dry-run bad-rule false']);
  });
});

describe('keys are one table', () => {
  it('? shows every command of the table; esc closes it', async () => {
    const h = await start({ size: { columns: 140, rows: 120 } });
    await h.press('?');
    const frame = h.frame();
    for (const command of COMMANDS) expect(frame).toContain(command.description.slice(0, 40));
    expect(frame).toContain('Filter language');
    await h.press(KEYS.escape);
    expect(h.frame()).not.toContain('Filter language');
  });

  it('the footer lists the current view\'s keys from the same table', async () => {
    const h = await start({ size: { columns: 200, rows: 30 } });
    const footer = () => h.frame().split('\n').at(-1)!;
    expect(footer()).toContain('/ filter');
    expect(footer()).toContain('q quit');
    await h.press('2');
    expect(footer()).toContain('e edit value');
    expect(footer()).not.toContain('/ filter');
    await h.press('3');
    expect(footer()).toContain('r reload');
  });

  for (const columns of [80, 100]) {
    it(`at ${columns} columns the footer keeps "? help" and "q quit" in every view`, async () => {
      const h = await start({ size: { columns, rows: 24 } });
      await h.request('http://a.test/x');
      await h.settle();
      for (const keys of [[], [KEYS.enter], [KEYS.escape, '2'], ['3'], ['4']]) {
        await h.press(...keys);
        const footer = h.frame().split('\n').at(-1)!;
        expect(footer).toMatch(/\? help {2}q quit\s*$/);
      }
    });
  }

  it('no two commands of one view share a key', () => {
    const views = ['list', 'detail', 'cookies', 'rules', 'log', 'help'] as const;
    for (const view of views) {
      const seen = new Map<string, string>();
      for (const command of COMMANDS) {
        if (command.views !== 'all' && !(command.views as readonly string[]).includes(view)) continue;
        for (const key of command.keys) {
          const id = JSON.stringify({ ...key, shift: 'shift' in key ? key.shift : undefined });
          // A view command may take a key a global command also has only if the table orders it first.
          if (seen.has(id) && command.views !== 'all') throw new Error(`${view}: ${command.name} and ${seen.get(id)} share ${id}`);
          if (!seen.has(id)) seen.set(id, command.name);
        }
      }
    }
  });
});

describe('global commands', () => {
  it('D toggles the global dry-run, shown in the status bar', async () => {
    const h = await start();
    await h.press('D');
    expect(h.engine.dryRun).toBe(true);
    expect(h.frame()).toContain(' DRY-RUN ');
    await h.press('D');
    expect(h.engine.dryRun).toBe(false);
    expect(h.frame()).toContain(' LIVE ');
  });

  it('the log view shows console output and warnings; the status bar counts unseen warnings', async () => {
    const h = await start();
    h.engine.journal.append({ kind: 'log', level: 'warn', source: 'mockttp', message: 'something odd\nsecond line' });
    await h.settle();
    expect(h.frame()).toContain('1 new warning: 4 = log');
    await h.press('4');
    const frame = await h.waitFor((f) => !f.includes('new warnings'));
    expect(frame).toMatch(/warn\s+mockttp\s+something odd/);
    expect(frame).toContain('↵ second line');
    expect(frame).toMatch(/ Log {2}\d+ lines?, newest last/);
    await h.press(KEYS.escape);
    expect(h.frame()).toContain('No requests yet');
  });

  it('a refused handlerBehaviorChanged call flashes once at the bottom and is one log line, not two', async () => {
    const h = await start({ size: { columns: 160, rows: 30 } });
    const webRequest = h.engine.extensionApi(createTrustedOwner('loop')).chrome.webRequest!;
    for (let call = 0; call < 21; call++) await webRequest.handlerBehaviorChanged();
    await h.settle();
    expect(h.frame()).toMatch(/loop: handlerBehaviorChanged refused, caches not flushed: 0 of 20 calls left: the next is accepted in (9m59s|10m00s); 1 refused/);
    await h.press('4');
    const frame = await h.waitFor('newest last');
    // One log line (the pane below it shows the selected line in full).
    expect(frame.split('\n').filter((row) => /^\S*\s*\d\d:\d\d:\d\d\.\d+ warn .*refused/.test(row)).length).toBe(1);
  });
});
