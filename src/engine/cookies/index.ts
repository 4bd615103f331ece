// The cookies part of the engine: stores (spec §2.2), the cookies namespace (§4, §6.1),
// persistence. See cookie-jars.ts for where to start.
export { CookieJars, type CookieJarsOptions, type CookieChangeListener, type SetFromResponseResult, type RejectedSetCookie } from './cookie-jars.js';
export { ObservableCookieStore, type StoreChange, type ObservableCookieStoreOptions } from './observable-store.js';
export { toSpecCookie } from './spec-cookie.js';
export { CookiePersistence, COOKIE_FILE_NAME, type CookiePersistenceOptions } from './persistence.js';
export { AtomicJsonFile } from './atomic-json-file.js';
export { DEFAULT_COOKIE_LIMITS, type CookieLimits } from './eviction.js';
export { systemClock, type Clock } from './clock.js';
export {
  createCookiesNamespace,
  hasCookiesPermission,
  type BrowserCookiesNamespace,
  type ChromeCookiesNamespace,
  type CookiesNamespaceOptions,
  type CookiesOnChangedEvent,
  type CookieChangedListener,
  type CookieGetDetails,
  type CookieGetAllDetails,
  type CookieSetDetails,
  type CookieRemoveDetails,
  type RemovedCookieDetails,
  type SameSiteStatus,
  type NamespaceStyle,
} from './cookies-namespace.js';
