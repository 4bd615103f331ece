// spec §3 "garbage collection | automatic | cookie removed | removed=true, cause=evicted", with
// Chrome's policy: a per-registrable-domain limit and a total limit, least recently accessed first.
import { describe, expect, it } from 'vitest';
import { DEFAULT_COOKIE_LIMITS, registrableDomainOf } from '../../src/engine/cookies/eviction.js';
import { recordingJars } from './helpers.js';

describe('eviction (spec §3 "garbage collection", cause evicted)', () => {
  it('defaults to Chrome\'s 180 cookies per registrable domain and a total of 3000', () => {
    expect(DEFAULT_COOKIE_LIMITS).toEqual({ perDomain: 180, total: 3000 });
    const { jars } = recordingJars();
    expect(jars.store('0').limits).toEqual({ perDomain: 180, total: 3000 });
  });

  it('keys the per-domain limit by registrable domain (eTLD+1): subdomains share one budget', () => {
    expect(registrableDomainOf('a.b.example.co.uk')).toBe('example.co.uk');
    const { jars, clock, take } = recordingJars({ limits: { perDomain: 3 } });
    jars.setFromResponse('http://a.example.com/', ['a=1']);
    clock.advance(1);
    jars.setFromResponse('http://b.example.com/', ['b=1']);
    clock.advance(1);
    jars.setFromResponse('http://example.com/', ['c=1']);
    clock.advance(1);
    jars.setFromResponse('http://other.org/', ['o=1']);
    take();
    clock.advance(1);
    jars.setFromResponse('http://c.example.com/', ['d=1']);
    expect(take()).toEqual(['added explicit d=1', 'removed evicted a=1']);
    expect(jars.allCookies().map((cookie) => cookie.key).sort()).toEqual(['b', 'c', 'd', 'o']);
  });

  it('evicts the least recently accessed cookie first (a cookie sent with a request counts as accessed)', () => {
    const { jars, clock, take } = recordingJars({ limits: { perDomain: 2 } });
    jars.setFromResponse('http://example.com/a', ['old=1; Path=/a']);
    clock.advance(1000);
    jars.setFromResponse('http://example.com/b', ['newer=1; Path=/b']);
    clock.advance(1000);
    expect(jars.cookieHeader('http://example.com/a')).toBe('old=1'); // touches "old"
    clock.advance(1000);
    take();
    jars.setFromResponse('http://example.com/', ['third=1']);
    expect(take()).toEqual(['added explicit third=1', 'removed evicted newer=1']);
  });

  it('among equally recent cookies, evicts the oldest created first', () => {
    const { jars, clock, take } = recordingJars({ limits: { perDomain: 2 } });
    jars.setFromResponse('http://example.com/', ['first=1', 'second=1']); // same millisecond
    clock.advance(1);
    take();
    jars.setFromResponse('http://example.com/', ['third=1']);
    expect(take()).toContain('removed evicted first=1');
  });

  it('within a domain, evicts non-Secure cookies before Secure ones (Chrome)', () => {
    const { jars, clock, take } = recordingJars({ limits: { perDomain: 2 } });
    jars.setFromResponse('https://example.com/', ['secure=1; Secure']);
    clock.advance(1000);
    jars.setFromResponse('https://example.com/', ['plain=1']);
    clock.advance(1000);
    take();
    jars.setFromResponse('https://example.com/', ['another=1; Secure']);
    expect(take()).toEqual(['added explicit another=1', 'removed evicted plain=1']);
  });

  it('enforces the total limit across domains, least recently accessed first', () => {
    const { jars, clock, take } = recordingJars({ limits: { total: 3 } });
    for (const host of ['a.com', 'b.com', 'c.com']) {
      jars.setFromResponse(`http://${host}/`, [`${host[0]}=1`]);
      clock.advance(1000);
    }
    jars.cookieHeader('http://a.com/'); // a is now the most recently accessed
    clock.advance(1000);
    take();
    jars.setFromResponse('http://d.com/', ['d=1']);
    expect(take()).toEqual(['added explicit d=1', 'removed evicted b=1']);
    expect(jars.store('0').size).toBe(3);
  });

  it('each store has its own limits and counts', () => {
    const { jars } = recordingJars({ limits: { total: 2 } });
    jars.setFromResponse('http://a.com/', ['a=1', 'b=1']);
    jars.setFromResponse('http://a.com/', ['c=1', 'd=1'], '1');
    expect(jars.store('0').size).toBe(2);
    expect(jars.store('1').size).toBe(2);
  });
});
