// spec §4.4 remove(details, callback) and §4.5 getAllCookieStores(callback), §2.2 CookieStore.
import { describe, expect, it } from 'vitest';
import { CookieJars } from '../../src/engine/cookies/cookie-jars.js';
import type { CookieStore } from '../../src/engine/types.js';
import { call, chromeCookies, recordingJars } from './helpers.js';

function setup() {
  const { jars, take } = recordingJars();
  const { cookies, runtime } = chromeCookies(jars);
  const remove = (details: Parameters<typeof cookies.remove>[0]) => call((done) => cookies.remove(details, done), runtime);
  return { jars, take, cookies, runtime, remove };
}

describe('spec §4.4 cookies.remove', () => {
  it('removes the cookie; the callback gets details "with url string, name string, storeId string, describing the removed cookie"', async () => {
    const { jars, take, remove } = setup();
    jars.setFromResponse('http://example.com/', ['a=1', 'b=2']);
    take();
    const { result, lastError } = await remove({ url: 'http://example.com', name: 'a' });
    expect(lastError).toBeUndefined();
    // url as the browser normalises it (Chrome answers url_.spec()).
    expect(result).toEqual({ name: 'a', storeId: '0', url: 'http://example.com/' });
    expect(take()).toEqual(['removed explicit a=1']);
    expect(jars.cookieHeader('http://example.com/')).toBe('b=2');
  });

  it('when nothing matches, Chrome still answers with the details (no error), and nothing changes', async () => {
    const { take, remove } = setup();
    expect(await remove({ url: 'http://example.com/x', name: 'none' })).toEqual({
      result: { name: 'none', storeId: '0', url: 'http://example.com/x' },
      lastError: undefined,
    });
    expect(take()).toEqual([]);
  });

  it('removes every cookie of that name a request to the url would carry (Chrome deletes by url + name)', async () => {
    const { jars, take, remove } = setup();
    jars.setFromResponse('https://www.example.com/docs/', ['a=root; Path=/', 'a=docs; Path=/docs', 'a=dom; Domain=example.com', 'a=elsewhere; Path=/other', 'keep=1; Path=/']);
    take();
    await remove({ url: 'https://www.example.com/docs/page', name: 'a' });
    expect(take().sort()).toEqual(['removed explicit a=docs', 'removed explicit a=dom', 'removed explicit a=root']);
    expect(jars.cookieHeader('https://www.example.com/other')).toBe('a=elsewhere; keep=1');
  });

  it('leaves Secure cookies alone when the url is http (they would not be sent there)', async () => {
    const { jars, remove } = setup();
    jars.setFromResponse('https://example.com/', ['s=1; Secure']);
    await remove({ url: 'http://example.com/', name: 's' });
    expect(jars.cookieHeader('https://example.com/')).toBe('s=1');
  });

  it('storeId selects the store; an unknown one fails with null and lastError', async () => {
    const { jars, remove } = setup();
    jars.setFromResponse('http://example.com/', ['a=1'], '1');
    expect((await remove({ url: 'http://example.com/', name: 'a', storeId: '1' })).result).toEqual({ name: 'a', storeId: '1', url: 'http://example.com/' });
    expect(jars.cookieHeader('http://example.com/', '1')).toBe('');
    expect(await remove({ url: 'http://example.com/', name: 'a', storeId: 'x' })).toEqual({ result: null, lastError: 'Invalid cookie store id: "x".' });
  });

  it('an invalid url fails with null and lastError', async () => {
    const { remove } = setup();
    expect(await remove({ url: '::', name: 'a' })).toEqual({ result: null, lastError: 'Invalid url: "::".' });
  });
});

describe('spec §4.5 cookies.getAllCookieStores and §2.2 CookieStore', () => {
  it('lists both stores, "0" and "1", with tabIds [] (wrtui knows no tabs)', async () => {
    const { cookies, runtime } = chromeCookies(new CookieJars());
    const { result } = await call<CookieStore[] | undefined>((done) => cookies.getAllCookieStores(done), runtime);
    expect(result).toEqual([
      { id: '0', tabIds: [] },
      { id: '1', tabIds: [] },
    ]);
  });

  it('"An incognito-mode window uses a separate store from a non-incognito window"', () => {
    const jars = new CookieJars();
    jars.setFromResponse('http://example.com/', ['regular=1']);
    jars.setFromResponse('http://example.com/', ['private=1'], '1');
    expect(jars.cookieHeader('http://example.com/')).toBe('regular=1');
    expect(jars.cookieHeader('http://example.com/', '1')).toBe('private=1');
    expect(jars.storeIds).toEqual(['0', '1']);
    expect(() => jars.jar('2')).toThrow(/Unknown cookie store id "2"/);
  });
});
