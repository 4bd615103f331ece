// spec §4.3 set(details, callback): every row of the defaults table, overwrites, failures.
import { describe, expect, it } from 'vitest';
import { MAX_COOKIE_LIFETIME_MS } from '../../src/engine/cookies/expiry.js';
import type { Cookie } from '../../src/engine/types.js';
import { T0, call, chromeCookies, recordingJars } from './helpers.js';

function setup() {
  const { jars, clock, take } = recordingJars();
  const refusals: string[] = [];
  const { cookies, runtime } = chromeCookies(jars, undefined, { onSetRefused: (_details, reason) => refusals.push(reason) });
  const set = (details: Parameters<typeof cookies.set>[0]) => call<Cookie | null>((done) => cookies.set(details, done), runtime);
  return { jars, clock, take, cookies, runtime, set, refusals };
}

describe('spec §4.3 cookies.set — defaults', () => {
  it('url "Request-URI for the cookie; affects default domain and path"; the callback gets the cookie that was set', async () => {
    const { set } = setup();
    const { result, lastError } = await set({ url: 'http://www.example.com/shop/cart.html', name: 'a', value: '1' });
    expect(lastError).toBeUndefined();
    expect(result).toEqual({
      domain: 'www.example.com',
      hostOnly: true,
      httpOnly: false,
      name: 'a',
      path: '/shop',
      secure: false,
      session: true,
      storeId: '0',
      value: '1',
    });
  });

  it('name: default "Empty string" (a nameless cookie is sent as its bare value)', async () => {
    const { jars, set } = setup();
    const { result } = await set({ url: 'http://example.com/', value: 'v' });
    expect(result).toMatchObject({ name: '', value: 'v' });
    expect(jars.cookieHeader('http://example.com/')).toBe('v');
  });

  it('value: default "Empty string"', async () => {
    const { jars, set } = setup();
    const { result } = await set({ url: 'http://example.com/', name: 'n' });
    expect(result).toMatchObject({ name: 'n', value: '' });
    expect(jars.cookieHeader('http://example.com/')).toBe('n=');
  });

  it('name and value both left empty: Chrome refuses the cookie (no cookie content), and so does wrtui', async () => {
    const { set, refusals } = setup();
    expect(await set({ url: 'http://example.com/' })).toEqual({ result: null, lastError: 'Failed to parse or set cookie named "".' });
    expect(refusals).toEqual(['a cookie needs a name or a value']);
  });

  it('domain: "If omitted the cookie is host-only"; given, it is a domain cookie (leading dot optional)', async () => {
    const { set } = setup();
    expect((await set({ url: 'http://www.example.com/', name: 'h' })).result).toMatchObject({ domain: 'www.example.com', hostOnly: true });
    expect((await set({ url: 'http://www.example.com/', name: 'd', domain: 'example.com' })).result).toMatchObject({
      domain: '.example.com',
      hostOnly: false,
    });
    expect((await set({ url: 'http://www.example.com/', name: 'e', domain: '.Example.COM' })).result).toMatchObject({
      domain: '.example.com',
      hostOnly: false,
    });
  });

  it('path: default "Path portion of url" — as Chrome (RFC 6265 default-path), the directory of the url\'s path', async () => {
    const { set } = setup();
    expect((await set({ url: 'http://example.com/a/b/page.html?q=1', name: 'x' })).result).toMatchObject({ path: '/a/b' });
    expect((await set({ url: 'http://example.com/a/b/', name: 'y' })).result).toMatchObject({ path: '/a/b' });
    expect((await set({ url: 'http://example.com/page', name: 'z' })).result).toMatchObject({ path: '/' });
    expect((await set({ url: 'http://example.com', name: 'w' })).result).toMatchObject({ path: '/' });
    expect((await set({ url: 'http://example.com/a/b/page', name: 'v', path: '/a' })).result).toMatchObject({ path: '/a' });
  });

  it('secure: default false; httpOnly: default false; both settable', async () => {
    const { set } = setup();
    expect((await set({ url: 'https://example.com/', name: 'a' })).result).toMatchObject({ secure: false, httpOnly: false });
    expect((await set({ url: 'https://example.com/', name: 'b', secure: true, httpOnly: true })).result).toMatchObject({
      secure: true,
      httpOnly: true,
    });
  });

  it('expirationDate: "If omitted the cookie is a session cookie"; given, a persistent cookie expiring then (fractional seconds kept)', async () => {
    const { set } = setup();
    expect((await set({ url: 'http://example.com/', name: 's' })).result).toMatchObject({ session: true });
    const expirationDate = T0 / 1000 + 86_400.25;
    const { result } = await set({ url: 'http://example.com/', name: 'p', expirationDate });
    expect(result).toMatchObject({ session: false, expirationDate });
  });

  it('expirationDate later than 400 days from now is capped there (Chrome)', async () => {
    const { set } = setup();
    const { result } = await set({ url: 'http://example.com/', name: 'p', expirationDate: T0 / 1000 + 10 * 365 * 86_400 });
    expect(result?.expirationDate).toBe((T0 + MAX_COOKIE_LIFETIME_MS) / 1000);
  });

  it('storeId: default the current execution context\'s store ("0"); "1" writes the incognito store only', async () => {
    const { jars, set } = setup();
    await set({ url: 'http://example.com/', name: 'a', storeId: '1' });
    expect(jars.cookieHeader('http://example.com/', '1')).toBe('a=');
    expect(jars.cookieHeader('http://example.com/', '0')).toBe('');
  });
});

