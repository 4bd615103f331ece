// A persona is the browser whose extension interface a rule or extension sees: `spec` (the seed
// interface exactly), `chrome` or `firefox`. It decides what registration accepts (types, options,
// filter keys) and how it says no, the enum objects on the namespace, the details fields beyond the
// spec, which headers a listener is shown, and where the two browsers' sequences differ. The
// engine asks the persona; it never branches on a browser's name.
import type { HttpHeader, HttpHeaders, ResourceType, WebRequestEventName } from '../types.js';
import type { RequestContext } from './request-context.js';

export const PERSONA_NAMES = ['spec', 'chrome', 'firefox'] as const;
export type PersonaName = (typeof PERSONA_NAMES)[number];

export interface Persona {
  readonly name: PersonaName;
  /** The filter `types` this browser accepts, in its schema's order. */
  readonly resourceTypes: readonly string[];
  /** The type this browser reports for what the proxy saw (the spec's most specific name). */
  typeOf(seen: ResourceType): string;
  /** The extraInfoSpec values each event accepts. */
  readonly extraInfoSpec: { readonly [E in WebRequestEventName]: readonly string[] };
  /** RequestFilter keys beyond `urls`. */
  readonly filterKeys: readonly string[];
  /** Whether `urls: []` registers (Chrome: yes, matching nothing; Firefox and the spec: no). */
  readonly acceptsEmptyUrls: boolean;
  /** BlockingResponse keys beyond the spec's, per event (Firefox's upgradeToSecure). */
  readonly extraBlockingKeys: { readonly [E in WebRequestEventName]?: readonly string[] };
  /** Enum objects beyond ResourceType and the options (Chrome's IgnoredActionType). */
  readonly extraEnums: Readonly<Record<string, readonly string[]>>;
  /** Registration errors in this browser's words. */
  readonly errors: PersonaErrors;
  /** `chrome.webRequest.ResourceType`, `OnBeforeRequestOptions` …: key spelling for a value. */
  enumKey(value: string): string;
  /** Which headers a listener is shown; `extraHeaders` says whether it asked for Chrome's extraHeaders. */
  visibleRequestHeaders(headers: HttpHeaders, extraHeaders: boolean, facts?: EventFacts): HttpHeaders;
  visibleResponseHeaders(headers: HttpHeaders, extraHeaders: boolean): HttpHeaders;
  /**
   * A listener's answer made whole: the headers it was not shown are put back as they were, and
   * its changes to them dropped (it "cannot change" what it cannot see).
   */
  restoreRequestHeaders(full: HttpHeaders, answered: HttpHeaders, extraHeaders: boolean): HttpHeaders;
  restoreResponseHeaders(full: HttpHeaders, answered: HttpHeaders, extraHeaders: boolean): HttpHeaders;
  /** Whether this browser shows CORS preflights to `listener`s: Chrome only when some listener has extraHeaders. */
  readonly preflightsNeedExtraHeaders: boolean;
  /** Firefox re-fires onBeforeRequest … onHeadersReceived for the retry after onAuthRequired's credentials; Chrome fires none. */
  readonly refiresAuthRetry: boolean;
  /** A cancel in onAuthRequired: Chrome shows the 401 (CancelAuth), Firefox ends the request with an error. */
  readonly authCancelFails: boolean;
  /** Chrome's webRequest.onActionIgnored. */
  readonly hasActionIgnored: boolean;
  /**
   * A server redirect's onBeforeRedirect is told only once the client follows it; a client that
   * does not (fetch with redirect: "manual") ends the request with onCompleted and the 3xx (Firefox).
   */
  readonly redirectNoticeWhenFollowed: boolean;
  /** Firefox's webRequest.getSecurityInfo. */
  readonly hasSecurityInfo: boolean;
  /** How the browser's own surfaces (tabs, windows, the toolbar button …) answer with none open (surface-dialects.ts). */
  readonly surfaces: SurfaceDialect;
  /** navigator.userAgent in an extension's background (Chromium 156 and Firefox on Linux, as they send it); undefined: wrtui's own. */
  readonly userAgent: string | undefined;
  /** Firefox's webRequest.filterResponseData (StreamFilter). */
  readonly hasFilterResponseData: boolean;
  /** The details fields this browser adds to every event, from what the request showed. */
  contextFields(context: RequestContext, storeId: string): Record<string, unknown>;
  /**
   * Fields this browser words its own way for one event, over the spec's (undefined: none). Firefox
   * says `NS_ERROR_ABORT` for a blocked request, and gives a listener's redirect the status of the
   * response it replaced.
   */
  eventFields?(event: WebRequestEventName, details: Readonly<Record<string, unknown>>, facts: EventFacts | undefined): Record<string, unknown> | undefined;
  /**
   * The cookies.Cookie `sameSite` this browser reports for a cookie's SameSite attribute (tough-
   * cookie's "strict", "lax", "none" or undefined when the cookie has none); undefined: the
   * browser's Cookie type has no such field (the spec's).
   */
  cookieSameSite(attribute: string | undefined): string | undefined;
}

