// The request list's filter language: grammar (parse-filter.ts) and meaning (compile-filter.ts).
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compileFilter, type FilterableRequest, type RuleVerdict } from '../../src/ui/filter/compile-filter.js';
import { parseFilter } from '../../src/ui/filter/parse-filter.js';

function request(overrides: Partial<Omit<FilterableRequest, 'verdicts' | 'rules'>> & { verdicts?: RuleVerdict[]; rules?: string[] } = {}): FilterableRequest {
  return {
    url: 'https://api.example.com/v2/items?page=2',
    host: 'api.example.com',
    path: '/v2/items?page=2',
    method: 'GET',
    statusCode: 200,
    error: undefined,
    phase: 'completed',
    type: 'xmlhttprequest',
    tabId: -1,
    ...overrides,
    verdicts: new Set(overrides.verdicts ?? []),
    rules: new Set(overrides.rules ?? []),
  };
}

function matches(expression: string, target: FilterableRequest): boolean {
  const compiled = compileFilter(expression);
  if (!compiled.ok) throw new Error(`${expression}: ${compiled.error.message} at ${compiled.error.position}`);
  return compiled.predicate ? compiled.predicate(target) : true;
}

function errorOf(expression: string) {
  const compiled = compileFilter(expression);
  if (compiled.ok) throw new Error(`${expression} compiled`);
  return compiled.error;
}

describe('parsing', () => {
  it('an empty or blank expression lets everything through', () => {
    expect(parseFilter('')).toEqual({ ok: true, node: undefined });
    expect(parseFilter('   ')).toEqual({ ok: true, node: undefined });
    expect(compileFilter('  ')).toMatchObject({ ok: true, predicate: undefined });
  });

  it('not binds tighter than and, and tighter than or', () => {
    const parsed = parseFilter('a or not b and c');
    expect(parsed.ok && parsed.node).toMatchObject({
      kind: 'or',
      left: { kind: 'text', text: 'a' },
      right: { kind: 'and', left: { kind: 'not', operand: { kind: 'text', text: 'b' } }, right: { kind: 'text', text: 'c' } },
    });
  });

  it('adjacent terms are and-ed; keywords are case-insensitive; ! is not', () => {
    const parsed = parseFilter('host:x !method:GET OR y');
    expect(parsed.ok && parsed.node).toMatchObject({
      kind: 'or',
      left: { kind: 'and', left: { kind: 'field', field: 'host', value: 'x' }, right: { kind: 'not', operand: { kind: 'field', field: 'method' } } },
      right: { kind: 'text', text: 'y' },
    });
  });

  it('quotes hold spaces, parentheses and keywords', () => {
    const parsed = parseFilter('"not this" url:"a (b) c"');
    expect(parsed.ok && parsed.node).toMatchObject({
      kind: 'and',
      left: { kind: 'text', text: 'not this' },
      right: { kind: 'field', field: 'url', value: 'a (b) c' },
    });
  });

  it('a field value keeps balanced parentheses, so regex groups need no quotes', () => {
    const parsed = parseFilter('(url:/(a|b)/x)');
    expect(parsed.ok && parsed.node).toMatchObject({ kind: 'field', field: 'url', value: '/(a|b)/x' });
  });

  it('URLs and host:port are words, not fields', () => {
    expect(parseFilter('http://example.com/a').ok && parseFilter('http://example.com/a')).toMatchObject({ node: { kind: 'text', text: 'http://example.com/a' } });
    expect(parseFilter('localhost:8080')).toMatchObject({ ok: true, node: { kind: 'text', text: 'localhost:8080' } });
  });

  it.each([
    ['(host:a', 'missing ")"', 0],
    ['host:a)', 'unmatched ")"', 6],
    ['a and', '"and" needs something after it', 2],
    ['or a', 'unexpected "or"', 0],
    ['not', '"not" needs something after it', 0],
    ['()', 'empty parentheses', 1],
    ['"abc', 'unterminated quote', 0],
    ['method:', '"method:" needs a value', 0],
  ])('%s → %s at %d', (expression, message, position) => {
    const error = errorOf(expression);
    expect(error.message).toContain(message);
    expect(error.position).toBe(position);
    expect(error.length).toBeGreaterThanOrEqual(1);
  });
});

