// How results reach extension code: chrome.* callbacks with runtime.lastError (spec §7), the
// Promise style (browser.*), asynchronous delivery, and the onChanged event object (spec §6.1).
import { describe, expect, it, vi } from 'vitest';
import { createTrustedOwner } from '../../src/engine/owner.js';
import type { Cookie, CookieChangeInfo } from '../../src/engine/types.js';
import { browserCookies, chromeCookies, recordingJars, settle } from './helpers.js';

const URL = 'http://example.com/';

describe('callback style (chrome.cookies)', () => {
  it('invokes callbacks asynchronously, after the call returns, as a browser does', async () => {
    const { cookies } = chromeCookies(recordingJars().jars);
    const order: string[] = [];
    cookies.getAllCookieStores(() => order.push('callback'));
    order.push('returned');
    await settle();
    expect(order).toEqual(['returned', 'callback']);
  });

  it('spec §7: a failure passes null to set/remove callbacks and sets runtime.lastError — visible only during the callback', async () => {
    const { cookies, runtime } = chromeCookies(recordingJars().jars);
    const seen: { result: unknown; during: string | undefined }[] = [];
    cookies.set({ url: 'not a url', name: 'a' }, (result) => seen.push({ result, during: runtime.lastError?.message }));
    expect(runtime.lastError).toBeUndefined(); // not before
    await settle();
    expect(seen).toEqual([{ result: null, during: 'Invalid url: "not a url".' }]);
    expect(runtime.lastError).toBeUndefined(); // not after
  });

  it('a success leaves runtime.lastError undefined inside the callback', async () => {
    const { cookies, runtime } = chromeCookies(recordingJars().jars);
    let during: unknown = 'unset';
    cookies.set({ url: URL, name: 'a', value: '1' }, () => {
      during = runtime.lastError;
    });
    await settle();
    expect(during).toBeUndefined();
  });

  it('a failure whose callback never reads runtime.lastError is reported as unchecked (Chrome logs "Unchecked runtime.lastError")', async () => {
    const { cookies, unchecked } = chromeCookies(recordingJars().jars);
    cookies.get({ url: 'nope', name: 'a' }, () => {});
    await settle();
    expect(unchecked).toEqual(['Invalid url: "nope".']);
  });

  it('without a callback, returns a Promise (Chrome MV3) that resolves with the result or rejects with an Error', async () => {
    const { jars } = recordingJars();
    const { cookies, runtime } = chromeCookies(jars);
    const set = cookies.set({ url: URL, name: 'a', value: '1' });
    expect(set).toBeInstanceOf(Promise);
    expect(await set).toMatchObject({ name: 'a', value: '1' });
    await expect(cookies.get({ url: 'bad', name: 'a' })).rejects.toThrow(new Error('Invalid url: "bad".'));
    expect(runtime.lastError).toBeUndefined();
  });

  it('a rejected Promise nobody awaits does not become an unhandled rejection (it must not take the proxy down)', async () => {
    const onUnhandled = vi.fn();
    process.on('unhandledRejection', onUnhandled);
    try {
      const { cookies } = chromeCookies(recordingJars().jars);
      void cookies.get({ url: 'bad', name: 'a' });
      await settle();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(onUnhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('an exception thrown by a callback is caught and reported, not thrown into the caller or the store', async () => {
    const errors: [unknown, string][] = [];
    const { cookies } = chromeCookies(recordingJars().jars, undefined, { onListenerError: (error, source) => errors.push([error, source]) });
    const boom = new Error('boom');
    cookies.getAll({}, () => {
      throw boom;
    });
    await settle();
    expect(errors).toEqual([[boom, 'cookies.getAll callback']]);
  });

  it('calls take effect in the order they are made: a get right after a set sees the cookie', async () => {
    const { cookies } = chromeCookies(recordingJars().jars);
    const got: (Cookie | null | undefined)[] = [];
    cookies.set({ url: URL, name: 'a', value: '1' }, () => {});
    cookies.get({ url: URL, name: 'a' }, (cookie) => got.push(cookie));
    await settle();
    expect(got[0]).toMatchObject({ value: '1' });
  });
});

describe('Promise style (browser.cookies)', () => {
  it('every function returns a Promise of its result', async () => {
    const { cookies } = browserCookies(recordingJars().jars);
    expect(await cookies.set({ url: URL, name: 'a', value: '1' })).toMatchObject({ name: 'a' });
    expect(await cookies.get({ url: URL, name: 'a' })).toMatchObject({ value: '1' });
    expect(await cookies.get({ url: URL, name: 'none' })).toBeNull();
    expect(await cookies.getAll({})).toHaveLength(1);
    expect(await cookies.remove({ url: URL, name: 'a' })).toEqual({ name: 'a', storeId: '0', url: URL });
    expect(await cookies.getAllCookieStores()).toEqual([
      { id: '0', tabIds: [] },
      { id: '1', tabIds: [] },
    ]);
  });

  it('failures reject with an Error carrying the same message as lastError', async () => {
    const { cookies } = browserCookies(recordingJars().jars);
    await expect(cookies.set({ url: 'http://example.com/', name: 'a', domain: 'other.org' })).rejects.toThrow(
      new Error('Failed to parse or set cookie named "a".'),
    );
    await expect(cookies.getAll({ storeId: '9' })).rejects.toThrow('Invalid cookie store id: "9".');
  });

  it('takes no callback: passing one is a TypeError', () => {
    const { cookies } = browserCookies(recordingJars().jars);
    const get = cookies.get as (...args: unknown[]) => unknown;
    expect(() => get({ url: URL, name: 'a' }, () => {})).toThrow(/No matching signature/);
  });
});

describe('spec §6.1 onChanged', () => {
  it('listeners receive changeInfo {removed, cookie, cause}, asynchronously, each its own copy', async () => {
    const { jars } = recordingJars();
    const { cookies } = chromeCookies(jars);
    const first: CookieChangeInfo[] = [];
    const second: CookieChangeInfo[] = [];
    cookies.onChanged.addListener((info) => {
      first.push(info);
      info.cookie.value = 'mutated by the first listener';
    });
    cookies.onChanged.addListener((info) => second.push(info));
    jars.setFromResponse(URL, ['a=1']);
    expect(first).toEqual([]); // not synchronously, inside the store
    await settle();
    expect(second).toEqual([
      {
        removed: false,
        cause: 'explicit',
        cookie: { domain: 'example.com', hostOnly: true, httpOnly: false, name: 'a', path: '/', secure: false, session: true, storeId: '0', value: '1' },
      },
    ]);
  });

  it('addListener / removeListener / hasListener / hasListeners; adding the same function twice registers it once', async () => {
    const { jars } = recordingJars();
    const { cookies } = chromeCookies(jars);
    const listener = vi.fn();
    expect(cookies.onChanged.hasListeners()).toBe(false);
    cookies.onChanged.addListener(listener);
    cookies.onChanged.addListener(listener);
    expect(cookies.onChanged.hasListener(listener)).toBe(true);
    jars.setFromResponse(URL, ['a=1']);
    await settle();
    expect(listener).toHaveBeenCalledTimes(1);
    cookies.onChanged.removeListener(listener);
    expect(cookies.onChanged.hasListener(listener)).toBe(false);
    jars.setFromResponse(URL, ['b=1']);
    await settle();
    expect(listener).toHaveBeenCalledTimes(1);
    expect(() => cookies.onChanged.addListener('not a function' as never)).toThrow(TypeError);
  });

  it('a listener that throws is reported through onListenerError; the store and the other listeners carry on', async () => {
    const errors: string[] = [];
    const { jars } = recordingJars();
    const { cookies } = chromeCookies(jars, undefined, { onListenerError: (error, source) => errors.push(`${source}: ${String(error)}`) });
    const after = vi.fn();
    cookies.onChanged.addListener(() => {
      throw new Error('listener bug');
    });
    cookies.onChanged.addListener(after);
    expect(() => jars.setFromResponse(URL, ['a=1'])).not.toThrow();
    await settle();
    expect(errors).toEqual(['cookies.onChanged listener: Error: listener bug']);
    expect(after).toHaveBeenCalledTimes(1);
    expect(jars.cookieHeader(URL)).toBe('a=1');
  });

  it('CookieJars.onChanged reports a throwing listener through its own onListenerError and keeps the change', () => {
    const errors: unknown[] = [];
    const { jars } = recordingJars({ onListenerError: (error) => errors.push(error) });
    jars.onChanged(() => {
      throw new Error('bad');
    });
    jars.setFromResponse(URL, ['a=1']);
    expect(errors).toHaveLength(1);
    expect(jars.cookieHeader(URL)).toBe('a=1');
  });

  it('after the owner is unloaded (signal aborted) no listener or callback of its namespace runs', async () => {
    const { jars } = recordingJars();
    const unload = new AbortController();
    const { cookies } = chromeCookies(jars, createTrustedOwner('unloading'), { signal: unload.signal });
    const listener = vi.fn();
    const callback = vi.fn();
    cookies.onChanged.addListener(listener);
    cookies.getAll({}, callback);
    unload.abort();
    jars.setFromResponse(URL, ['a=1']);
    await settle();
    expect(listener).not.toHaveBeenCalled();
    expect(callback).not.toHaveBeenCalled();
    expect(cookies.onChanged.hasListeners()).toBe(false);
  });
});
