// Chrome's extension match patterns: example tests per rule (quoting Chrome's documentation at
// developer.chrome.com/docs/extensions/develop/concepts/match-patterns and Chromium's
// url_pattern_unittest.cc), then property tests against a deliberately naive reference matcher.
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  MatchPattern,
  MatchPatternError,
  MatchPatternSet,
  validateMatchPattern,
} from '../src/engine/match-pattern.js';

const matches = (pattern: string, url: string | URL): boolean => MatchPattern.parse(pattern).matches(url);

/** The error a bad pattern throws (fails the test if it does not throw one). */
function parseError(pattern: string): MatchPatternError {
  try {
    MatchPattern.parse(pattern);
  } catch (error) {
    expect(error).toBeInstanceOf(MatchPatternError);
    return error as MatchPatternError;
  }
  throw new Error(`expected ${JSON.stringify(pattern)} to be rejected`);
}

describe('"<all_urls>": "Matches any URL that starts with a permitted scheme"', () => {
  const allUrls = MatchPattern.parse('<all_urls>');

  it('matches http, https, ws, wss, ftp and file URLs', () => {
    for (const url of [
      'http://example.com/',
      'https://example.com:8443/a?b',
      'ws://127.0.0.1/socket',
      'wss://[::1]/socket',
      'ftp://ftp.example.org/pub/file.txt',
      'file:///etc/hosts',
      'file://server/share/x',
    ]) {
      expect(allUrls.matches(url), url).toBe(true);
    }
  });

  it('matches no URL of another scheme: data:, blob:, about:, javascript:, chrome-extension:, mailto:', () => {
    for (const url of [
      'data:text/plain,hello',
      'blob:https://example.com/0b6c9c1e-1111-2222-3333-444455556666',
      'about:blank',
      'javascript:void(0)',
      'chrome-extension://abcdefghijklmnop/page.html',
      'mailto:someone@example.com',
      'urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66',
    ]) {
      expect(allUrls.matches(url), url).toBe(false);
    }
  });

  it('matches no unparseable URL ("Even the all_urls pattern shouldn\'t match an invalid URL")', () => {
    expect(allUrls.matches('http:')).toBe(false);
    expect(allUrls.matches('not a url')).toBe(false);
    expect(allUrls.matches('')).toBe(false);
  });

  it('is exact: "<ALL_URLS>" and " <all_urls>" are not the special pattern', () => {
    expect(validateMatchPattern('<ALL_URLS>')).toBeDefined();
    expect(validateMatchPattern(' <all_urls>')).toBeDefined();
  });
});

describe('scheme: one of http, https, ws, wss, ftp, file, or *', () => {
  it('accepts each permitted scheme and matches only URLs of that scheme', () => {
    const urlFor = (scheme: string): string => (scheme === 'file' ? 'file:///x' : `${scheme}://example.com/x`);
    const schemes = ['http', 'https', 'ws', 'wss', 'ftp', 'file'];
    for (const scheme of schemes) {
      const pattern = scheme === 'file' ? 'file:///*' : `${scheme}://example.com/*`;
      for (const other of schemes) {
        expect(matches(pattern, urlFor(other)), `${pattern} vs ${other}`).toBe(scheme === other);
      }
    }
  });

  it('rejects other schemes, naming the scheme: urn, data, chrome-extension, about, javascript, ftps', () => {
    for (const scheme of ['urn', 'data', 'chrome-extension', 'about', 'javascript', 'ftps', 'filesystem']) {
      const error = parseError(`${scheme}://example.com/*`);
      expect(error.message).toContain(`scheme "${scheme}" is not supported`);
    }
  });

  it('rejects scheme-only patterns such as "data:*" and "about:blank" as unsupported schemes', () => {
    expect(parseError('data:*').reason).toContain('scheme "data" is not supported');
    expect(parseError('about:blank').reason).toContain('scheme "about" is not supported');
  });

  it('compares the pattern scheme case-sensitively like Chrome: "HTTP://" is rejected with a hint', () => {
    expect(parseError('HTTP://example.com/*').reason).toBe(
      'scheme "HTTP" is not supported (schemes are lower case); use one of http, https, ws, wss, ftp, file or *',
    );
  });

  it('rejects an empty scheme', () => {
    expect(parseError('://example.com/*').reason).toContain('scheme is empty');
  });
});

describe("an extension's own URLs in a webRequest filter (extensionSchemes)", () => {
  it('chrome-extension://<id>/… is a filter pattern (Decentraleyes guards its resources with one) but never a host permission; <all_urls> still excludes it', () => {
    const guard = MatchPattern.parse('chrome-extension://gkaaeafdgccjkabkdhfiegknhebefgaj/resources/*', { extensionSchemes: true });
    expect(guard.matches('chrome-extension://gkaaeafdgccjkabkdhfiegknhebefgaj/resources/jquery.js?_=1')).toBe(true);
    expect(guard.matches('chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/resources/jquery.js')).toBe(false);
    expect(guard.matches('http://gkaaeafdgccjkabkdhfiegknhebefgaj/resources/x')).toBe(false);
    expect(() => MatchPattern.parse('chrome-extension://gkaaeafdgccjkabkdhfiegknhebefgaj/*')).toThrow(MatchPatternError);
    expect(new MatchPatternSet(['<all_urls>'], { extensionSchemes: true }).matches('chrome-extension://gkaaeafdgccjkabkdhfiegknhebefgaj/x')).toBe(false);
  });
});

