// The headers an extension's own request goes out with (extension-request-headers.ts), by what the
// request is. The browsers' own words and order are checked against Chromium 156 and Firefox ESR
// 153.7 in the differential tests named there; these pin the rules that choose between them.
import { describe, expect, it } from 'vitest';
import { chromeHeaders, chromePreflightHeaders, firefoxHeaders, isForbidden, type HeaderFacts } from '../../src/engine/extensions/extension-request-headers.js';

const ORIGIN = 'chrome-extension://npngpgadjklogcjnddakfnmbbkeidjap';
const facts = (over: Partial<HeaderFacts>): HeaderFacts => ({
  url: new URL('http://api.test/x'),
  method: 'GET',
  given: [],
  origin: ORIGIN,
  userAgent: 'UA',
  bodyLength: 0,
  mode: 'cors',
  tainting: 'basic',
  withCredentials: true,
  ...over,
});
const named = (headers: { name: string; value?: string }[], name: string) => headers.find((header) => header.name === name)?.value;

describe('an extension request\'s headers', () => {
  it('its own GET (host permission) states no Origin and comes from no site; a GET across origins says its Origin and "cross-site"', () => {
    expect(named(chromeHeaders(facts({})), 'Origin')).toBeUndefined();
    expect(named(chromeHeaders(facts({})), 'Sec-Fetch-Site')).toBe('none');
    const across = chromeHeaders(facts({ tainting: 'cors', withCredentials: false }));
    expect(named(across, 'Origin')).toBe(ORIGIN);
    expect(named(across, 'Sec-Fetch-Site')).toBe('cross-site');
    expect(named(across, 'Sec-Fetch-Storage-Access')).toBeUndefined();
    // A no-cors GET across origins states no Origin; its mode is said as given.
    const opaque = chromeHeaders(facts({ tainting: 'opaque', mode: 'no-cors', withCredentials: false }));
    expect([named(opaque, 'Origin'), named(opaque, 'Sec-Fetch-Mode')]).toEqual([undefined, 'no-cors']);
  });

  it('Sec-Fetch-Storage-Access: Chromium says "active" whenever credentials go; Firefox says "none", and only across sites', () => {
    expect(named(chromeHeaders(facts({})), 'Sec-Fetch-Storage-Access')).toBe('active');
    expect(named(chromeHeaders(facts({ withCredentials: false })), 'Sec-Fetch-Storage-Access')).toBeUndefined();
    expect(named(firefoxHeaders(facts({})), 'Sec-Fetch-Storage-Access')).toBeUndefined();
    expect(named(firefoxHeaders(facts({ tainting: 'cors' })), 'Sec-Fetch-Storage-Access')).toBe('none');
  });

  it('a preflight asks for the method and the unsafe header names, and carries no script header', () => {
    const headers = chromePreflightHeaders(facts({ method: 'PUT', given: [['X-Probe', 'yes']], tainting: 'cors' }), ['content-type', 'x-probe']);
    expect(headers.map((header) => header.name)).toEqual(['Host', 'Connection', 'Accept', 'Access-Control-Request-Method', 'Access-Control-Request-Headers', 'Origin', 'User-Agent', 'Sec-Fetch-Mode', 'Sec-Fetch-Site', 'Sec-Fetch-Dest', 'Accept-Encoding', 'Accept-Language']);
    expect([named(headers, 'Access-Control-Request-Method'), named(headers, 'Access-Control-Request-Headers')]).toEqual(['PUT', 'content-type,x-probe']);
  });

  it('"forbidden request-header" names are the browser\'s to set, not the script\'s', () => {
    expect(['cookie', 'host', 'origin', 'sec-fetch-site', 'proxy-authorization'].every(isForbidden)).toBe(true);
    expect(['x-probe', 'content-type', 'authorization'].some(isForbidden)).toBe(false);
  });
});
