// ObservableCookieStore as a tough-cookie Store: synchronous CookieJar use, the domain → path →
// name index, how causes are assigned (spec §3), expiry as browsers compute it, the sweeper.
import { Cookie as ToughCookie, CookieJar } from 'tough-cookie';
import { describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_DELAY_MS } from '../../src/engine/cookies/clock.js';
import { MAX_COOKIE_LIFETIME_MS } from '../../src/engine/cookies/expiry.js';
import { ObservableCookieStore, type StoreChange } from '../../src/engine/cookies/observable-store.js';
import { ManualClock, T0 } from './helpers.js';

function storeWithLog(clock = new ManualClock()) {
  const log: string[] = [];
  const store = new ObservableCookieStore({
    clock,
    onChange: ({ removed, cookie, cause }: StoreChange) => log.push(`${removed ? 'removed' : 'added'} ${cause} ${cookie.key}=${cookie.value}`),
  });
  const jar = new CookieJar(store);
  return { store, jar, log, clock };
}

describe('ObservableCookieStore as a tough-cookie Store', () => {
  it('is synchronous: CookieJar.setCookieSync and getCookieStringSync work over it', () => {
    const { jar } = storeWithLog();
    jar.setCookieSync('a=1; Path=/', 'http://example.com/', { now: new Date(T0) });
    jar.setCookieSync('b=2; Path=/docs', 'http://example.com/', { now: new Date(T0 + 1) });
    expect(jar.getCookieStringSync('http://example.com/docs/x')).toBe('b=2; a=1');
  });

  it('putCookie of a new cookie reports explicit; updateCookie(old, new) reports overwrite then explicit', () => {
    const { jar, log } = storeWithLog();
    jar.setCookieSync('a=1', 'http://example.com/', { now: new Date(T0) });
    jar.setCookieSync('a=2', 'http://example.com/', { now: new Date(T0 + 1) });
    expect(log).toEqual(['added explicit a=1', 'removed overwrite a=1', 'added explicit a=2']);
  });

  it('a set whose cookie is already expired removes the equivalent cookie as expired_overwrite and stores nothing', () => {
    const { jar, store, log } = storeWithLog();
    jar.setCookieSync('a=1', 'http://example.com/', { now: new Date(T0) });
    jar.setCookieSync('a=1; Max-Age=0', 'http://example.com/', { now: new Date(T0) });
    jar.setCookieSync('b=1; Max-Age=0', 'http://example.com/', { now: new Date(T0) });
    expect(log).toEqual(['added explicit a=1', 'removed expired_overwrite a=1']);
    expect(store.size).toBe(0);
  });

  it('removals tough-cookie makes while reading (expired cookies) are reported as expired', () => {
    // Real clock here: CookieJar.getCookies compares expiry with the real Date.now().
    const log: string[] = [];
    const store = new ObservableCookieStore({ onChange: ({ removed, cause, cookie }) => log.push(`${removed} ${cause} ${cookie.key}`) });
    const jar = new CookieJar(store);
    jar.setCookieSync('a=1; Max-Age=60', 'http://example.com/');
    const [cookie] = store.allCookies();
    cookie!.expires = new Date(Date.now() - 1000); // expired behind the store's back
    expect(jar.getCookiesSync('http://example.com/')).toEqual([]);
    expect(log).toEqual(['false explicit a', 'true expired a']);
    store.close();
  });

  it('removeCookies and removeAllCookies are explicit removals', async () => {
    const { jar, store, log } = storeWithLog();
    jar.setCookieSync('a=1', 'http://example.com/', { now: new Date(T0) });
    jar.setCookieSync('b=2', 'http://other.com/', { now: new Date(T0) });
    log.length = 0;
    await store.removeCookies('example.com', null);
    jar.removeAllCookiesSync();
    expect(log).toEqual(['removed explicit a=1', 'removed explicit b=2']);
  });

  it('supports the promise forms of the Store interface too', async () => {
    const { store } = storeWithLog();
    const cookie = new ToughCookie({ key: 'a', value: '1', domain: 'example.com', path: '/', hostOnly: true });
    await store.putCookie(cookie);
    expect(await store.findCookie('example.com', '/', 'a')).toBe(cookie);
    expect(await store.findCookies('www.example.com', '/x')).toEqual([cookie]);
    expect(await store.getAllCookies()).toEqual([cookie]);
    await store.removeCookie('example.com', '/', 'a');
    expect(await store.getAllCookies()).toEqual([]);
  });

  it('indexes domain → path → name: a lookup only visits the host and its parent domains', () => {
    const { jar, store } = storeWithLog();
    for (let i = 0; i < 200; i++) jar.setCookieSync(`c${i}=x`, `http://host${i}.test/`, { now: new Date(T0) });
    jar.setCookieSync('mine=1; Domain=example.com', 'http://www.example.com/', { now: new Date(T0) });
    jar.setCookieSync('host=2', 'http://www.example.com/', { now: new Date(T0) });
    const found = store.cookiesUnder(['www.example.com', 'example.com', 'com'], '/');
    expect(found.map((cookie) => cookie.key).sort()).toEqual(['host', 'mine']);
  });

  it('listeners may call back into the store; their changes are delivered after the current ones, in order', () => {
    const clock = new ManualClock();
    const log: string[] = [];
    let jar!: CookieJar;
    const store = new ObservableCookieStore({
      clock,
      onChange: ({ removed, cause, cookie }) => {
        log.push(`${removed ? 'removed' : 'added'} ${cause} ${cookie.key}=${cookie.value}`);
        if (cookie.key === 'a' && !removed) jar.setCookieSync('echo=1', 'http://example.com/', { now: new Date(clock.now()) });
      },
    });
    jar = new CookieJar(store);
    jar.setCookieSync('a=1', 'http://example.com/', { now: new Date(T0) });
    jar.setCookieSync('a=2', 'http://example.com/', { now: new Date(T0) });
    expect(log).toEqual([
      'added explicit a=1',
      'added explicit echo=1',
      'removed overwrite a=1',
      'added explicit a=2',
      'removed overwrite echo=1',
      'added explicit echo=1',
    ]);
  });
});

