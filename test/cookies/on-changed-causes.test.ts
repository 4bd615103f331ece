// spec §3 "Changes to a cookie that are reported through the onChanged event": one test per row
// of the table, plus the two-step update paragraph.
import { describe, expect, it } from 'vitest';
import { CookieJars } from '../../src/engine/cookies/cookie-jars.js';
import type { CookieChangeInfo } from '../../src/engine/types.js';
import { ManualClock, T0, call, chromeCookies, recordingJars } from './helpers.js';

const URL = 'https://www.example.com/';

describe('spec §3 onChanged causes', () => {
  it('"set call | cookie inserted | cookie present | removed=false, cause=explicit" (Set-Cookie and cookies.set)', async () => {
    const { jars, take, changes } = recordingJars();
    jars.setFromResponse(URL, ['a=1']);
    expect(take()).toEqual(['added explicit a=1']);

    const { cookies, runtime } = chromeCookies(jars);
    await call<unknown>((done) => cookies.set({ url: URL, name: 'b', value: '2' }, done), runtime);
    expect(changes[0]).toMatchObject({ removed: false, cause: 'explicit', cookie: { name: 'b', value: '2', storeId: '0' } });
  });

  it('"remove call | cookie exists | cookie removed | removed=true, cause=explicit"', async () => {
    const { jars, take } = recordingJars();
    jars.setFromResponse(URL, ['a=1']);
    take();
    const { cookies, runtime } = chromeCookies(jars);
    await call((done) => cookies.remove({ url: URL, name: 'a' }, done), runtime);
    expect(take()).toEqual(['removed explicit a=1']);
    expect(jars.cookieHeader(URL)).toBe('');
  });

  it('"automatic expiry | cookie expires | cookie removed | removed=true, cause=expired" — the sweeper fires with nobody reading (injected clock)', () => {
    const { jars, clock, take } = recordingJars();
    jars.setFromResponse(URL, ['short=1; Max-Age=60', 'long=2; Max-Age=3600', 'session=3']);
    take();
    clock.advance(59_999);
    expect(take()).toEqual([]);
    clock.advance(1);
    expect(take()).toEqual(['removed expired short=1']);
    clock.advance(3600_000);
    expect(take()).toEqual(['removed expired long=2']);
    expect(jars.cookieHeader(URL)).toBe('session=3');
  });

  it('"automatic expiry" with real time: a cookie set to expire in 150 ms is reported expired without any read', async () => {
    const jars = new CookieJars();
    const seen: CookieChangeInfo[] = [];
    jars.onChanged((info) => seen.push(info));
    const { cookies, runtime } = chromeCookies(jars);
    await call((done) => cookies.set({ url: URL, name: 'soon', value: 'x', expirationDate: (Date.now() + 150) / 1000 }, done), runtime);
    const expired = new Promise<CookieChangeInfo>((resolve) => {
      jars.onChanged((info) => info.cause === 'expired' && resolve(info));
    });
    const info = await expired;
    expect(info).toMatchObject({ removed: true, cause: 'expired', cookie: { name: 'soon', value: 'x' } });
    await jars.close();
  });

  it('"automatic expiry": a read after the expiry (sweeper stopped) also reports cause=expired', () => {
    const { jars, clock, take } = recordingJars();
    jars.setFromResponse(URL, ['a=1; Max-Age=10']);
    jars.store('0').close(); // no sweeper: only the read can notice
    clock.advance(10_000);
    take();
    expect(jars.cookieHeader(URL)).toBe('');
    expect(take()).toEqual(['removed expired a=1']);
  });

  it('"set call | overwrites with an already-expired expiration date | cookie removed | removed=true, cause=expired_overwrite"', async () => {
    const { jars, take } = recordingJars();
    jars.setFromResponse(URL, ['a=1']);
    take();
    jars.setFromResponse(URL, ['a=deleted; Expires=Thu, 01 Jan 1970 00:00:00 GMT']);
    expect(take()).toEqual(['removed expired_overwrite a=1']);
    expect(jars.cookieHeader(URL)).toBe('');

    // The same through cookies.set with an expirationDate in the past.
    jars.setFromResponse(URL, ['b=2']);
    take();
    const { cookies, runtime } = chromeCookies(jars);
    const { result } = await call((done) => cookies.set({ url: URL, name: 'b', value: 'x', expirationDate: T0 / 1000 - 1 }, done), runtime);
    expect(result).toBeNull();
    expect(take()).toEqual(['removed expired_overwrite b=2']);
  });

  it('an already-expired set with nothing to overwrite stores nothing and reports nothing', () => {
    const { jars, take } = recordingJars();
    const outcome = jars.setFromResponse(URL, ['a=1; Max-Age=0']);
    expect(outcome).toEqual({ stored: 1, rejected: [] });
    expect(take()).toEqual([]);
    expect(jars.allCookies()).toEqual([]);
  });

  it('"garbage collection | automatic | cookie removed | removed=true, cause=evicted"', () => {
    const { jars, clock, take } = recordingJars({ limits: { perDomain: 2 } });
    jars.setFromResponse(URL, ['a=1']);
    clock.advance(1000);
    jars.setFromResponse(URL, ['b=2']);
    clock.advance(1000);
    jars.setFromResponse(URL, ['c=3']);
    expect(take()).toEqual(['added explicit a=1', 'added explicit b=2', 'added explicit c=3', 'removed evicted a=1']);
  });

  it('"set call | overwrites an existing equivalent cookie | old cookie removed | removed=true, cause=overwrite"', () => {
    const { jars, take, changes } = recordingJars();
    jars.setFromResponse(URL, ['a=1; Path=/']);
    take();
    jars.setFromResponse(URL, ['a=2; Path=/']);
    expect(changes[0]).toMatchObject({ removed: true, cause: 'overwrite', cookie: { name: 'a', value: '1' } });
  });

  it('"Updating a cookie\'s properties is a two-step process": overwrite removal of the old, then explicit insert of the new', async () => {
    const { jars, take } = recordingJars();
    const { cookies, runtime } = chromeCookies(jars);
    await call((done) => cookies.set({ url: URL, name: 'a', value: 'old' }, done), runtime);
    take();
    await call((done) => cookies.set({ url: URL, name: 'a', value: 'new', httpOnly: true }, done), runtime);
    expect(take()).toEqual(['removed overwrite a=old', 'added explicit a=new']);
  });

  it('cookies with the same name but another path or domain are different cookies: no overwrite', () => {
    const { jars, take } = recordingJars();
    jars.setFromResponse(URL, ['a=1; Path=/', 'a=2; Path=/x', 'a=3; Domain=example.com']);
    expect(take()).toEqual(['added explicit a=1', 'added explicit a=2', 'added explicit a=3']);
  });

  it('changes in store "1" (incognito) carry storeId "1"', () => {
    const clock = new ManualClock();
    const jars = new CookieJars({ clock });
    const seen: CookieChangeInfo[] = [];
    jars.onChanged((info) => seen.push(info));
    jars.setFromResponse(URL, ['a=1'], '1');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.cookie.storeId).toBe('1');
    expect(jars.cookieHeader(URL, '0')).toBe('');
  });
});