describe('scheme "*": "A wildcard *, which matches only http or https"', () => {
  it('matches http and https', () => {
    expect(matches('*://*/*', 'http://example.com/')).toBe(true);
    expect(matches('*://*/*', 'https://example.com/')).toBe(true);
  });

  it('does not match ws or wss (Chromium narrows "*" to http|https; Firefox differs)', () => {
    expect(matches('*://*/*', 'ws://example.com/')).toBe(false);
    expect(matches('*://*/*', 'wss://example.com/')).toBe(false);
  });

  it('does not match ftp or file ("Test that <all_urls> includes file URLs, while scheme * does not")', () => {
    expect(matches('*://*/*', 'ftp://example.com/')).toBe(false);
    expect(matches('*://*/*', 'file:///foo/bar')).toBe(false);
    expect(matches('*://*/*', 'file://localhost/foo/bar')).toBe(false);
  });
});

describe('structure: <scheme>://<host><path>', () => {
  it('requires "://" after the scheme', () => {
    for (const pattern of ['http', 'http:', 'http:/', 'http:/bar', 'http:example.com/*', 'example.com/*', 'http//example.com/*']) {
      expect(parseError(pattern).reason, pattern).toBe('missing "://" after the scheme');
    }
  });

  it('rejects an empty pattern', () => {
    expect(parseError('').reason).toContain('pattern is empty');
  });

  it('requires a path: "http://bar" is invalid ("missing path")', () => {
    expect(parseError('http://bar').reason).toMatch(/^missing path/);
    expect(parseError('https://*.example.com').reason).toMatch(/^missing path/);
    expect(parseError('http://example.com:8080').reason).toMatch(/^missing path/);
  });

  it('requires a host for non-file schemes: "http://", "http:///", "http://:1234/" are invalid', () => {
    expect(parseError('http://').reason).toBe('missing host and path');
    expect(parseError('http:///').reason).toBe('host is empty');
    expect(parseError('http:///foo').reason).toBe('host is empty');
    expect(parseError('http://:1234/').reason).toBe('host is empty');
    expect(parseError('https://[]:8888/*').reason).toBe('host is empty');
  });

  it('a "/" path matches only the root, "/*" any path', () => {
    expect(matches('http://example.com/', 'http://example.com/')).toBe(true);
    expect(matches('http://example.com/', 'http://example.com/a')).toBe(false);
    expect(matches('http://example.com/*', 'http://example.com/a/b/c')).toBe(true);
  });

  it('"file:///path" has an empty host and matches local files', () => {
    const pattern = MatchPattern.parse('file:///foo*');
    expect(pattern.matches('file:///foo')).toBe(true);
    expect(pattern.matches('file:///foobar')).toBe(true);
    expect(pattern.matches('file://localhost/foo')).toBe(true);
    expect(pattern.matches('file://foo')).toBe(false);
    expect(pattern.matches('file:///bar')).toBe(false);
  });

  it('a file pattern\'s host is ignored like Chrome: "file://localhost/foo*" is "file:///foo*"', () => {
    expect(matches('file://localhost/foo*', 'file:///foobar')).toBe(true);
    expect(matches('file://server/foo*', 'file://otherserver/foo')).toBe(true);
  });

  it('a file pattern may omit the path\'s slash like Chrome: "file://foo*" is "file:///foo*"', () => {
    expect(matches('file://foo*', 'file:///foobar')).toBe(true);
    expect(matches('file://*', 'file:///anything/at/all')).toBe(true);
    expect(parseError('file://').reason).toBe('missing host and path');
  });
});

