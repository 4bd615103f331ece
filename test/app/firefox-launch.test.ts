// The Firefox `wrtui browser --firefox` starts: its profile sends everything, loopback included,
// through wrtui's proxy and loads no add-on from the system; a missing Firefox is said plainly.
// (The launch itself, its loopback-only remote agent and its clean end: firefox-attach.test.ts,
// clean-stop.test.ts.)
import { describe, expect, it } from 'vitest';
import { BrowserNotFoundError } from '../../src/app/browser-launch.js';
import { findFirefox, firefoxPreferences } from '../../src/app/firefox-launch.js';

describe("the Firefox wrtui starts", () => {
  it('sends http, https and loopback through the proxy, without HTTP/3, and loads no add-on from the system', () => {
    expect(firefoxPreferences('http://127.0.0.1:8080')).toMatchObject({
      'network.proxy.type': 1,
      'network.proxy.http': '127.0.0.1',
      'network.proxy.http_port': 8080,
      'network.proxy.ssl': '127.0.0.1',
      'network.proxy.ssl_port': 8080,
      'network.proxy.allow_hijacking_localhost': true,
      'network.proxy.no_proxies_on': '',
      'network.http.http3.enable': false,
      'extensions.enabledScopes': 5,
    });
  });

  it('names what it looked for when the Firefox given is not there', () => {
    expect(() => findFirefox('/nonexistent/firefox')).toThrow(BrowserNotFoundError);
    expect(() => findFirefox('/nonexistent/firefox')).toThrow('/nonexistent/firefox is not an executable file');
  });
});
