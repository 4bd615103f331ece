// regexFilter: Chrome runs it with RE2 and answers isRegexSupported accordingly. These are the
// answers Chromium 156's chrome.declarativeNetRequest.isRegexSupported gave (asked from a probe
// extension, 2026-11-25); wrtui must give the same. Then: RE2's syntax, run by JavaScript's engine.
import { describe, expect, it } from 'vitest';
import { re2ToJs, regexSupport } from '../../src/engine/dnr/regex-support.js';

const CHROMIUM_ANSWERS: [string, 'ok' | 'syntaxError' | 'memoryLimitExceeded'][] = [
  ['(?=a)b', 'syntaxError'],
  ['a(b)\\1', 'syntaxError'],
  ['[a-z]{1000}{1000}', 'syntaxError'],
  ['a{1001}', 'syntaxError'],
  ['a{2,1001}', 'syntaxError'],
  ['a*+', 'syntaxError'],
  ['a**', 'syntaxError'],
  ['a++', 'syntaxError'],
  ['\\Z', 'syntaxError'],
  ['a{1000}', 'memoryLimitExceeded'],
  ['[a-z]{500}', 'memoryLimitExceeded'],
  ['(abc){300}', 'memoryLimitExceeded'],
  ['x{1000}y{1000}', 'memoryLimitExceeded'],
  ['a{112}', 'ok'],
  ['a{113}', 'memoryLimitExceeded'],
  ['(abc){37}', 'ok'],
  ['(abc){38}', 'memoryLimitExceeded'],
  ['a{1,56}', 'ok'],
  ['a{1,57}', 'memoryLimitExceeded'],
  ['.{37}', 'ok'],
  ['.{38}', 'memoryLimitExceeded'],
  ['[0-9a-f]{37}', 'ok'],
  ['[0-9a-f]{38}', 'memoryLimitExceeded'],
  ['(a|b){112}', 'ok'],
  ['[a-z]{100}', 'ok'],
  ['^https?://[a-z]+\\.com/(.*)$', 'ok'],
  ['(?i)abc', 'ok'],
  ['(?P<n>a)', 'ok'],
  ['(?<n>a)', 'ok'],
  ['\\bword\\b', 'ok'],
  ['[[:alpha:]]', 'ok'],
  ['\\pL', 'ok'],
  ['(?:a|b)+c', 'ok'],
  ['^(a+)+$', 'ok'],
  ['\\z', 'ok'],
  ['\\Qa.b\\E', 'ok'],
];

describe('isRegexSupported answers as Chromium 156 did', () => {
  it.each(CHROMIUM_ANSWERS)('%s → %s', (regex, answer) => {
    const support = regexSupport(regex);
    expect(support.isSupported ? 'ok' : support.reason).toBe(answer);
  });
});

describe("RE2's syntax run by JavaScript", () => {
  const cases: [string, string, boolean][] = [
    ['^https://a\\.com/x\\z', 'https://a.com/x', true],
    ['^https://a\\.com/x\\z', 'https://a.com/xy', false],
    ['\\Qa.b\\E', 'xa.b', true],
    ['\\Qa.b\\E', 'xaxb', false],
    ['[[:digit:]]+$', 'abc123', true],
    ['[[:alpha:]]{3}', '123', false],
    ['\\pL+', 'é', true],
    ['(?P<n>ab)', 'xab', true],
  ];
  it.each(cases)('%s on %s → %s', (regex, url, matches) => {
    const { source, flags } = re2ToJs(regex, true);
    expect(new RegExp(source, flags).test(url)).toBe(matches);
  });
});

describe('an extension\'s regexFilter cannot stall the proxy', () => {
  it('a catastrophically backtracking regex (RE2 runs it in linear time) is decided at once on a long URL', async () => {
    const { DnrEngine } = await import('../../src/engine/dnr/dnr-engine.js');
    const dnr = new DnrEngine();
    await dnr.addExtension({ extensionId: 'a'.repeat(32), name: 'ext', baseUrl: 'chrome-extension://x/', rulesets: [{ id: 'main', path: 'r.json', enabled: true, rules: [
      { id: 1, action: { type: 'block' }, condition: { regexFilter: '^https://x\\.test/(a+)+$' } },
      { id: 2, action: { type: 'block' }, condition: { regexFilter: 'ADS[0-9]+' } },
      { id: 3, action: { type: 'block' }, condition: { regexFilter: '\\btrack\\b' } },
    ] }] });
    const decide = (url: string) => dnr.beforeRequest({ requestId: url, url, method: 'GET', type: 'script', tabId: -1 }).action.kind;
    const started = performance.now();
    // With backtracking, 29 a's already took 20 s; 60 would take longer than the universe.
    expect(decide(`https://x.test/${'a'.repeat(60)}b`)).toBe('none');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(decide(`https://x.test/${'a'.repeat(60)}`)).toBe('block');
    // Case-insensitive (Chrome's default) in the linear engine: the URL and the pattern lowercased.
    expect(decide('https://x.test/Ads12')).toBe('block');
    // What the linear engine cannot run (\b) runs as before.
    expect(decide('https://x.test/a/track/b')).toBe('block');
    expect(decide('https://x.test/a/tracker')).toBe('none');
  });
});