describe('host: "*", "*.example.com", or an exact host', () => {
  it('"*" matches any host', () => {
    for (const url of ['http://example.com/', 'http://localhost/', 'http://127.0.0.1/', 'http://[::1]/', 'http://xn--bcher-kva.de/']) {
      expect(matches('http://*/*', url), url).toBe(true);
    }
  });

  it('"*.example.com" matches example.com itself and any subdomain', () => {
    const pattern = MatchPattern.parse('https://*.example.com/*');
    expect(pattern.matches('https://example.com/')).toBe(true);
    expect(pattern.matches('https://www.example.com/')).toBe(true);
    expect(pattern.matches('https://a.b.c.example.com/x')).toBe(true);
  });

  it('"*.example.com" does not match look-alikes: badexample.com, example.com.evil.net, example.org', () => {
    const pattern = MatchPattern.parse('https://*.example.com/*');
    expect(pattern.matches('https://badexample.com/')).toBe(false);
    expect(pattern.matches('https://example.com.evil.net/')).toBe(false);
    expect(pattern.matches('https://example.org/')).toBe(false);
    expect(pattern.matches('https://com/')).toBe(false);
  });

  it('an exact host matches only that host, not its subdomains', () => {
    expect(matches('http://example.com/*', 'http://example.com/')).toBe(true);
    expect(matches('http://example.com/*', 'http://www.example.com/')).toBe(false);
  });

  it('"*" elsewhere in the host is invalid: "host may only start with *."', () => {
    for (const pattern of ['http://*foo/bar', 'http://foo.*.bar/baz', 'http://fo.*.ba:123/baz', 'http://foo.*/bar', 'http://*.*/x', 'http://**/x', 'http://a*b/x']) {
      expect(parseError(pattern).message, pattern).toBe(
        `Invalid match pattern ${JSON.stringify(pattern)}: host may only start with "*."`,
      );
    }
  });

  it('"*." with nothing after it is invalid', () => {
    expect(parseError('http://*./').reason).toBe('host is empty after "*."');
  });

  it('hosts compare case-insensitively ("*://*.gOoGle.com/*" matches https://maps.google.com)', () => {
    expect(matches('*://*.gOoGle.com/*', 'https://maps.google.com/')).toBe(true);
    expect(matches('*://example.com/*', 'https://EXAMPLE.com/')).toBe(true);
  });

  it('international hosts compare in punycode form', () => {
    expect(matches('https://*.ɡoogle.com/*', 'https://xn--oogle-qmc.com/')).toBe(true);
    expect(matches('https://bücher.de/*', 'https://xn--bcher-kva.de/')).toBe(true);
    expect(matches('https://xn--bcher-kva.de/*', 'https://bücher.de/x')).toBe(true);
    expect(matches('https://*.ɡoogle.com/*', 'https://google.com/')).toBe(false);
  });

  it('rejects hosts the URL parser rejects, and characters it would reinterpret', () => {
    for (const host of ['a b', 'a\tb', 'a@b', 'a\\b', 'a%2Fb', '\u0000www', '\ufdd0zyx.com', '999.1.1.1', 'a|b']) {
      expect(parseError(`http://${host}/*`).reason, host).toBe(`host ${JSON.stringify(host)} is not a valid host name or IP address`);
    }
  });

  it('accepts IPv6 literals in brackets, with or without a port', () => {
    expect(matches('http://[::1]/*', 'http://[::1]/x')).toBe(true);
    expect(matches('http://[2607:f8b0:4005:805::200e]:8888/*', 'http://[2607:f8b0:4005:805:0:0:0:200e]:8888/')).toBe(true);
    expect(matches('http://[2607:f8b0:4005:805::200e]:8888/*', 'http://[2607:f8b0:4005:805::200e]/')).toBe(false);
    expect(matches('http://[::1]/*', 'http://[::2]/')).toBe(false);
  });

  it('rejects malformed IPv6 literals like Chromium\'s tests', () => {
    expect(parseError('http://[2607:f8b0:4005:805::200e/*').reason).toBe('IPv6 host is missing its closing "]"');
    expect(parseError('http://[2607:f8b0:4005:805::200e]]/*').reason).toBe('unexpected "]" after the IPv6 host');
    expect(parseError('http://[[2607:f8b0:4005:805::200e]/*').reason).toContain('is not a valid host');
    expect(parseError('http://[2607:f8b0:4005:805:200e]/*').reason).toContain('is not a valid host');
    expect(parseError('http://[2607:f8b0:4005:805:200e:12:bogus]/*').reason).toContain('is not a valid host');
  });

  it('IPv4 hosts are canonicalized like URLs ("Canonicalization forces 0.0.1 to 0.0.0.1")', () => {
    expect(matches('http://127.1/*', 'http://127.0.0.1/')).toBe(true);
    expect(matches('http://0x7f.0.0.1/*', 'http://127.0.0.1/')).toBe(true);
  });

  it('"Subdomain matching is never done if the argument has an IP address host"', () => {
    expect(matches('http://*.0.0.1/*', 'http://127.0.0.1/')).toBe(false);
    expect(matches('http://*.0.0.1/*', 'http://0.0.0.1/')).toBe(true);
  });

  it('a trailing dot on either host is ignored, as in Chrome ("Both patterns should match trailing dot and non trailing dot domains")', () => {
    expect(matches('*://example.com/*', 'http://example.com./')).toBe(true);
    expect(matches('*://example.com./*', 'http://example.com/')).toBe(true);
    expect(matches('*://example.com./*', 'http://example.com./')).toBe(true);
    expect(matches('*://*.example.com/*', 'http://www.example.com./')).toBe(true);
    expect(matches('*://example.com/*', 'http://example.com../')).toBe(false);
  });
});

describe('port: "By default, this is treated as a wildcard with the same behavior as :*"', () => {
  it('an explicit port matches only that port', () => {
    const pattern = MatchPattern.parse('http://localhost:8080/*');
    expect(pattern.matches('http://localhost:8080/')).toBe(true);
    expect(pattern.matches('http://localhost:8081/')).toBe(false);
    expect(pattern.matches('http://localhost/')).toBe(false);
  });

  it('an explicit port is compared with the URL\'s effective port, so :80 matches a URL without a port', () => {
    expect(matches('http://www.example.com:80/foo', 'http://www.example.com/foo')).toBe(true);
    expect(matches('http://www.example.com:80/foo', 'http://www.example.com:80/foo')).toBe(true);
    expect(matches('https://example.com:443/*', 'https://example.com/')).toBe(true);
    expect(matches('wss://example.com:443/*', 'wss://example.com/')).toBe(true);
    expect(matches('ws://example.com:80/*', 'ws://example.com/')).toBe(true);
    expect(matches('ftp://example.com:21/*', 'ftp://example.com/')).toBe(true);
    expect(matches('https://example.com:80/*', 'https://example.com/')).toBe(false);
  });

  it('":*" means any port', () => {
    expect(matches('http://www.example.com:*/foo', 'http://www.example.com:8080/foo')).toBe(true);
    expect(matches('http://www.example.com:*/foo', 'http://www.example.com/foo')).toBe(true);
    expect(matches('*://*:*/*', 'https://example.com:1/')).toBe(true);
  });

  it('no port in the pattern means any port', () => {
    expect(matches('http://localhost/*', 'http://localhost:3000/x')).toBe(true);
    expect(matches('*://*.example.com/*', 'https://api.example.com:8443/')).toBe(true);
  });

  it('an invalid port is an error: empty, non-numeric, out of range, or a second colon', () => {
    for (const port of ['', 'com', '123456', '65536', '-1', '8a', '+80', '80:80', ' 80']) {
      expect(parseError(`http://foo:${port}/`).reason, port).toBe(
        `port ${JSON.stringify(port)} must be a number from 0 to 65535, or "*"`,
      );
    }
    expect(parseError('http://*.foo:/').reason).toContain('port ""');
    expect(parseError('http://[::1]:/*').reason).toContain('port ""');
  });

  it('ports 0 and 65535 are valid', () => {
    expect(validateMatchPattern('http://foo:0/')).toBeUndefined();
    expect(validateMatchPattern('http://foo:65535/')).toBeUndefined();
  });

  it('a numeric port needs an explicit scheme, as in Chrome ("*" has no default port)', () => {
    expect(parseError('*://localhost:8080/*').reason).toContain('a numeric port needs an explicit scheme');
    expect(validateMatchPattern('*://localhost:*/*')).toBeUndefined();
  });

  it('a port with leading zeros is compared as a number ("080" matches :80)', () => {
    expect(matches('http://example.com:080/*', 'http://example.com/')).toBe(true);
  });

  it('port-like text in the path is path, not port ("Port-like strings in the path should not trigger a warning")', () => {
    expect(matches('http://*/:1234', 'http://example.com/:1234')).toBe(true);
    expect(matches('http://foo/bar:1234/path', 'http://foo:9999/bar:1234/path')).toBe(true);
  });
});