describe('spec §4.3 cookies.set — overwriting', () => {
  it('"May overwrite equivalent cookies": same name, domain and path → overwrite then explicit', async () => {
    const { set, take } = setup();
    await set({ url: 'http://example.com/', name: 'a', value: '1', path: '/' });
    take();
    const { result } = await set({ url: 'http://example.com/', name: 'a', value: '2', path: '/' });
    expect(result).toMatchObject({ value: '2' });
    expect(take()).toEqual(['removed overwrite a=1', 'added explicit a=2']);
  });

  it('an expirationDate in the past removes the equivalent cookie (expired_overwrite) and answers null without lastError', async () => {
    const { set, take } = setup();
    await set({ url: 'http://example.com/', name: 'a', value: '1' });
    take();
    expect(await set({ url: 'http://example.com/', name: 'a', expirationDate: 0 })).toEqual({ result: null, lastError: undefined });
    expect(take()).toEqual(['removed expired_overwrite a=1']);
  });

  it('answers with the cookie of that name the url now receives (Chrome reads it back), longest path first', async () => {
    const { set } = setup();
    await set({ url: 'http://example.com/a/b', name: 'a', value: 'deeper', path: '/a' });
    const { result } = await set({ url: 'http://example.com/a/b', name: 'a', value: 'root', path: '/' });
    expect(result).toMatchObject({ value: 'deeper', path: '/a' });
  });
});

