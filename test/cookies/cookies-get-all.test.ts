// spec §4.2 getAll(details, callback)
import { describe, expect, it } from 'vitest';
import { domainIsWithin } from '../../src/engine/cookies/get-all-filter.js';
import type { Cookie } from '../../src/engine/types.js';
import { call, chromeCookies, ownerWithHosts, recordingJars } from './helpers.js';

function setup(owner = ownerWithHosts(['<all_urls>'])) {
  const { jars, clock } = recordingJars();
  const { cookies, runtime } = chromeCookies(jars, owner);
  const getAll = (details: Parameters<typeof cookies.getAll>[0]) =>
    call<Cookie[] | undefined>((done) => cookies.getAll(details, done), runtime);
  const names = async (details: Parameters<typeof cookies.getAll>[0]) => ((await getAll(details)).result ?? []).map((cookie) => `${cookie.name}@${cookie.domain}${cookie.path}`);
  /** A store with a little of everything, created one second apart in this order. */
  const populate = () => {
    const sets: [string, string][] = [
      ['https://www.example.com/', 'root=1; Path=/'],
      ['https://www.example.com/', 'dom=1; Domain=example.com; Path=/'],
      ['https://www.example.com/', 'deep=1; Path=/a/b'],
      ['https://www.example.com/', 'sec=1; Path=/a; Secure'],
      ['https://www.example.com/', 'persist=1; Path=/; Max-Age=3600'],
      ['https://api.example.com/', 'api=1'],
      ['https://other.org/', 'other=1'],
    ];
    for (const [url, header] of sets) {
      jars.setFromResponse(url, [header]);
      clock.advance(1000);
    }
  };
  return { jars, clock, getAll, names, populate, runtime, cookies };
}

describe('spec §4.2 cookies.getAll', () => {
  it('with no filters returns "all existing unexpired matching cookies, sorted with longest path first; equal path length is ordered by earliest creation time first"', async () => {
    const { names, populate } = setup();
    populate();
    expect(await names({})).toEqual([
      'deep@www.example.com/a/b',
      'sec@www.example.com/a',
      'root@www.example.com/',
      'dom@.example.com/',
      'persist@www.example.com/',
      'api@api.example.com/',
      'other@other.org/',
    ]);
  });

  it('"all existing unexpired": expired cookies are not returned', async () => {
    const { jars, clock, names } = setup();
    jars.setFromResponse('http://example.com/', ['short=1; Max-Age=5', 'long=1; Max-Age=50']);
    jars.store('0').close(); // make sure it is getAll, not the sweeper, that notices
    clock.advance(10_000);
    expect(await names({})).toEqual(['long@example.com/']);
  });

  it('url: "Only cookies that would match this URL"', async () => {
    const { names, populate } = setup();
    populate();
    expect(await names({ url: 'https://www.example.com/a/b/c' })).toEqual([
      'deep@www.example.com/a/b',
      'sec@www.example.com/a',
      'root@www.example.com/',
      'dom@.example.com/',
      'persist@www.example.com/',
    ]);
    expect(await names({ url: 'http://www.example.com/a' })).toEqual(['root@www.example.com/', 'dom@.example.com/', 'persist@www.example.com/']);
    expect(await names({ url: 'https://api.example.com/' })).toEqual(['dom@.example.com/', 'api@api.example.com/']);
  });

  it('name: "Filter by name"', async () => {
    const { names, populate } = setup();
    populate();
    expect(await names({ name: 'api' })).toEqual(['api@api.example.com/']);
  });

  it('domain: "Cookies whose domain matches or is a subdomain of it" (leading dots ignored, whole labels only)', async () => {
    const { names, populate } = setup();
    populate();
    const all = await names({ domain: 'example.com' });
    expect(all).toHaveLength(6);
    expect(await names({ domain: '.example.com' })).toEqual(all);
    expect(await names({ domain: 'api.example.com' })).toEqual(['api@api.example.com/']);
    expect(await names({ domain: 'ample.com' })).toEqual([]);
    expect(domainIsWithin('.example.com', 'www.example.com')).toBe(false); // a parent is not a subdomain
    expect(domainIsWithin('badexample.com', 'example.com')).toBe(false);
  });

  it('path: "Cookies whose path equals it exactly"', async () => {
    const { names, populate } = setup();
    populate();
    expect(await names({ path: '/a' })).toEqual(['sec@www.example.com/a']);
    expect(await names({ path: '/a/' })).toEqual([]);
  });

  it('secure: "Filter by Secure property"', async () => {
    const { names, populate } = setup();
    populate();
    expect(await names({ secure: true })).toEqual(['sec@www.example.com/a']);
    expect(await names({ secure: false })).toHaveLength(6);
  });

  it('session: "Session vs persistent filter"', async () => {
    const { names, populate } = setup();
    populate();
    expect(await names({ session: false })).toEqual(['persist@www.example.com/']);
    expect(await names({ session: true })).toHaveLength(6);
  });

  it('filters combine (all must hold)', async () => {
    const { names, populate } = setup();
    populate();
    expect(await names({ domain: 'example.com', path: '/', session: true, secure: false })).toEqual([
      'root@www.example.com/',
      'dom@.example.com/',
      'api@api.example.com/',
    ]);
  });

  it('storeId: "Store to read; default is the current execution context\'s store"', async () => {
    const { jars, names } = setup();
    jars.setFromResponse('http://example.com/', ['a=1']);
    jars.setFromResponse('http://example.com/', ['b=1'], '1');
    expect(await names({})).toEqual(['a@example.com/']);
    expect(await names({ storeId: '1' })).toEqual(['b@example.com/']);
    expect((await setup().getAll({ storeId: 'nope' })).lastError).toBe('Invalid cookie store id: "nope".');
  });

  it('an invalid url fails with Chrome\'s message', async () => {
    const { getAll } = setup();
    expect(await getAll({ url: 'example.com' })).toEqual({ result: undefined, lastError: 'Invalid url: "example.com".' });
  });

  it('spec §5 states no permission rule for getAll; like Chrome, it returns only cookies the extension has host permissions for', async () => {
    const { names, populate } = setup(ownerWithHosts(['*://*.example.com/*']));
    populate();
    // other.org is out of reach; the url filter itself needs no permission.
    expect(await names({})).not.toContain('other@other.org/');
    expect(await names({})).toHaveLength(6);
    expect(await names({ url: 'https://other.org/' })).toEqual([]);

    // Chrome checks http(s)://<domain>/, https only for Secure cookies: an http permission hides
    // Secure cookies, an https one shows nothing but Secure cookies.
    const httpOnly = setup(ownerWithHosts(['http://www.example.com/*']));
    httpOnly.populate();
    expect(await httpOnly.names({})).toEqual(['deep@www.example.com/a/b', 'root@www.example.com/', 'persist@www.example.com/']);
    const httpsOnly = setup(ownerWithHosts(['https://*.example.com/*']));
    httpsOnly.populate();
    expect(await httpsOnly.names({})).toEqual(['sec@www.example.com/a']);
  });
});
