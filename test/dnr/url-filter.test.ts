// urlFilter matching, as a table: the examples of developer.chrome.com's declarativeNetRequest
// reference ("RuleCondition.urlFilter"), and the behaviour Chromium's url_pattern_index tests
// describe (components/url_pattern_index/url_pattern_unittest.cc), written as DNR patterns.
import { describe, expect, it } from 'vitest';
import { compileUrlFilter } from '../../src/engine/dnr/url-filter.js';

const matches = (pattern: string, url: string, caseSensitive = false) => compileUrlFilter(pattern, caseSensitive).regex.test(new URL(url).href);

// [pattern, url, matches?]
const REFERENCE_EXAMPLES: [string, string, boolean][] = [
  ['abc', 'https://abcd.com', true],
  ['abc', 'https://example.com/abcd', true],
  ['abc', 'https://ab.com', false],
  ['abc*d', 'https://abcd.com', true],
  ['abc*d', 'https://example.com/abcxyzd', true],
  ['abc*d', 'https://abc.com', false],
  ['||a.example.com', 'https://a.example.com/', true],
  ['||a.example.com', 'https://b.a.example.com/xyz', true],
  ['||a.example.com', 'https://a.example.company', true],
  ['||a.example.com', 'https://example.com/', false],
  ['|https*', 'https://example.com', true],
  ['|https*', 'http://example.com/', false],
  ['|https*', 'http://https.com', false],
  ['example*^123|', 'https://example.com/123', true],
  ['example*^123|', 'http://abc.com/example?123', true],
  ['example*^123|', 'https://example.com/1234', false],
  ['example*^123|', 'https://abc.com/example0123', false],
];

const CHROMIUM_URL_PATTERN_CASES: [string, string, boolean][] = [
  ['xampl', 'http://example.com', true],
  ['/a?a', 'http://ex.com/a?a', true],
  ['^abc', 'http://ex.com/a?abc', true],
  ['^abc^abc', 'http://ex.com/abc?abc', true],
  ['^com^abc^abc', 'http://ex.com/abc?abc', false],
  ['|http://ex', 'http://example.com', true],
  ['mple.com/|', 'http://example.com', true],
  ['||mple.com/', 'http://example.com', false],
  ['||ex.com', 'http://hex.com', false],
  ['||ex.com', 'http://ex.com', true],
  ['||ex.com', 'http://hex.ex.com', true],
  ['||ex.com', 'http://hex.hex.com', false],
  ['||example.com^', 'http://www.example.com', true],
  ['|http://*mpl', 'http://example.com', true],
  ['example^com', 'http://example.com', false],
  ['example^com', 'http://example/com', true],
  ['example.com^', 'http://example.com:8080', true],
  ['|http*.com/|', 'http://example.com', true],
  ['|http*.org/|', 'http://example.com', false],
  ['/path?*&p1=*&p2=', 'http://ex.com/aaa/path/bbb?k=v&p1=0&p2=1', false],
  ['/path?*&p1=*&p2=', 'http://ex.com/aaa/path?k=v&p1=0&p2=1', true],
  ['/path?*&p1=*&p2=', 'http://ex.com/aaa/path?k=v&p2=0&p1=1', false],
  ['abc*def*ghijk*xyz', 'http://example.com/abcdeffffghijkmmmxyzzz', true],
  ['abc*cdef', 'http://example.com/abcdef', false],
  ['^^a^^', 'http://ex.com/?a=/', true],
  ['^^a^^', 'http://ex.com/?a=x', false],
  ['^^a^^', 'http://ex.com/?a=', true], // the last ^ matches the end of the URL
  ['ex.com^path^*k=v^', 'http://ex.com/path/?k1=v1&ak=v&kk=vv', true],
  ['ex.com^path^*k=v^', 'http://ex.com/p/path/?k1=v1&ak=v&kk=vv', false],
  ['https://example.com/', 'http://example.com/', false],
  ['||examp', 'http://test.example.com/', true],
  ['||xamp', 'http://example.com/', false],
  ['||t.examp', 'http://test.example.com/', false],
  ['||com^', 'http://test.example.com/', true],
  ['||x.com', 'http://ex.com/?url=x.com', false],
  ['||ex.com^|', 'http://ex.com/', true],
  ['||ex.co|', 'http://ex.com/', false],
  ['||ex.com|', 'http://rex.com.ex.com/', false],
  ['||ex.com/|', 'http://rex.com.ex.com/', true],
  ['||http|', 'http://http.com/', false],
  ['||http', 'http://http.com/', true],
  ['||/example.com|', 'http://example.com/', false],
  ['||.', 'http://a..com/', true],
  ['||^', 'http://a..com/', false],
  ['||/path', 'http://a.com./path/to/x', true],
  ['||path|', 'http://a.com./path', false],
  ['abc^', 'https://xyz.com/abc/123', true],
  ['abc^', 'https://abc.com', false],
  ['abc^|', 'https://xyz.com/abc/123', false],
  ['|http://abc.com/x^|', 'http://abc.com/x/', true],
  ['|http://abc.com/x^|', 'http://abc.com/x/123', false],
  ['||abc.com^', 'http://abc.com.xyz.com?q=abc.com', false],
  ['abc*^', 'https://abc.com?q=123', true],
  ['|*google.com', 'https://www.google.com', true],
  ['|*|', 'https://example.com', true],
];

describe('urlFilter: "*" any run, "|" anchors, "||" a (sub-)domain, "^" a separator or the end', () => {
  it.each(REFERENCE_EXAMPLES)('the reference\'s example: %s against %s → %s', (pattern, url, expected) => {
    expect(matches(pattern, url)).toBe(expected);
  });

  it.each(CHROMIUM_URL_PATTERN_CASES)('as Chromium\'s URL pattern tests describe: %s against %s → %s', (pattern, url, expected) => {
    expect(matches(pattern, url)).toBe(expected);
  });

  it('"isUrlFilterCaseSensitive: Whether the urlFilter is case sensitive. Default is false"', () => {
    expect(matches('path', 'http://a.com/PaTh')).toBe(true);
    expect(matches('path', 'http://a.com/PaTh', true)).toBe(false);
    expect(matches('abc*def^', 'http://a.com/abcxAdef/vo', true)).toBe(true);
    expect(matches('abc*def^', 'http://a.com/aBcxAdeF/vo', true)).toBe(false);
  });

  it('refuses what Chrome refuses: an empty filter, non-ASCII, "||*"', () => {
    expect(() => compileUrlFilter('')).toThrow(/empty/);
    expect(() => compileUrlFilter('ü')).toThrow(/ASCII/);
    expect(() => compileUrlFilter('||*ads')).toThrow(/\|\|\*/);
  });

  it('gives the index the literal pieces every matching URL contains', () => {
    expect(compileUrlFilter('||ads.example.com^*/banner*.gif').literals).toEqual(['ads.example.com', '/banner', '.gif']);
  });
});