describe('meaning', () => {
  it('bare words: the URL contains them, case-insensitively, literally', () => {
    expect(matches('ITEMS', request())).toBe(true);
    expect(matches('page=2', request())).toBe(true);
    expect(matches('v2.items', request())).toBe(false); // not a regex
    expect(matches('other', request())).toBe(false);
  });

  it('host:, url: and path: are case-insensitive regular expressions', () => {
    expect(matches('host:example', request())).toBe(true);
    expect(matches('host:^api\\.', request())).toBe(true);
    expect(matches('host:^example', request())).toBe(false);
    expect(matches('url:/v2/', request())).toBe(true);
    expect(matches('url:/api/', request())).toBe(false);
    expect(matches('url:/api/', request({ url: 'https://x.test/api/users' }))).toBe(true);
    expect(matches('path:^/V2/', request())).toBe(true);
    expect(matches('url:(items|users)$', request({ url: 'https://x.test/users' }))).toBe(true);
  });

  it('method: exact, case-insensitive, comma for any of several', () => {
    expect(matches('method:get', request())).toBe(true);
    expect(matches('method:POST', request())).toBe(false);
    expect(matches('method:POST,GET', request())).toBe(true);
  });

  it.each([
    ['status:200', 200, true],
    ['status:2xx', 204, true],
    ['status:4xx', 404, true],
    ['status:4xx', 500, false],
    ['status:40x', 404, true],
    ['status:40x', 410, false],
    ['status:400-499', 451, true],
    ['status:>=500', 503, true],
    ['status:>=500', 499, false],
    ['status:<300', 204, true],
    ['status:>404', 404, false],
    ['status:<=404', 404, true],
    ['status:301,302', 302, true],
  ])('%s with %d → %s', (expression, statusCode, expected) => {
    expect(matches(expression, request({ statusCode }))).toBe(expected);
  });

  it('status:error and status:pending', () => {
    const failed = request({ statusCode: undefined, error: 'net::ERR_CONNECTION_REFUSED', phase: 'failed' });
    expect(matches('status:error', failed)).toBe(true);
    expect(matches('status:error', request())).toBe(false);
    expect(matches('status:4xx', failed)).toBe(false);
    expect(matches('status:pending', request({ phase: 'pending', statusCode: undefined }))).toBe(true);
    expect(matches('is:error', failed)).toBe(true);
  });

  it('type: a resource type or an alias', () => {
    expect(matches('type:xmlhttprequest', request())).toBe(true);
    expect(matches('type:xhr', request())).toBe(true);
    expect(matches('type:image', request({ type: 'image' }))).toBe(true);
    expect(matches('type:img,js', request({ type: 'script' }))).toBe(true);
    expect(matches('type:image', request())).toBe(false);
  });

  it('tab: the tab wrtui counted a request in; none is a request from no tab (curl), any one from some tab', () => {
    expect(matches('tab:3', request({ tabId: 3 }))).toBe(true);
    expect(matches('tab:3,5', request({ tabId: 5 }))).toBe(true);
    expect(matches('tab:3', request({ tabId: 4 }))).toBe(false);
    expect(matches('tab:none', request())).toBe(true);
    expect(matches('tab:any', request())).toBe(false);
    expect(matches('tab:any and type:image', request({ tabId: 1, type: 'image' }))).toBe(true);
    expect(errorOf('tab:first')).toMatchObject({ message: 'tab: needs a tab id, none or any, e.g. tab:3 or tab:none' });
  });

  it('is: what rules did', () => {
    expect(matches('is:cancelled', request({ verdicts: ['cancelled'] }))).toBe(true);
    expect(matches('is:redirected', request({ verdicts: ['cancelled'] }))).toBe(false);
    expect(matches('is:dry-run', request({ verdicts: ['dry-run'] }))).toBe(true);
    expect(matches('is:failed', request({ verdicts: ['failed'] }))).toBe(true);
    expect(matches('is:modified', request({ verdicts: ['request-headers'] }))).toBe(true);
    expect(matches('is:modified', request({ verdicts: ['dry-run', 'ignored'] }))).toBe(false);
    expect(matches('is:headers', request({ verdicts: ['response-headers'] }))).toBe(true);
    expect(matches('is:auth', request({ verdicts: ['auth'] }))).toBe(true);
  });

  it('by: an extension whose name matches made the request itself (its own fetch)', () => {
    expect(matches('by:badger', request({ madeBy: { extension: 'Privacy Badger' } }))).toBe(true);
    expect(matches('by:.', request({ madeBy: { extension: 'Privacy Badger' } }))).toBe(true);
    expect(matches('by:.', request())).toBe(false);
    expect(matches('by:^uBlock', request({ madeBy: { extension: 'Privacy Badger' } }))).toBe(false);
  });

  it('rule: a rule whose name matches answered', () => {
    expect(matches('rule:strip', request({ rules: ['strip-tracking-params'] }))).toBe(true);
    expect(matches('rule:^block', request({ rules: ['strip-tracking-params'] }))).toBe(false);
  });

  it('combinations', () => {
    const post = request({ method: 'POST', statusCode: 500 });
    expect(matches('method:POST and status:5xx', post)).toBe(true);
    expect(matches('method:POST status:2xx', post)).toBe(false);
    expect(matches('(status:2xx or status:5xx) and not host:other', post)).toBe(true);
    expect(matches('!(method:POST)', post)).toBe(false);
    expect(matches('not method:GET and items', post)).toBe(true);
  });
});

