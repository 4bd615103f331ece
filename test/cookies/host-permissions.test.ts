// spec §5 "Host permissions declared in the extension manifest gate the cookie operations get, set
// and remove: when host permissions for the given url are not declared, the call fails." and §7.
import { describe, expect, it } from 'vitest';
import { hasCookiesPermission } from '../../src/engine/cookies/cookies-namespace.js';
import type { CookieChangeInfo } from '../../src/engine/types.js';
import { browserCookies, call, chromeCookies, ownerWithHosts, recordingJars, settle } from './helpers.js';

const owner = ownerWithHosts(['*://*.allowed.com/*']);
const DENIED = 'https://www.denied.com/path?q=1';
const MESSAGE = `No host permissions for cookies at url: "https://www.denied.com/path?q=1".`;

function setup() {
  const { jars, take } = recordingJars();
  jars.setFromResponse(DENIED, ['a=1; Path=/']);
  jars.setFromResponse('https://www.allowed.com/', ['b=1']);
  take();
  return { jars, take, ...chromeCookies(jars, owner) };
}

describe('spec §5 host permissions', () => {
  it('get fails with exactly Chrome\'s message (null result, lastError set)', async () => {
    const { cookies, runtime } = setup();
    expect(await call((done) => cookies.get({ url: DENIED, name: 'a' }, done), runtime)).toEqual({ result: undefined, lastError: MESSAGE });
  });

  it('set fails with exactly Chrome\'s message, and nothing changes', async () => {
    const { cookies, runtime, jars, take } = setup();
    expect(await call((done) => cookies.set({ url: DENIED, name: 'a', value: '2' }, done), runtime)).toEqual({ result: null, lastError: MESSAGE });
    expect(take()).toEqual([]);
    expect(jars.cookieHeader(DENIED)).toBe('a=1');
  });

  it('remove fails with exactly Chrome\'s message, and nothing changes', async () => {
    const { cookies, runtime, jars, take } = setup();
    expect(await call((done) => cookies.remove({ url: DENIED, name: 'a' }, done), runtime)).toEqual({ result: null, lastError: MESSAGE });
    expect(take()).toEqual([]);
    expect(jars.cookieHeader(DENIED)).toBe('a=1');
  });

  it('the message quotes the url as the browser normalises it', async () => {
    const { cookies, runtime } = setup();
    const { lastError } = await call((done) => cookies.get({ url: 'HTTP://Denied.COM', name: 'a' }, done), runtime);
    expect(lastError).toBe('No host permissions for cookies at url: "http://denied.com/".');
  });

  it('the Promise style rejects with an Error carrying the same message', async () => {
    const { jars } = setup();
    const { cookies } = browserCookies(jars, owner);
    await expect(cookies.get({ url: DENIED, name: 'a' })).rejects.toThrow(new Error(MESSAGE));
    await expect(cookies.set({ url: DENIED, name: 'a' })).rejects.toThrow(MESSAGE);
    await expect(cookies.remove({ url: DENIED, name: 'a' })).rejects.toThrow(MESSAGE);
  });

  it('calls for permitted urls work', async () => {
    const { cookies, runtime } = setup();
    expect((await call((done) => cookies.get({ url: 'https://www.allowed.com/', name: 'b' }, done), runtime)).result).toMatchObject({ value: '1' });
  });

  it('getAll (no rule in the spec) returns only cookies within the host permissions, like Chrome', async () => {
    const { cookies, runtime } = setup();
    const { result } = await call((done) => cookies.getAll({}, done), runtime);
    expect(result).toEqual([expect.objectContaining({ name: 'b', domain: 'www.allowed.com' })]);
  });

  it('onChanged delivers only changes to cookies within the host permissions (Chrome dispatches by the cookie\'s URL)', async () => {
    const { cookies, jars } = setup();
    const seen: CookieChangeInfo[] = [];
    cookies.onChanged.addListener((info) => seen.push(info));
    jars.setFromResponse(DENIED, ['hidden=1']);
    jars.setFromResponse('http://allowed.com/', ['shown=1']);
    await settle();
    expect(seen.map((info) => info.cookie.name)).toEqual(['shown']);
  });

  it('the namespace needs the "cookies" permission: hasCookiesPermission says whether to expose it', () => {
    expect(hasCookiesPermission(ownerWithHosts(['<all_urls>'], ['cookies']))).toBe(true);
    expect(hasCookiesPermission(ownerWithHosts(['<all_urls>'], ['webRequest']))).toBe(false);
  });
});
