// proxy.settings as each browser gives it to an extension with the "proxy" permission, measured
// with one probe (fixtures/extensions/proxy-settings-probe) in Chromium 156 and Firefox ESR 153.8
// (test/personas/proxy-settings.test.ts). Proxy switchers read it at start to draw their icon, and
// Proxy Switcher stopped loading on an empty answer.
//  - Chromium: a types.ChromeSetting whose default is {mode: "system"}; set() keeps a ProxyConfig
//    (its servers' scheme filled in as "http") and fires onChange; clear() goes back.
//  - Firefox: a BrowserSetting whose value has Firefox's own shape; set() and clear() need the
//    add-on to be allowed in private windows, which a temporarily loaded add-on is not: set()
//    fails with Firefox's words and clear() answers false.
// wrtui keeps what an extension sets, but its traffic does not follow it (the journal says so once).
import type { SettingKind } from './chrome-settings.js';

/** chrome.proxy.Mode and Scheme (Chromium 156). */
export const PROXY_MODE = { AUTO_DETECT: 'auto_detect', DIRECT: 'direct', FIXED_SERVERS: 'fixed_servers', PAC_SCRIPT: 'pac_script', SYSTEM: 'system' } as const;
export const PROXY_SCHEME = { HTTP: 'http', HTTPS: 'https', QUIC: 'quic', SOCKS4: 'socks4', SOCKS5: 'socks5' } as const;

/** proxy.settings.get()'s value before any extension sets it. */
export const CHROME_PROXY_DEFAULT = { mode: 'system' };
export const FIREFOX_PROXY_DEFAULT = {
  proxyType: 'system',
  autoConfigUrl: '',
  autoLogin: false,
  proxyDNS: true,
  httpProxyAll: false,
  socksVersion: 5,
  passthrough: '',
  http: '',
  ssl: '',
  socks: '',
};

/** Firefox's words for set() and clear() by an add-on not allowed in private windows. */
export const FIREFOX_NEEDS_PRIVATE_BROWSING = 'proxy.settings requires private browsing permission.';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The rules' proxy servers, each of which Chromium gives back with a scheme. */
const SERVER_KEYS = ['singleProxy', 'proxyForHttp', 'proxyForHttps', 'proxyForFtp', 'fallbackProxy'] as const;

/** A Chromium ProxyConfig: a known mode; its servers get the scheme "http" where none was given. */
export const CHROME_PROXY_CONFIG: SettingKind = {
  accepts: (value) => isObject(value) && (Object.values(PROXY_MODE) as unknown[]).includes(value.mode),
  stored: (value) => {
    const config = structuredClone(value) as Record<string, unknown>;
    if (isObject(config.rules)) {
      for (const key of SERVER_KEYS) {
        const server = config.rules[key];
        if (isObject(server) && server.scheme === undefined) config.rules[key] = { ...server, scheme: 'http' };
      }
    }
    return config;
  },
};
