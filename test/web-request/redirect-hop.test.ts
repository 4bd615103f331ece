// The rules a redirect's next hop follows (redirect-hop.ts): the method, the https: upgrade, and
// which headers go on to the new URL.
import { describe, expect, it } from 'vitest';
import { redirectMethod, secureUrlOf, withHost, withoutBodyHeaders, withoutCredentials } from '../../src/engine/web-request/redirect-hop.js';

describe('a redirect', () => {
  it("follows fetch's method rule: 303 makes all but HEAD a GET, 301/302 only a POST, 307/308 keep it", () => {
    expect(redirectMethod('POST', 303)).toBe('GET');
    expect(redirectMethod('PUT', 303)).toBe('GET');
    expect(redirectMethod('HEAD', 303)).toBe('HEAD');
    expect(redirectMethod('POST', 302)).toBe('GET');
    expect(redirectMethod('PUT', 301)).toBe('PUT');
    expect(redirectMethod('POST', 307)).toBe('POST');
    expect(redirectMethod('POST', 308)).toBe('POST');
  });

  it('upgrades http: and ws: to their secure schemes, dropping port 80, and leaves secure URLs alone', () => {
    expect(secureUrlOf('http://example.com:80/a?b')).toBe('https://example.com/a?b');
    expect(secureUrlOf('ws://example.com:8080/s')).toBe('wss://example.com:8080/s');
    expect(secureUrlOf('https://example.com/')).toBeUndefined();
  });

  it('drops the body headers on a method change, credentials across origins, and sends Host of the new host', () => {
    const headers = [
      { name: 'Host', value: 'a.example' },
      { name: 'Content-Type', value: 'text/plain' },
      { name: 'Content-Length', value: '3' },
      { name: 'Authorization', value: 'Basic eDp5' },
      { name: 'Cookie', value: 'a=1' },
      { name: 'Accept', value: '*/*' },
    ];
    expect(withoutBodyHeaders(headers).map((h) => h.name)).toEqual(['Host', 'Authorization', 'Cookie', 'Accept']);
    expect(withoutCredentials(headers).map((h) => h.name)).toEqual(['Host', 'Content-Type', 'Content-Length', 'Accept']);
    expect(withHost(headers, 'b.example:8443')[0]).toEqual({ name: 'Host', value: 'b.example:8443' });
  });
});
