// The http-state suite (RFC 6265 parser and date cases, abarth/http-state as carried by
// tough-cookie), run through CookieJars exactly as the data's `harness` field says.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDate } from 'tough-cookie';
import { describe, expect, it } from 'vitest';
import { CookieJars } from '../../src/engine/cookies/cookie-jars.js';

interface ParserCase {
  test: string;
  received: string[];
  'sent-to'?: string;
  sent: { name: string; value: string }[];
}
interface DateCase {
  test: string;
  expected: string | null;
}

// The suite's data lives in the repository (fixtures/http-state/README.md: source and licence).
const dataDir = resolve(import.meta.dirname, '../../fixtures/http-state');
const parser = JSON.parse(readFileSync(resolve(dataDir, 'http-state-parser-cases.json'), 'utf8')) as {
  harness: string;
  cases: ParserCase[];
};
const dates = JSON.parse(readFileSync(resolve(dataDir, 'http-state-date-cases.json'), 'utf8')) as {
  examples: DateCase[];
  bsd_examples: DateCase[];
};

/** The Cookie header value `sent` describes (name=value pairs in order). */
function headerOf(sent: ParserCase['sent']): string {
  return sent.map(({ name, value }) => (name ? `${name}=${value}` : value)).join('; ');
}

describe('http-state parser cases (RFC 6265 §5.2–5.4 through CookieJars.setFromResponse / cookieHeader)', () => {
  it('has the 222 cases the data promises', () => {
    expect(parser.cases).toHaveLength(222);
  });

  it.each(parser.cases)('$test', (testCase) => {
    const jars = new CookieJars();
    const from = `http://home.example.org/cookie-parser?${testCase.test}`;
    const to = testCase['sent-to']
      ? new URL(testCase['sent-to'], 'http://home.example.org').href
      : `http://home.example.org/cookie-parser-result?${testCase.test}`;
    jars.setFromResponse(from, testCase.received);
    expect(jars.cookieHeader(to)).toBe(headerOf(testCase.sent));
    void jars.close();
  });
});

describe('http-state date cases (RFC 6265 §5.1.1 cookie-date, tough-cookie parseDate)', () => {
  const cases = [...dates.examples.map((c) => ({ ...c, set: 'examples' })), ...dates.bsd_examples.map((c) => ({ ...c, set: 'bsd-examples' }))];

  it.each(cases)('$set: $test', ({ test, expected }) => {
    const parsed = parseDate(test);
    if (expected) expect(parsed?.toUTCString()).toBe(expected);
    else expect(parsed).toBeUndefined();
  });
});