describe('path: "*" matches any run of characters; everything else is literal', () => {
  it('"*" matches any sequence, including "/" and nothing', () => {
    const pattern = MatchPattern.parse('https://example.com/foo*bar');
    expect(pattern.matches('https://example.com/foobar')).toBe(true);
    expect(pattern.matches('https://example.com/foo/x/y/bar')).toBe(true);
    expect(pattern.matches('https://example.com/foo/bar/baz')).toBe(false);
    expect(pattern.matches('https://example.com/xfoobar')).toBe(false);
  });

  it('matches against path plus query ("http://*.google.com/foo*bar" matches "http://www.google.com/foo?bar")', () => {
    expect(matches('http://*.google.com/foo*bar', 'http://www.google.com/foo?bar')).toBe(true);
    expect(matches('http://example.com/search?q=*', 'http://example.com/search?q=cats')).toBe(true);
    expect(matches('http://example.com/search', 'http://example.com/search?q=cats')).toBe(false);
  });

  it('never matches against the fragment', () => {
    expect(matches('http://example.com/page', 'http://example.com/page#section')).toBe(true);
    expect(matches('http://example.com/*section', 'http://example.com/page#section')).toBe(false);
    expect(matches('http://example.com/page?a', 'http://example.com/page?a#b')).toBe(true);
  });

  it('an empty query is kept as "?", as in Chrome\'s PathForRequest', () => {
    expect(matches('http://example.com/a?', 'http://example.com/a?')).toBe(true);
    expect(matches('http://example.com/a?', 'http://example.com/a?#frag')).toBe(true);
    expect(matches('http://example.com/a', 'http://example.com/a?')).toBe(false);
    expect(matches('http://example.com/a', 'http://example.com/a#')).toBe(true);
  });

  it('regex metacharacters are literal: . ? + ( ) [ ] $ ^ | { } \\', () => {
    expect(matches('http://h/a.b', 'http://h/axb')).toBe(false);
    expect(matches('http://h/a.b', 'http://h/a.b')).toBe(true);
    expect(matches('http://h/a?b', 'http://h/axb')).toBe(false);
    expect(matches('http://h/a?b', 'http://h/a?b')).toBe(true);
    expect(matches('http://h/a+', 'http://h/aaa')).toBe(false);
    expect(matches('http://h/(a|b)', 'http://h/a')).toBe(false);
    expect(matches('http://h/(a|b)', 'http://h/(a|b)')).toBe(true);
    expect(matches('http://h/[ab]*', 'http://h/a')).toBe(false);
    expect(matches('http://h/[ab]*', 'http://h/[ab]x')).toBe(true);
    expect(matches('http://h/$^', 'http://h/$^')).toBe(true);
    expect(matches('http://h/x/.*', 'http://h/x/anything')).toBe(false);
    expect(matches('http://h/x/.*', 'http://h/x/.anything')).toBe(true);
  });

  it('"glob escaping": a backslash is literal too ("file:///foo?bar\\\\*baz")', () => {
    const pattern = MatchPattern.parse('file:///foo?bar\\*baz');
    expect(pattern.matches('file:///foo?bar\\hellobaz')).toBe(true);
    expect(pattern.matches('file:///fooXbar\\hellobaz')).toBe(false);
  });

  it('stars match leftmost-first without overlapping the literal pieces around them', () => {
    expect(matches('http://h/a*b*b', 'http://h/ab')).toBe(false);
    expect(matches('http://h/a*b*b', 'http://h/abb')).toBe(true);
    expect(matches('http://h/*ab*ba*', 'http://h/aba')).toBe(false);
    expect(matches('http://h/*ab*ba*', 'http://h/abba')).toBe(true);
    expect(matches('http://h/a**b', 'http://h/ab')).toBe(true);
    expect(matches('http://h/*/', 'http://h/')).toBe(false);
  });

  it('paths compare case-sensitively', () => {
    expect(matches('http://h/Foo', 'http://h/foo')).toBe(false);
  });

  it('"The not terminated path should match the terminated pattern": "/example/*" matches "/example"', () => {
    expect(matches('http://www.example.com/example/*', 'http://www.example.com/example')).toBe(true);
    expect(matches('http://www.example.com/example/*', 'http://www.example.com/example/')).toBe(true);
    expect(matches('http://www.example.com/example', 'http://www.example.com/example/')).toBe(false);
    expect(matches('http://www.example.com/example/*', 'http://www.example.com/examplex')).toBe(false);
  });

  it('a pattern path is compared with the URL\'s percent-encoded path, as in Chrome', () => {
    expect(matches('http://h/a%20b', 'http://h/a b')).toBe(true);
    expect(matches('http://h/%F0%9F%90%B1*', 'http://h/🐱x')).toBe(true);
    expect(matches('http://h/🐱*', 'http://h/🐱x')).toBe(false);
  });

  it('stays fast with many stars on long paths (no regex backtracking)', () => {
    const pattern = MatchPattern.parse(`http://h/${'*a'.repeat(20)}*b`);
    const url = new URL(`http://h/${'a'.repeat(20_000)}`);
    const started = performance.now();
    expect(pattern.matches(url)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('URL normalization: URLs are parsed like the WHATWG URL parser (new URL)', () => {
  it('"HTTP://Example.COM:80/" matches "http://example.com/*" (scheme and host lowercased, default port removed)', () => {
    expect(matches('http://example.com/*', 'HTTP://Example.COM:80/')).toBe(true);
    expect(matches('http://example.com/', 'HTTP://Example.COM:80')).toBe(true);
  });

  it('dot segments are resolved before matching', () => {
    expect(matches('http://h/b', 'http://h/a/../b')).toBe(true);
    expect(matches('http://h/a/*', 'http://h/a/../b')).toBe(false);
  });

  it('userinfo is ignored', () => {
    expect(matches('http://example.com/*', 'http://user:pass@example.com/')).toBe(true);
  });

  it('accepts a URL object and gives the same answer as for its string', () => {
    const pattern = MatchPattern.parse('https://*.example.com/a*');
    for (const text of ['https://x.example.com/abc', 'https://example.org/abc', 'http://x.example.com/a']) {
      expect(pattern.matches(new URL(text))).toBe(pattern.matches(text));
    }
  });

  it('returns false, never throws, for unparseable input', () => {
    const pattern = MatchPattern.parse('<all_urls>');
    for (const input of ['', ' ', '://', 'http://', 'http://[::1', 'http://exa mple.com/', '%%%']) {
      expect(pattern.matches(input), input).toBe(false);
    }
    expect(pattern.matches(undefined as unknown as string)).toBe(false);
    expect(pattern.matches(null as unknown as string)).toBe(false);
    expect(pattern.matches(42 as unknown as string)).toBe(false);
  });
});

describe('MatchPatternSet', () => {
  it('matches when any pattern matches', () => {
    const set = new MatchPatternSet(['https://a.example/*', '*://*.b.example/x*']);
    expect(set.matches('https://a.example/anything')).toBe(true);
    expect(set.matches('http://www.b.example/xyz')).toBe(true);
    expect(set.matches('http://a.example/')).toBe(false);
    expect(set.matches('not a url')).toBe(false);
  });

  it('an empty set matches nothing', () => {
    const set = new MatchPatternSet([]);
    expect(set.matches('http://example.com/')).toBe(false);
    expect(set.matchesAll).toBe(false);
  });

  it('keeps the parsed patterns in order, with their original text', () => {
    const set = new MatchPatternSet(['*://*.gOoGle.com/*', '<all_urls>']);
    expect(set.patterns.map((pattern) => pattern.pattern)).toEqual(['*://*.gOoGle.com/*', '<all_urls>']);
    expect(set.patterns[0]).toBeInstanceOf(MatchPattern);
  });

  it('throws a MatchPatternError naming the first bad pattern', () => {
    let thrown: unknown;
    try {
      new MatchPatternSet(['http://ok.example/*', 'http://*bad/', 'nope']);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(MatchPatternError);
    expect((thrown as MatchPatternError).pattern).toBe('http://*bad/');
    expect((thrown as MatchPatternError).message).toBe('Invalid match pattern "http://*bad/": host may only start with "*."');
  });

  it('matchesAll is true with <all_urls>', () => {
    expect(new MatchPatternSet(['http://x/', '<all_urls>']).matchesAll).toBe(true);
  });

  it('matchesAll is false for "*://*/*", which covers only http and https', () => {
    expect(new MatchPatternSet(['*://*/*']).matchesAll).toBe(false);
    expect(new MatchPatternSet(['*://*/*', 'ws://*/*', 'wss://*/*', 'ftp://*/*']).matchesAll).toBe(false);
  });

  it('matchesAll is true when every permitted scheme is fully covered', () => {
    expect(new MatchPatternSet(['*://*/*', 'ws://*/*', 'wss://*:*/*', 'ftp://*/*', 'file:///*']).matchesAll).toBe(true);
  });

  it('matchesAll is false when a host, port or path narrows the cover', () => {
    const rest = ['ws://*/*', 'wss://*/*', 'ftp://*/*', 'file:///*'];
    expect(new MatchPatternSet(['*://*.com/*', ...rest]).matchesAll).toBe(false);
    expect(new MatchPatternSet(['http://*:80/*', 'https://*/*', ...rest]).matchesAll).toBe(false);
    expect(new MatchPatternSet(['*://*/a*', ...rest]).matchesAll).toBe(false);
  });
});

describe('validateMatchPattern and MatchPatternError', () => {
  it('returns undefined for a valid pattern', () => {
    for (const pattern of ['<all_urls>', '*://*/*', 'http://127.0.0.1/*', 'file:///*', 'wss://*.example.com:443/socket']) {
      expect(validateMatchPattern(pattern), pattern).toBeUndefined();
    }
  });

  it('returns the message parse would throw, quoting the pattern', () => {
    const message = validateMatchPattern('http://*foo/');
    expect(message).toBe('Invalid match pattern "http://*foo/": host may only start with "*."');
    expect(message).toBe(parseError('http://*foo/').message);
  });

  it('MatchPatternError is a TypeError carrying the pattern and the reason', () => {
    const error = parseError('http://bar');
    expect(error).toBeInstanceOf(TypeError);
    expect(error.name).toBe('MatchPatternError');
    expect(error.pattern).toBe('http://bar');
    expect(error.reason).toMatch(/^missing path/);
  });

  it('MatchPattern keeps the original text and prints as it', () => {
    const pattern = MatchPattern.parse('*://*.gOoGle.com/*');
    expect(pattern.pattern).toBe('*://*.gOoGle.com/*');
    expect(String(pattern)).toBe('*://*.gOoGle.com/*');
  });
});

// --- Property tests ----------------------------------------------------------------------------

/** A URL as the generator built it, before any parsing. */
interface GeneratedUrl {
  scheme: string;
  /** As written: may be upper case or end in a dot. */
  host: string;
  port: string | undefined;
  /** Path plus query as written ("/a?b"), which the generator keeps free of anything the URL parser rewrites. */
  pathAndQuery: string;
  fragment: string | undefined;
}

function urlText(url: GeneratedUrl): string {
  const port = url.port === undefined ? '' : `:${url.port}`;
  const fragment = url.fragment === undefined ? '' : `#${url.fragment}`;
  return `${url.scheme}://${url.host}${port}${url.pathAndQuery}${fragment}`;
}

const REFERENCE_DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443, ws: 80, wss: 443, ftp: 21 };

/** Deliberately naive: splits the pattern by hand and compares piece by piece. */
function referenceMatches(pattern: string, url: GeneratedUrl): boolean {
  if (!['http', 'https', 'ws', 'wss', 'ftp', 'file'].includes(url.scheme)) return false;
  if (pattern === '<all_urls>') return true;

  const schemeEnd = pattern.indexOf('://');
  const scheme = pattern.slice(0, schemeEnd);
  const rest = pattern.slice(schemeEnd + 3);
  if (scheme === '*') {
    if (url.scheme !== 'http' && url.scheme !== 'https') return false;
  } else if (scheme !== url.scheme) {
    return false;
  }

  const path = rest.slice(rest.indexOf('/'));
  if (scheme !== 'file') {
    const hostAndPort = rest.slice(0, rest.indexOf('/'));
    let host = hostAndPort;
    let port: string | undefined;
    if (hostAndPort.startsWith('[')) {
      host = hostAndPort.slice(0, hostAndPort.indexOf(']') + 1);
      if (host.length < hostAndPort.length) port = hostAndPort.slice(host.length + 1);
    } else if (hostAndPort.includes(':')) {
      [host, port] = hostAndPort.split(':') as [string, string];
    }
    if (!referenceHostMatches(host, url.host)) return false;
    const urlPort = url.port === undefined ? REFERENCE_DEFAULT_PORTS[url.scheme] : Number(url.port);
    if (port !== undefined && port !== '*' && Number(port) !== urlPort) return false;
  }
  // Chrome also lets "/foo/*" match exactly "/foo".
  return globMatches(path, url.pathAndQuery) || (!path.includes('?') && path === `${url.pathAndQuery}/*`);
}

function referenceHostMatches(patternHost: string, urlHost: string): boolean {
  const withoutDot = (host: string): string => (host.endsWith('.') ? host.slice(0, -1) : host).toLowerCase();
  const host = withoutDot(urlHost);
  if (patternHost === '*') return true;
  if (patternHost.startsWith('*.')) {
    const domain = withoutDot(patternHost.slice(2));
    const isIp = host.startsWith('[') || /^[\d.]+$/.test(host);
    return host === domain || (!isIp && host.length > domain.length + 1 && host.endsWith(`.${domain}`));
  }
  return withoutDot(patternHost) === host;
}

/** Simple recursive glob: "*" matches any run of characters, everything else itself. */
function globMatches(glob: string, text: string): boolean {
  if (glob === '') return text === '';
  if (glob[0] === '*') return globMatches(glob.slice(1), text) || (text !== '' && globMatches(glob, text.slice(1)));
  return text !== '' && glob[0] === text[0] && globMatches(glob.slice(1), text.slice(1));
}

const URL_SCHEMES = ['http', 'https', 'ws', 'wss', 'ftp', 'file'] as const;
const PATTERN_SCHEMES = ['*', ...URL_SCHEMES] as const;
const PATTERN_HOSTS = [
  '*',
  '*.example.com',
  '*.a.example.com',
  '*.com',
  'example.com',
  'a.example.com',
  'EXAMPLE.com',
  'example.com.',
  '*.Example.COM.',
  'localhost',
  '127.0.0.1',
  '[::1]',
] as const;
const URL_HOSTS = [
  'example.com',
  'a.example.com',
  'b.a.example.com',
  'xexample.com',
  'example.org',
  'EXAMPLE.COM',
  'example.com.',
  'A.Example.Com.',
  'com',
  'localhost',
  '127.0.0.1',
  '[::1]',
] as const;
const PATTERN_PORTS = [undefined, '*', '80', '443', '8080', '21', '080'] as const;
const URL_PORTS = [undefined, '80', '443', '8080', '21'] as const;
/** Literal path characters, regex metacharacters included, that the URL parser leaves alone. */
const PATH_CHARACTERS = ['a', 'b', '/', '.', '+', '(', ')', '$', '^', '|', '[', ']', '=', '&', '-'] as const;

// Two alphabets: the wide one exercises literal metacharacters, the narrow one makes repeated
// pieces ("/a*b*b") common enough to exercise the glob's backtracking cases.
const patternPathArbitrary = fc
  .oneof(
    fc.string({ unit: fc.constantFrom(...PATH_CHARACTERS, '*', '*', '?'), maxLength: 8 }),
    fc.string({ unit: fc.constantFrom('a', 'b', '/', '*'), maxLength: 8 }),
  )
  .map((path) => `/${path}`);

interface PatternParts {
  scheme: string;
  host: string;
  port: string | undefined;
  path: string;
}

const patternPartsArbitrary: fc.Arbitrary<PatternParts> = fc
  .record({
    scheme: fc.constantFrom(...PATTERN_SCHEMES),
    host: fc.constantFrom(...PATTERN_HOSTS),
    port: fc.constantFrom(...PATTERN_PORTS),
    path: patternPathArbitrary,
  })
  // Chrome allows a numeric port only with an explicit scheme.
  .map((parts) => (parts.scheme === '*' && parts.port !== undefined && parts.port !== '*' ? { ...parts, port: '*' } : parts));

function patternText(parts: PatternParts): string {
  if (parts.scheme === 'file') return `file://${parts.path}`;
  const port = parts.port === undefined ? '' : `:${parts.port}`;
  return `${parts.scheme}://${parts.host}${port}${parts.path}`;
}

const patternArbitrary: fc.Arbitrary<string> = fc.oneof(
  { weight: 1, arbitrary: fc.constant('<all_urls>') },
  { weight: 12, arbitrary: patternPartsArbitrary.map(patternText) },
);

/** A path segment that is never "." or "..", which the URL parser would resolve away. */
const segmentArbitrary = fc
  .string({ unit: fc.constantFrom(...PATH_CHARACTERS.filter((c) => c !== '/'), '*'), maxLength: 4 })
  .map((segment) => (/^\.+$/.test(segment) ? `a${segment}` : segment));

const pathAndQueryArbitrary = fc
  .tuple(
    fc.array(segmentArbitrary, { minLength: 1, maxLength: 3 }),
    fc.option(fc.string({ unit: fc.constantFrom(...PATH_CHARACTERS, '*', '?'), maxLength: 5 }), { nil: undefined }),
  )
  .map(([segments, query]) => `/${segments.join('/')}${query === undefined ? '' : `?${query}`}`);

const fragmentArbitrary = fc.option(fc.string({ unit: fc.constantFrom('a', '*', '?', '/', '#'), maxLength: 3 }), { nil: undefined });

const independentUrlArbitrary: fc.Arbitrary<GeneratedUrl> = fc
  .record({
    scheme: fc.constantFrom(...URL_SCHEMES),
    host: fc.constantFrom(...URL_HOSTS),
    port: fc.constantFrom(...URL_PORTS),
    pathAndQuery: pathAndQueryArbitrary,
    fragment: fragmentArbitrary,
  })
  // file: URLs cannot have a port.
  .map((url) => (url.scheme === 'file' ? { ...url, port: undefined } : url));

/** A URL built to sit near a pattern (its stars filled in), so that matches are common. */
function urlNearPattern(parts: PatternParts): fc.Arbitrary<GeneratedUrl> {
  const scheme = parts.scheme === '*' ? fc.constantFrom('http', 'https', 'ws') : fc.constant(parts.scheme);
  const bareHost = parts.host.replace(/^\*\.?/, '');
  const host =
    parts.host === '*'
      ? fc.constantFrom(...URL_HOSTS)
      : bareHost.startsWith('[') || /^[\d.]+$/.test(bareHost)
        ? fc.constantFrom(bareHost, '[::2]', '127.0.0.2')
        : fc.constantFrom(bareHost, `x.${bareHost}`, `x${bareHost}`, bareHost.toUpperCase(), `${bareHost.replace(/\.$/, '')}.`);
  const port =
    parts.port === undefined || parts.port === '*' ? fc.constantFrom(...URL_PORTS) : fc.constantFrom(parts.port, undefined, '8081');
  const filler = fc.string({ unit: fc.constantFrom('a', 'b', '/', '.', '?', '*'), maxLength: 3 });
  const starCount = parts.path.split('*').length - 1;
  const path = fc
    .tuple(
      fc.array(filler, { minLength: starCount, maxLength: starCount }),
      fc.boolean(),
      // Sometimes drop one character after the leading "/", for near misses such as "/ab" against "/a*b*b".
      fc.option(fc.nat(), { nil: undefined }),
    )
    .map(([fillers, dropTrailingSlashStar, dropAt]) => {
      if (dropTrailingSlashStar && parts.path.endsWith('/*') && parts.path.length > 2) return parts.path.slice(0, -2);
      let index = 0;
      const filled = parts.path.replace(/\*/g, () => fillers[index++] ?? '');
      if (dropAt === undefined || filled.length < 2) return filled;
      const at = 1 + (dropAt % (filled.length - 1));
      return filled.slice(0, at) + filled.slice(at + 1);
    });
  return fc
    .record({ scheme, host, port, pathAndQuery: path, fragment: fragmentArbitrary })
    .map((url) => (url.scheme === 'file' ? { ...url, port: undefined } : url));
}

/**
 * True when the URL parser keeps path and query exactly as generated: no dot segment resolved,
 * nothing percent-encoded, no Windows drive letter ("/a|") rewritten in a file: URL.
 */
function parserKeepsPathAndQuery(url: GeneratedUrl): boolean {
  const text = `${url.scheme}://h${url.pathAndQuery}`;
  return URL.canParse(text) && new URL(text).href === text;
}

const patternAndUrlArbitrary = fc.oneof(
  fc.tuple(patternArbitrary, independentUrlArbitrary),
  patternPartsArbitrary.chain((parts) => fc.tuple(fc.constant(patternText(parts)), urlNearPattern(parts))),
);

describe('property: MatchPattern agrees with a naive reference matcher', () => {
  it('on random patterns and URLs from small alphabets (schemes, hosts, ports, paths with * and regex metacharacters)', () => {
    let matched = 0;
    let total = 0;
    fc.assert(
      fc.property(patternAndUrlArbitrary, ([pattern, url]) => {
        fc.pre(parserKeepsPathAndQuery(url));
        const text = urlText(url);
        expect(URL.canParse(text), text).toBe(true);
        const expected = referenceMatches(pattern, url);
        total += 1;
        if (expected) matched += 1;
        const compiled = MatchPattern.parse(pattern);
        expect(compiled.matches(text), `${pattern} vs ${text}`).toBe(expected);
        expect(compiled.matches(new URL(text)), `${pattern} vs URL(${text})`).toBe(expected);
      }),
      { numRuns: 10_000 },
    );
    // Both outcomes must be well represented, or the property proves little.
    expect(matched / total).toBeGreaterThan(0.05);
    expect(matched / total).toBeLessThan(0.95);
  });

  it('a set matches exactly when one of its patterns does', () => {
    fc.assert(
      fc.property(fc.array(patternArbitrary, { maxLength: 4 }), independentUrlArbitrary, (patterns, url) => {
        const text = urlText(url);
        const set = new MatchPatternSet(patterns);
        expect(set.matches(text)).toBe(set.patterns.some((pattern) => pattern.matches(text)));
      }),
      { numRuns: 500 },
    );
  });

  it('<all_urls> matches every generated http(s) URL', () => {
    const allUrls = MatchPattern.parse('<all_urls>');
    fc.assert(fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => allUrls.matches(url)));
  });

  it('matches never throws, whatever the input', () => {
    const patterns = ['<all_urls>', '*://*/*', 'http://*.example.com:8080/a*b', 'file:///*'].map((text) => MatchPattern.parse(text));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl(), fc.string({ unit: 'grapheme' })), (input) => {
        for (const pattern of patterns) expect(typeof pattern.matches(input)).toBe('boolean');
      }),
    );
  });
});

const NON_FILE_SCHEMES = ['http', 'https', 'ws', 'wss', 'ftp'] as const;
const validHostArbitrary = fc.constantFrom('example.com', '*.example.com', '*', 'localhost', '[::1]');

const invalidPatternArbitrary: fc.Arbitrary<string> = fc.oneof(
  // "*" anywhere in the host except alone or as a leading "*.".
  fc
    .tuple(
      fc.constantFrom(...PATTERN_SCHEMES.filter((scheme) => scheme !== 'file')),
      fc.string({ unit: fc.constantFrom('a', 'b', '.', '*'), minLength: 1, maxLength: 6 }),
      patternPathArbitrary,
    )
    .filter(([, host]) => host.includes('*') && !/^\*$|^\*\.[^*]+$/.test(host))
    .map(([scheme, host, path]) => `${scheme}://${host}${path}`),
  // No path after the host.
  fc.tuple(fc.constantFrom(...NON_FILE_SCHEMES), validHostArbitrary).map(([scheme, host]) => `${scheme}://${host}`),
  // A scheme outside the permitted ones.
  fc
    .tuple(fc.constantFrom('urn', 'data', 'chrome-extension', 'about', 'javascript', 'HTTP', 'Https', 'ftps', ''), patternPathArbitrary)
    .map(([scheme, path]) => `${scheme}://example.com${path}`),
  // No "://" after the scheme.
  fc
    .tuple(fc.constantFrom('http:/', 'http:', 'https//', '', 'ws:\\\\'), validHostArbitrary, patternPathArbitrary)
    .map(([prefix, host, path]) => `${prefix}${host}${path}`),
  // A port that is not "*" or 0–65535.
  fc
    .tuple(fc.constantFrom(...NON_FILE_SCHEMES), fc.constantFrom('', 'abc', '65536', '99999', '-1', '8a', '1.5', '80:80', ' 80', '0x50'))
    .map(([scheme, port]) => `${scheme}://example.com:${port}/`),
  // A numeric port with the "*" scheme.
  fc.integer({ min: 0, max: 65535 }).map((port) => `*://example.com:${port}/*`),
  // No host.
  fc.constantFrom('http:///x', 'http://:80/', 'http://*./', 'https://[]/', 'wss://', 'http://[::1/'),
);

describe('property: invalid patterns throw MatchPatternError', () => {
  it('every generated invalid pattern (e.g. "*" in the middle of a host) is rejected, and the message quotes it', () => {
    fc.assert(
      fc.property(invalidPatternArbitrary, (pattern) => {
        expect(() => MatchPattern.parse(pattern)).toThrow(MatchPatternError);
        expect(() => new MatchPatternSet(['<all_urls>', pattern])).toThrow(MatchPatternError);
        const message = validateMatchPattern(pattern);
        expect(message).toBeDefined();
        expect(message).toContain(`Invalid match pattern ${JSON.stringify(pattern)}: `);
      }),
      { numRuns: 1000 },
    );
  });

  it('every generated valid pattern parses, and validateMatchPattern agrees', () => {
    fc.assert(
      fc.property(patternArbitrary, (pattern) => {
        expect(validateMatchPattern(pattern)).toBeUndefined();
        expect(MatchPattern.parse(pattern).pattern).toBe(pattern);
      }),
      { numRuns: 500 },
    );
  });
});