describe('errors point at the value', () => {
  it('a bad regular expression', () => {
    const error = errorOf('method:GET host:(a');
    expect(error.message).toMatch(/bad regular expression/);
    expect(error.position).toBe(16);
  });

  it('an unknown field, at the field', () => {
    const error = errorOf('a staus:404');
    expect(error.message).toContain('unknown field "staus"');
    expect(error.position).toBe(2);
    expect(error.length).toBe(5);
  });

  it('bad status, type and is values', () => {
    expect(errorOf('status:4x').message).toContain('is not a status');
    expect(errorOf('status:4x').position).toBe(7);
    expect(errorOf('status:500-400').message).toContain('empty');
    expect(errorOf('type:picture').message).toContain('unknown type "picture"');
    expect(errorOf('is:blue').message).toContain('is:blue is unknown');
  });
});

describe('header: and body:', () => {
  const withContent = request({
    sentHeaders: [{ name: 'X-Token', value: 'abc123' }, { name: 'Accept', value: 'application/json' }],
    responseHeaders: [{ name: 'Content-Type', value: 'application/json; charset=utf-8' }, { name: 'Content-Encoding', value: 'gzip' }],
    requestBytes: { bytes: new Uint8Array(Buffer.from('{"query":"find me"}')) },
    responseBytes: { bytes: new Uint8Array(gzipSync(JSON.stringify({ token: 'SECRET-42', items: [] }))) },
  });

  it('header:NAME finds a request or response header by name; header:NAME=TEXT by a part of its value', () => {
    expect(matches('header:x-token', withContent)).toBe(true);
    expect(matches('header:content-type=JSON', withContent)).toBe(true);
    expect(matches('header:content-type=xml', withContent)).toBe(false);
    expect(matches('header:authorization', withContent)).toBe(false);
    expect(matches('not header:authorization and header:accept', withContent)).toBe(true);
  });

  it('body:TEXT looks inside both bodies, decoded (gzip here), case-insensitively', () => {
    expect(matches('body:secret-42', withContent)).toBe(true); // in the gzip response
    expect(matches('body:"find me"', withContent)).toBe(true); // in the request
    expect(matches('body:nowhere', withContent)).toBe(false);
    expect(matches('body:token', request())).toBe(false); // no body kept
  });

  it('an empty header: or body: is an error at its position', () => {
    expect(errorOf('body:""').message).toMatch(/"body:" needs a value/);
    expect(errorOf('header:=x').message).toMatch(/header: needs a header name/);
  });
});

describe('ws:', () => {
  it('ws:TEXT keeps the WebSockets one of whose messages holds TEXT (either way, any case)', () => {
    const socket = { url: 'ws://a.test/', host: 'a.test', path: '/', method: 'GET', statusCode: 101, error: undefined, phase: 'completed' as const, type: 'websocket', tabId: -1, verdicts: new Set(), rules: new Set(), wsMessages: [{ direction: 'receive' as const, opcode: 'text' as const, time: 0, bytes: Buffer.from('Hello There'), size: 11, complete: true }] };
    const page = { ...socket, type: 'main_frame', statusCode: 200, wsMessages: undefined };
    const test = (expression: string) => {
      const compiled = compileFilter(expression);
      if (!compiled.ok) throw new Error(compiled.error.message);
      return [socket, page].map((request) => compiled.predicate!(request as never));
    };
    expect(test('ws:"hello there"')).toEqual([true, false]);
    expect(test('ws:goodbye')).toEqual([false, false]);
  });
});