describe('spec §4.3 cookies.set — failures: "null on failure" with runtime.lastError, and nothing changes', () => {
  const failures: [string, Parameters<ReturnType<typeof setup>['set']>[0]][] = [
    ['domain not matching the url host', { url: 'http://www.example.com/', name: 'a', domain: 'other.com' }],
    ['domain a sibling of the url host', { url: 'http://www.example.com/', name: 'a', domain: 'api.example.com' }],
    ['domain a public suffix', { url: 'http://www.example.com/', name: 'a', domain: 'com' }],
    ['Secure cookie for an http url', { url: 'http://www.example.com/', name: 'a', secure: true }],
    ['name with a ";"', { url: 'http://www.example.com/', name: 'a;b' }],
    ['name with "="', { url: 'http://www.example.com/', name: 'a=b' }],
    ['value with a control character', { url: 'http://www.example.com/', name: 'a', value: 'x\ny' }],
    ['path not starting with "/"', { url: 'http://www.example.com/', name: 'a', path: 'docs' }],
    ['name plus value over 4096 characters', { url: 'http://www.example.com/', name: 'a', value: 'x'.repeat(4096) }],
    ['sameSite no_restriction without Secure', { url: 'https://www.example.com/', name: 'a', sameSite: 'no_restriction' }],
    ['__Secure- prefix without Secure', { url: 'https://www.example.com/', name: '__Secure-a' }],
    ['__Host- prefix with a Domain', { url: 'https://www.example.com/', name: '__Host-a', secure: true, domain: 'www.example.com' }],
    ['__Host- prefix with a path other than /', { url: 'https://www.example.com/', name: '__Host-a', secure: true, path: '/x' }],
    ['a non-http(s) url', { url: 'ftp://www.example.com/', name: 'a' }],
  ];

  it.each(failures)('%s', async (_why, details) => {
    const { jars, set, take } = setup();
    await set({ url: 'https://www.example.com/', name: 'keep', value: '1', secure: true });
    take();
    const before = jars.allCookies().map((cookie) => cookie.toString());
    const { result, lastError } = await set(details);
    expect(result).toBeNull();
    expect(lastError).toBe(`Failed to parse or set cookie named "${details.name ?? ''}".`);
    expect(take()).toEqual([]);
    expect(jars.allCookies().map((cookie) => cookie.toString())).toEqual(before);
  });

  it('a Secure cookie may be set for http://localhost (Chrome treats localhost as a secure context)', async () => {
    const { set } = setup();
    expect((await set({ url: 'http://localhost:8080/', name: 'a', secure: true })).result).toMatchObject({ secure: true });
  });

  it('a valid __Host- cookie is accepted (Secure, https, no domain, path /)', async () => {
    const { set } = setup();
    expect((await set({ url: 'https://www.example.com/app/', name: '__Host-a', secure: true, path: '/' })).result).toMatchObject({
      name: '__Host-a',
      hostOnly: true,
    });
  });

  it('an http url may not shadow a Secure cookie with a non-Secure one (Chrome, RFC 6265bis "leave secure cookies alone")', async () => {
    const { set, jars } = setup();
    await set({ url: 'https://example.com/', name: 'sid', value: 'secret', secure: true });
    expect((await set({ url: 'http://example.com/', name: 'sid', value: 'evil' })).lastError).toBe('Failed to parse or set cookie named "sid".');
    expect(jars.cookieHeader('https://example.com/')).toBe('sid=secret');
    expect((await set({ url: 'https://example.com/', name: 'sid', value: 'fine' })).result).toMatchObject({ value: 'fine', secure: false });
  });

  it('on an IP address host, a domain equal to the host gives a host-only cookie (Chrome); any other domain fails', async () => {
    const { set } = setup();
    expect((await set({ url: 'http://192.168.0.1/', name: 'a', domain: '192.168.0.1' })).result).toMatchObject({
      domain: '192.168.0.1',
      hostOnly: true,
    });
    expect((await set({ url: 'http://192.168.0.1/', name: 'b', domain: '168.0.1' })).lastError).toBe('Failed to parse or set cookie named "b".');
  });

  it('wrong argument types throw a TypeError at the call (the browser\'s bindings), before anything changes', () => {
    const { cookies, jars } = setup();
    const set = cookies.set as (...args: unknown[]) => unknown;
    expect(() => set({ url: 'http://example.com/', name: 'a', secure: 'yes' })).toThrow(
      /Error at property 'secure': Invalid type: expected boolean, found string/,
    );
    expect(() => set({ url: 'http://example.com/', name: 'a', expirationDate: '2030' })).toThrow(/expected number, found string/);
    expect(() => set({ url: 'http://example.com/', name: 'a', sameSite: 'sometimes' })).toThrow(/Value must be one of/);
    expect(() => set({ name: 'a' })).toThrow(/Missing required property 'url'/);
    expect(jars.allCookies()).toEqual([]);
  });
});