/** What the lifecycle knows of an event beyond its details, for personas that word it differently. */
export interface EventFacts {
  /** onBeforeRedirect of a redirect a listener or rule decided; `replaced`: the response it replaced (none before onHeadersReceived). */
  decidedRedirect?: { replaced?: { statusCode: number; statusLine: string } };
  /** onBeforeSendHeaders and onSendHeaders of the retry with onAuthRequired's credentials (Firefox fires them again). */
  authRetry?: boolean;
}

/** The field of a worker's details JSON that carries the event's facts (removed before a listener sees the details). */
export const FACTS_FIELD = '$wrtuiFacts';

/** Whole messages; `where` is the call (`webRequest.onBeforeRequest.addListener`). */
export interface PersonaErrors {
  /** `types[index]` is not one of `allowed`. */
  badType(where: string, value: unknown, index: number, allowed: readonly string[]): string;
  /** A key the filter does not have. */
  unexpectedFilterKey(where: string, key: string): string;
  /** `extraInfoSpec[index]` is not one of `allowed`. */
  badOption(where: string, event: WebRequestEventName, value: unknown, index: number, allowed: readonly string[]): string;
}

/** Chrome's enum keys: `requestBody` → `REQUEST_BODY`, `main_frame` → `MAIN_FRAME`. */
export function chromeEnumKey(value: string): string {
  return value.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

/** Firefox's enum keys: the value upper-cased (`requestBody` → `REQUESTBODY`). */
export function firefoxEnumKey(value: string): string {
  return value.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}

/** The enum objects a namespace carries: `{ ResourceType: { MAIN_FRAME: 'main_frame', … }, OnBeforeRequestOptions: … }`. */
export function enumObjects(persona: Persona): Record<string, Record<string, string>> {
  const objects: Record<string, Record<string, string>> = {};
  const enumOf = (values: readonly string[]) => Object.fromEntries(values.map((value) => [persona.enumKey(value), value]));
  objects.ResourceType = enumOf(persona.resourceTypes);
  for (const [name, values] of Object.entries(persona.extraEnums)) objects[name] = enumOf(values);
  for (const [event, values] of Object.entries(persona.extraInfoSpec)) {
    if (values.length === 0) continue;
    objects[`${event[0]!.toUpperCase()}${event.slice(1)}Options`] = enumOf(values);
  }
  return objects;
}

/** Headers a browser keeps from listeners: by lower-case name, or by a test of the whole header. */
export type HiddenHeaders = ReadonlySet<string> | ((header: HttpHeader) => boolean);

function isHidden(hidden: HiddenHeaders, header: HttpHeader): boolean {
  return typeof hidden === 'function' ? hidden(header) : hidden.has(header.name.toLowerCase());
}

/** Removes the `hidden` headers, keeping order (the same array when none is). */
export function withoutHeaders(headers: HttpHeaders, hidden: HiddenHeaders): HttpHeaders {
  let kept: HttpHeaders | undefined;
  for (let i = 0; i < headers.length; i++) {
    if (isHidden(hidden, headers[i]!)) {
      kept ??= headers.slice(0, i);
    } else if (kept) {
      kept.push(headers[i]!);
    }
  }
  return kept ?? headers;
}

/** `answered` without the `hidden` headers, followed by `full`'s hidden headers, in their order. */
export function restoreHidden(full: HttpHeaders, answered: HttpHeaders, hidden: HiddenHeaders): HttpHeaders {
  const kept = answered.filter((header) => !isHidden(hidden, header));
  for (const header of full) if (isHidden(hidden, header)) kept.push(header);
  return kept;
}

/** For personas that show every header. */
export const showsEveryHeader = {
  visibleRequestHeaders: (headers: HttpHeaders) => headers,
  visibleResponseHeaders: (headers: HttpHeaders) => headers,
  restoreRequestHeaders: (_full: HttpHeaders, answered: HttpHeaders) => answered,
  restoreResponseHeaders: (_full: HttpHeaders, answered: HttpHeaders) => answered,
};

/** What differs between browsers in how their own surfaces answer an extension (browser-surfaces.ts). */
export interface SurfaceDialect {
  /** The error for a tab, window, or menu item id that does not exist (or already does). */
  noTab(id: unknown): string;
  noWindow(id: unknown): string;
  duplicateMenu(id: unknown): string;
  /** webNavigation.getFrame/getAllFrames of a tab that does not exist: the no-tab error (Firefox), or null (Chrome). */
  framesOfMissingTabFail: boolean;
  /** i18n's @@ui_locale. */
  uiLocale: string;
  /** runtime.getPlatformInfo() has nacl_arch. */
  naclArch: boolean;
  /** permissions.getAll()'s answer. */
  permissionsAll(permissions: readonly string[], origins: readonly string[]): Record<string, unknown>;
  hasRequestUpdateCheck: boolean;
  /** windows.on… events. */
  windowEvents: readonly string[];
  /** The toolbar button's badge colour before one is set. */
  badgeBackground: readonly number[];
  /** A port with no other end says why on `port.error` (Firefox), not in runtime.lastError. */
  portErrorOnPort: boolean;
  /** browserAction (MV2) has action's getters and setters too (setBadgeTextColor, isEnabled, openPopup, getUserSettings). */
  fullBrowserAction: boolean;
  /** A `menus` namespace, with the "menus" permission. */
  menus: boolean;
  /** runtime.lastError when there is none: undefined (Chrome) or null (Firefox). */
  noLastError: null | undefined;
  /** The background's frameId in runtime.getContexts(): -1 (Chrome's service worker) or 0 (Firefox's background page). */
  backgroundFrameId: number;
  /** commands.getAll() lists the toolbar button's own command first (_execute_action …), as Chrome does. */
  listsActionCommand: boolean;
  /** storage.managed.get() with no policy: {} (Chrome), or this error (Firefox: no managed storage manifest). */
  managedStorageError: string | undefined;
  /** storage.sync's error for a quota exceeded (total bytes, bytes of one item, item count). */
  syncQuotaError(kind: 'bytes' | 'bytesPerItem' | 'maxItems'): string;
  /** storage.sync has QUOTA_BYTES, QUOTA_BYTES_PER_ITEM, MAX_ITEMS … (Chrome; Firefox has none). */
  syncConstants: boolean;
  /** proxy.settings: Chromium's types.ChromeSetting, or Firefox's BrowserSetting (proxy-settings.ts). */
  proxySettings: 'chrome' | 'firefox';
  /** runtime.getBrowserInfo()'s answer, where the browser has it (Firefox). */
  browserInfo: { name: string; vendor: string; version: string; buildID: string } | undefined;
}
