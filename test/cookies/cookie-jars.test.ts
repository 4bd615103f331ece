// CookieJars: what the request lifecycle and the proxy call on every request, and toSpecCookie.
import { Cookie as ToughCookie } from 'tough-cookie';
import { describe, expect, it } from 'vitest';
import { CookieJars } from '../../src/engine/cookies/cookie-jars.js';
import { toSpecCookie } from '../../src/engine/cookies/spec-cookie.js';
import { T0, recordingJars } from './helpers.js';

describe('CookieJars.cookieHeader', () => {
  it('orders cookies as RFC 6265 §5.4 says: longer paths first, then earlier creation', () => {
    const { jars, clock } = recordingJars();
    jars.setFromResponse('http://www.example.com/a/b/c', ['first=1; Path=/']);
    clock.advance(1);
    jars.setFromResponse('http://www.example.com/a/b/c', ['deep=1; Path=/a/b']);
    clock.advance(1);
    jars.setFromResponse('http://www.example.com/a/b/c', ['second=1; Domain=example.com; Path=/']);
    clock.advance(1);
    jars.setFromResponse('http://www.example.com/a/b/c', ['mid=1; Path=/a']);
    expect(jars.cookieHeader('http://www.example.com/a/b/c')).toBe('deep=1; mid=1; first=1; second=1');
  });

  it('a cross-site request carries only SameSite=None cookies, and its response may set only those (without the attribute a cookie is Lax in Chrome, None in Firefox)', () => {
    const jars = new CookieJars();
    const url = 'https://api.example.com/';
    jars.setFromResponse(url, ['unset=1', 'lax=1; SameSite=Lax', 'strict=1; SameSite=Strict', 'none=1; SameSite=None; Secure']);
    expect(jars.cookieHeader(url)).toBe('unset=1; lax=1; strict=1; none=1');
    expect(jars.cookieHeader(url, '0', { unsetIs: 'lax' })).toBe('none=1');
    // Firefox counts a cookie without the attribute as None.
    expect(jars.cookieHeader(url, '0', { unsetIs: 'none' })).toBe('unset=1; none=1');
    const result = jars.setFromResponse(url, ['fromafar=1', 'strictafar=1; SameSite=Strict', 'noneafar=1; SameSite=None; Secure'], '0', { unsetIs: 'lax' });
    expect(result.stored).toBe(1);
    expect(result.rejected.map((rejection) => rejection.reason)).toEqual([
      'it came from a cross-site response and is SameSite=Lax (by default, without the attribute), which only SameSite=None allows',
      'it came from a cross-site response and is SameSite=Strict, which only SameSite=None allows',
    ]);
    expect(jars.cookieHeader(url, '0', { unsetIs: 'lax' })).toBe('none=1; noneafar=1');
    expect(jars.setFromResponse(url, ['unsetafar=1'], '0', { unsetIs: 'none' }).stored).toBe(1);
  });

  it('is empty for unparseable urls and schemes that carry no cookies', () => {
    const jars = new CookieJars();
    jars.setFromResponse('http://example.com/', ['a=1']);
    expect(jars.cookieHeader('not a url')).toBe('');
    expect(jars.cookieHeader('ftp://example.com/')).toBe('');
    expect(jars.cookieHeader('ws://example.com/socket')).toBe('a=1');
  });

  it('sends Secure cookies to https, wss and localhost only', () => {
    const jars = new CookieJars();
    jars.setFromResponse('https://example.com/', ['s=1; Secure']);
    jars.setFromResponse('http://localhost:3000/', ['l=1; Secure']);
    expect(jars.cookieHeader('http://example.com/')).toBe('');
    expect(jars.cookieHeader('wss://example.com/')).toBe('s=1');
    expect(jars.cookieHeader('http://localhost:3000/')).toBe('l=1');
  });

  it('matches paths as Chrome does: %-escaped unreserved characters in the request path are decoded, cookie paths are not', () => {
    const jars = new CookieJars();
    jars.setFromResponse('http://example.com/foo/', ['a=1; Path=/foo']);
    jars.setFromResponse('http://example.com/foo/', ['b=1; Path=/f%6Fo']);
    expect(jars.cookieHeader('http://example.com/f%6Fo/x')).toBe('a=1');
    expect(jars.cookieHeader('http://example.com/foo/x')).toBe('a=1');
  });

  it('works for IPv6 hosts (a Domain equal to the address gives a host-only cookie, reported in brackets as Chrome does)', () => {
    const jars = new CookieJars();
    expect(jars.setFromResponse('http://[::1]:8080/', ['a=1', 'b=2; Domain=::1']).stored).toBe(2);
    expect(jars.cookieHeader('http://[0:0::1]/x')).toBe('a=1; b=2');
    expect(jars.allCookies().map((cookie) => toSpecCookie(cookie, '0'))).toEqual([
      expect.objectContaining({ domain: '[::1]', hostOnly: true }),
      expect.objectContaining({ domain: '[::1]', hostOnly: true }),
    ]);
  });

  it('throws for an unknown store id (a programming error, not traffic)', () => {
    expect(() => new CookieJars().cookieHeader('http://example.com/', '9')).toThrow(/Unknown cookie store id "9"/);
  });
});

