// spec §4.1 get(details, callback)
import { describe, expect, it } from 'vitest';
import { T0, call, chromeCookies, recordingJars } from './helpers.js';

function setup() {
  const { jars, clock } = recordingJars();
  const { cookies, runtime } = chromeCookies(jars);
  const get = (details: Parameters<typeof cookies.get>[0]) => call((done) => cookies.get(details, done), runtime);
  return { jars, clock, cookies, runtime, get };
}

describe('spec §4.1 cookies.get', () => {
  it('returns the Cookie (spec §2.1 shape, as Chrome spells it) for url + name', async () => {
    const { jars, get } = setup();
    jars.setFromResponse('https://www.example.com/', ['sid=abc; Domain=example.com; Path=/; Secure; HttpOnly; Max-Age=3600']);
    const { result, lastError } = await get({ url: 'https://www.example.com/', name: 'sid' });
    expect(lastError).toBeUndefined();
    expect(result).toEqual({
      domain: '.example.com',
      expirationDate: T0 / 1000 + 3600,
      hostOnly: false,
      httpOnly: true,
      name: 'sid',
      path: '/',
      secure: true,
      session: false,
      storeId: '0',
      value: 'abc',
    });
  });

  it('"url … may be a full URL; data after the path, such as the query, is ignored"', async () => {
    const { jars, get } = setup();
    jars.setFromResponse('http://example.com/docs/', ['a=1; Path=/docs']);
    const { result } = await get({ url: 'http://example.com/docs/page?x=1&y=2#top', name: 'a' });
    expect(result).toMatchObject({ name: 'a', value: '1', path: '/docs' });
  });

  it('"null when no such cookie is found" — and that is not an error (no lastError)', async () => {
    const { get } = setup();
    const { result, lastError } = await get({ url: 'http://example.com/', name: 'missing' });
    expect(result).toBeNull();
    expect(lastError).toBeUndefined();
  });

  it('"When several cookies of the same name match the URL, the one with the longest path is returned"', async () => {
    const { jars, clock, get } = setup();
    jars.setFromResponse('http://www.example.com/', ['a=root; Path=/']);
    clock.advance(1000);
    jars.setFromResponse('http://www.example.com/', ['a=docs; Path=/docs']);
    const { result } = await get({ url: 'http://www.example.com/docs/x', name: 'a' });
    expect(result).toMatchObject({ value: 'docs', path: '/docs' });
  });

  it('"on equal path length, the one with the earliest creation time"', async () => {
    const { jars, clock, get } = setup();
    jars.setFromResponse('http://www.example.com/', ['a=older; Domain=example.com']);
    clock.advance(1000);
    jars.setFromResponse('http://www.example.com/', ['a=newer']);
    const { result } = await get({ url: 'http://www.example.com/', name: 'a' });
    expect(result).toMatchObject({ value: 'older', domain: '.example.com' });
  });

  it('finds only cookies a request to the url would carry: Secure ones need https, host-only ones the exact host', async () => {
    const { jars, get } = setup();
    jars.setFromResponse('https://www.example.com/', ['s=1; Secure', 'h=1']);
    expect((await get({ url: 'http://www.example.com/', name: 's' })).result).toBeNull();
    expect((await get({ url: 'https://www.example.com/', name: 's' })).result).toMatchObject({ secure: true });
    expect((await get({ url: 'https://sub.www.example.com/', name: 'h' })).result).toBeNull();
  });

  it('returns httpOnly cookies (extensions see them)', async () => {
    const { jars, get } = setup();
    jars.setFromResponse('http://example.com/', ['h=1; HttpOnly']);
    expect((await get({ url: 'http://example.com/', name: 'h' })).result).toMatchObject({ httpOnly: true });
  });

  it('"storeId … default is the current execution context\'s store" ("0"); "1" reads the incognito store', async () => {
    const { jars, get } = setup();
    jars.setFromResponse('http://example.com/', ['a=regular']);
    jars.setFromResponse('http://example.com/', ['a=incognito'], '1');
    expect((await get({ url: 'http://example.com/', name: 'a' })).result).toMatchObject({ value: 'regular', storeId: '0' });
    expect((await get({ url: 'http://example.com/', name: 'a', storeId: '1' })).result).toMatchObject({ value: 'incognito', storeId: '1' });
  });

  it('an unknown storeId fails with Chrome\'s message', async () => {
    const { get } = setup();
    const { result, lastError } = await get({ url: 'http://example.com/', name: 'a', storeId: '7' });
    expect(result).toBeUndefined();
    expect(lastError).toBe('Invalid cookie store id: "7".');
  });

  it('an invalid url fails with Chrome\'s message', async () => {
    const { get } = setup();
    const { result, lastError } = await get({ url: 'not a url', name: 'a' });
    expect(result).toBeUndefined();
    expect(lastError).toBe('Invalid url: "not a url".');
  });

  it('url and name are required (spec §4.1 "yes"): leaving one out throws a TypeError, as the browser\'s bindings do', () => {
    const { cookies } = setup();
    const get = cookies.get as (...args: unknown[]) => unknown;
    expect(() => get({ name: 'a' })).toThrow(
      new TypeError("Error in invocation of cookies.get(object details, optional function callback): Error at parameter 'details': Missing required property 'url'."),
    );
    expect(() => get({ url: 'http://example.com/' })).toThrow(/Missing required property 'name'/);
    expect(() => get({ url: 42, name: 'a' })).toThrow(/Error at property 'url': Invalid type: expected string, found integer/);
    expect(() => get({ url: 'http://example.com/', name: 'a', colour: 'red' })).toThrow(/Unexpected property: 'colour'/);
    expect(() => get('http://example.com/')).toThrow(/expected object, found string/);
    expect(() => get({ url: 'http://example.com/', name: 'a' }, 'not a function')).toThrow(/No matching signature/);
  });
});