describe('expiry as a browser computes it', () => {
  it('Max-Age counts from when the cookie was set, not from its last access (tough-cookie slides it)', () => {
    const { jar, store, clock } = storeWithLog();
    jar.setCookieSync('a=1; Max-Age=60', 'http://example.com/', { now: new Date(T0) });
    clock.advance(30_000);
    expect(store.cookiesUnder(['example.com'], '/')).toHaveLength(1);
    clock.advance(30_000);
    expect(store.cookiesUnder(['example.com'], '/')).toHaveLength(0);
  });

  it('caps a lifetime at 400 days from when it is set (Chrome, RFC 6265bis)', () => {
    const { jar, store } = storeWithLog();
    jar.setCookieSync('a=1; Expires=Fri, 31 Dec 9999 23:59:59 GMT', 'http://example.com/', { now: new Date(T0) });
    jar.setCookieSync('b=1; Max-Age=999999999999', 'http://example.com/', { now: new Date(T0) });
    for (const cookie of store.allCookies()) expect((cookie.expires as Date).getTime()).toBe(T0 + MAX_COOKIE_LIFETIME_MS);
  });
});

describe('expiry sweeper', () => {
  it('is armed for the next expiry, not polled: one timer, re-armed for the following expiry after it fires', () => {
    const { jar, store, clock, log } = storeWithLog();
    jar.setCookieSync('late=1; Max-Age=300', 'http://example.com/', { now: new Date(T0) });
    jar.setCookieSync('soon=1; Max-Age=60', 'http://example.com/', { now: new Date(T0) });
    jar.setCookieSync('never=1', 'http://example.com/', { now: new Date(T0) });
    expect(store.nextSweepAt).toBe(T0 + 60_000);
    expect(clock.pendingTimers).toBe(1);
    clock.advance(60_000);
    expect(log.at(-1)).toBe('removed expired soon=1');
    expect(store.nextSweepAt).toBe(T0 + 300_000);
    clock.advance(240_000);
    expect(log.at(-1)).toBe('removed expired late=1');
    expect(store.nextSweepAt).toBe(Infinity);
    expect(clock.pendingTimers).toBe(0);
  });

  it('skips expiries of cookies that were overwritten or removed meanwhile', () => {
    const { jar, store, clock, log } = storeWithLog();
    jar.setCookieSync('a=1; Max-Age=60', 'http://example.com/', { now: new Date(T0) });
    jar.setCookieSync('a=2; Max-Age=600', 'http://example.com/', { now: new Date(T0) });
    log.length = 0;
    clock.advance(60_000);
    expect(log).toEqual([]);
    expect(store.nextSweepAt).toBe(T0 + 600_000);
  });

  it('waits no longer than setTimeout allows for far expiries, then re-arms', () => {
    const { jar, store, clock } = storeWithLog();
    jar.setCookieSync('a=1; Max-Age=31536000', 'http://example.com/', { now: new Date(T0) });
    expect(clock.scheduledDelays.at(-1)).toBe(MAX_TIMER_DELAY_MS);
    clock.advance(MAX_TIMER_DELAY_MS);
    expect(store.size).toBe(1);
    expect(store.nextSweepAt).toBe(T0 + 31_536_000_000);
  });

  it('stop() cancels the timer', () => {
    const { jar, store, clock } = storeWithLog();
    jar.setCookieSync('a=1; Max-Age=60', 'http://example.com/', { now: new Date(T0) });
    store.close();
    expect(clock.pendingTimers).toBe(0);
    clock.advance(120_000);
    expect(store.size).toBe(1); // nobody swept; the next read drops it
    expect(store.allCookies()).toEqual([]);
  });

  it('uses unref\'d real timers by default (a pending expiry does not keep the process alive)', () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    try {
      const store = new ObservableCookieStore();
      const jar = new CookieJar(store);
      jar.setCookieSync('a=1; Max-Age=3600', 'http://example.com/');
      expect(spy).toHaveBeenCalledTimes(1);
      expect(spy.mock.calls[0]![1]).toBeGreaterThan(3_599_000);
      const timer = spy.mock.results[0]!.value as NodeJS.Timeout;
      expect(timer.hasRef()).toBe(false);
      store.close();
    } finally {
      spy.mockRestore();
    }
  });
});