describe('CookieJars.setFromResponse', () => {
  it('ignores headers a browser ignores, silently, but says which and why', () => {
    const jars = new CookieJars();
    const outcome = jars.setFromResponse('http://www.example.com/', [
      'ok=1',
      'novalue', // RFC 6265: no "=" → ignored
      'a=1; Domain=other.com',
      'b=1; Domain=com',
      's=1; Secure',
      '__Host-h=1; Path=/',
      'n=1; SameSite=None',
    ]);
    expect(outcome.stored).toBe(1);
    expect(outcome.rejected).toEqual([
      { header: 'novalue', reason: 'Cookie failed to parse' },
      { header: 'a=1; Domain=other.com', reason: "Cookie not in this host's domain. Cookie:other.com Request:www.example.com" },
      { header: 'b=1; Domain=com', reason: 'Cookie has domain set to a public suffix' },
      { header: 's=1; Secure', reason: 'Cookie is Secure but this is not a secure connection' },
      { header: '__Host-h=1; Path=/', reason: "Cookie has the __Host- prefix but is not Secure, has a Domain, or its Path is not '/'" },
      { header: 'n=1; SameSite=None', reason: 'Cookie has SameSite=None but is not Secure' },
    ]);
    expect(jars.cookieHeader('http://www.example.com/')).toBe('ok=1');
  });

  it('a Domain attribute equal to an IP address or intranet host makes a host-only cookie (Chrome)', () => {
    const jars = new CookieJars();
    expect(jars.setFromResponse('http://10.0.0.1/', ['ip=1; Domain=10.0.0.1']).stored).toBe(1);
    expect(jars.setFromResponse('http://intranet/', ['name=1; Domain=intranet']).stored).toBe(1);
    expect(jars.allCookies().map((cookie) => toSpecCookie(cookie, '0').domain).sort()).toEqual(['10.0.0.1', 'intranet']);
  });

  it('a non-secure origin cannot overwrite or shadow a Secure cookie (Chrome, RFC 6265bis §5.7)', () => {
    const jars = new CookieJars();
    jars.setFromResponse('https://example.com/', ['sid=secret; Secure; Path=/']);
    const outcome = jars.setFromResponse('http://example.com/account', ['sid=evil; Path=/account']);
    expect(outcome.rejected[0]?.reason).toMatch(/would overwrite or shadow a Secure cookie/);
    expect(jars.setFromResponse('http://example.com/', ['other=1']).stored).toBe(1);
    expect(jars.cookieHeader('https://example.com/account')).toBe('sid=secret; other=1');
  });

  it('refuses name+value longer than 4096 characters (Chrome)', () => {
    const outcome = new CookieJars().setFromResponse('http://example.com/', [`a=${'x'.repeat(4096)}`, `b=${'x'.repeat(4095)}`]);
    expect(outcome.stored).toBe(1);
    expect(outcome.rejected[0]!.reason).toMatch(/exceed 4096/);
  });

  it('never throws, even for an unusable url', () => {
    const outcome = new CookieJars().setFromResponse('nonsense', ['a=1']);
    expect(outcome).toEqual({ stored: 0, rejected: [{ header: 'a=1', reason: 'Cookies cannot be set for nonsense' }] });
  });
});

describe('toSpecCookie (spec §2.1, as Chrome reports cookies)', () => {
  it('domain cookies get a leading dot, host-only cookies the bare host', () => {
    const domainCookie = new ToughCookie({ key: 'a', value: '1', domain: 'example.com', hostOnly: false, path: '/' });
    const hostCookie = new ToughCookie({ key: 'b', value: '2', domain: 'www.example.com', hostOnly: true, path: '/x' });
    expect(toSpecCookie(domainCookie, '0')).toMatchObject({ domain: '.example.com', hostOnly: false });
    expect(toSpecCookie(hostCookie, '1')).toEqual({
      domain: 'www.example.com',
      hostOnly: true,
      httpOnly: false,
      name: 'b',
      path: '/x',
      secure: false,
      session: true,
      storeId: '1',
      value: '2',
    });
  });

  it('expirationDate is seconds since the epoch (fractional when needed), only for persistent cookies', () => {
    const cookie = new ToughCookie({ key: 'a', value: '1', domain: 'example.com', hostOnly: true, path: '/', expires: new Date(T0 + 1500) });
    const spec = toSpecCookie(cookie, '0');
    expect(spec.session).toBe(false);
    expect(spec.expirationDate).toBe(T0 / 1000 + 1.5);
    expect(Object.keys(spec)).toEqual(['domain', 'expirationDate', 'hostOnly', 'httpOnly', 'name', 'path', 'secure', 'session', 'storeId', 'value']);
    const session = toSpecCookie(new ToughCookie({ key: 's', value: '', domain: 'example.com', path: '/' }), '0');
    expect(session.session).toBe(true);
    expect('expirationDate' in session).toBe(false);
  });

  it('a Max-Age cookie not yet normalised by a store counts from its creation', () => {
    const cookie = new ToughCookie({ key: 'a', value: '1', domain: 'example.com', path: '/', maxAge: 60, creation: new Date(T0) });
    expect(toSpecCookie(cookie, '0').expirationDate).toBe(T0 / 1000 + 60);
  });
});
