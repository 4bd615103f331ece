// The shapes of the extension API namespaces wrtui implements (chrome.cookies, chrome.webRequest,
// chrome.runtime's lastError), written once: the engine implements them, the worker bindings
// mirror them, and rule and extension authors get them from the package (`wrtui/rules`,
// `wrtui/extension`). Types only, depending on nothing but the spec's types, so the declarations
// the build emits for authors are self-contained.
import type {
  Cookie,
  CookieChangeInfo,
  CookieStore,
  RequestFilter,
  SameSiteStatus,
  WebRequestEventMap,
  WebRequestEventName,
  WebRequestListener,
} from './types.js';

// ── cookies ───────────────────────────────────────────────────────────────────
/** spec §4.1 */
export interface CookieGetDetails {
  url: string;
  name: string;
  storeId?: string;
}

/** spec §4.4 */
export interface CookieRemoveDetails {
  url: string;
  name: string;
  storeId?: string;
}

/** What remove answers (spec §4.4). */
export interface RemovedCookieDetails {
  name: string;
  storeId: string;
  url: string;
}

export interface CookieGetAllDetails {
  url?: string;
  name?: string;
  domain?: string;
  path?: string;
  secure?: boolean;
  session?: boolean;
  storeId?: string;
}

export interface CookieSetDetails {
  url: string;
  name?: string;
  value?: string;
  domain?: string;
  path?: string;
  secure?: boolean;
  httpOnly?: boolean;
  expirationDate?: number;
  storeId?: string;
  sameSite?: SameSiteStatus;
}

export type CookieChangedListener = (changeInfo: CookieChangeInfo) => void;

export interface CookiesOnChangedEvent {
  addListener(listener: CookieChangedListener): void;
  removeListener(listener: CookieChangedListener): void;
  hasListener(listener: CookieChangedListener): boolean;
  hasListeners(): boolean;
}

/** chrome.cookies */
export interface ChromeCookiesNamespace {
  get(details: CookieGetDetails, callback: (cookie: Cookie | null | undefined) => void): void;
  get(details: CookieGetDetails): Promise<Cookie | null>;
  getAll(details: CookieGetAllDetails, callback: (cookies: Cookie[] | undefined) => void): void;
  getAll(details: CookieGetAllDetails): Promise<Cookie[]>;
  set(details: CookieSetDetails, callback: (cookie: Cookie | null) => void): void;
  set(details: CookieSetDetails): Promise<Cookie | null>;
  remove(details: CookieRemoveDetails, callback: (details: RemovedCookieDetails | null) => void): void;
  remove(details: CookieRemoveDetails): Promise<RemovedCookieDetails>;
  getAllCookieStores(callback: (cookieStores: CookieStore[] | undefined) => void): void;
  getAllCookieStores(): Promise<CookieStore[]>;
  readonly onChanged: CookiesOnChangedEvent;
}

/** browser.cookies */
export interface BrowserCookiesNamespace {
  get(details: CookieGetDetails): Promise<Cookie | null>;
  getAll(details: CookieGetAllDetails): Promise<Cookie[]>;
  set(details: CookieSetDetails): Promise<Cookie | null>;
  remove(details: CookieRemoveDetails): Promise<RemovedCookieDetails>;
  getAllCookieStores(): Promise<CookieStore[]>;
  readonly onChanged: CookiesOnChangedEvent;
}

// ── webRequest ────────────────────────────────────────────────────────────────
export interface WebRequestEvent<E extends WebRequestEventName> {
  addListener(
    callback: WebRequestListener<E>,
    filter: RequestFilter,
    extraInfoSpec?: WebRequestEventMap[E]['option'][],
  ): void;
  removeListener(callback: WebRequestListener<E>): void;
  hasListener(callback: WebRequestListener<E>): boolean;
  hasListeners(): boolean;
}

export type WebRequestNamespace = { [E in WebRequestEventName]: WebRequestEvent<E> } & {
  /** Callback style (chrome.*) also returns a Promise when no callback is given, as in MV3. */
  handlerBehaviorChanged(callback?: () => void): Promise<void>;
  readonly MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES: number;
  /** Firefox only (the firefox persona): the connection's TLS facts, for a request a blocking listener of this extension was given. */
  getSecurityInfo?(requestId: string, options?: { certificateChain?: boolean; rawDER?: boolean }): Promise<SecurityInfo | undefined>;
};

/** Firefox's webRequest.SecurityInfo (what wrtui fills: see docs/personas.md, firefox persona). */
export interface SecurityInfo {
  state: 'insecure' | 'weak' | 'broken' | 'secure';
  protocolVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3' | 'unknown';
  cipherSuite?: string;
  secretKeyLength?: number;
  keaGroupName?: string;
  isUntrusted?: boolean;
  overridableErrorCategory?: 'trust_error' | 'domain_mismatch' | 'expired_or_not_yet_valid';
  isExtendedValidation?: boolean;
  certificateTransparencyStatus?: string;
  hsts?: boolean;
  hpkp?: boolean;
  certificates?: {
    subject: string;
    issuer: string;
    validity: { start: number; end: number };
    fingerprint: { sha1: string; sha256: string };
    serialNumber: string;
    isBuiltInRoot: boolean;
    subjectPublicKeyInfoDigest: { sha256: string };
    rawDER?: number[];
  }[];
}

// ── runtime ───────────────────────────────────────────────────────────────────
export interface LastError {
  message: string;
}

export interface Runtime {
  readonly lastError: LastError | undefined;
}

/** An event without a filter: runtime.onInstalled, alarms.onAlarm, storage.onChanged, … */
export interface ExtensionEvent<Listener extends (...args: never[]) => unknown> {
  addListener(listener: Listener): void;
  removeListener(listener: Listener): void;
  hasListener(listener: Listener): boolean;
  hasListeners(): boolean;
}

/** chrome.runtime in an extension's or rule's worker (what wrtui has of it). */
export interface ExtensionRuntime extends Runtime {
  readonly id: string;
  getManifest(): Record<string, unknown>;
  getURL(path: string): string;
  /** No page or content script is there to answer: it always fails with "Receiving end does not exist." */
  sendMessage(message: unknown, callback?: (response: unknown) => void): Promise<unknown> | undefined;
  readonly onInstalled: ExtensionEvent<(details: { reason: 'install' | 'update'; previousVersion?: string }) => void>;
  readonly onStartup: ExtensionEvent<() => void>;
  readonly onMessage: ExtensionEvent<(message: unknown, sender: unknown, sendResponse: (response?: unknown) => void) => boolean | void>;
  readonly onSuspend: ExtensionEvent<() => void>;
}

// ── storage ───────────────────────────────────────────────────────────────────
export type StorageChanges = Record<string, { oldValue?: unknown; newValue?: unknown }>;

/** chrome.storage.local / .session (callbacks optional: without one, a Promise). */
export interface StorageArea {
  readonly QUOTA_BYTES: number;
  get(keys?: string | string[] | Record<string, unknown> | null, callback?: (items: Record<string, unknown>) => void): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>, callback?: () => void): Promise<void>;
  remove(keys: string | string[], callback?: () => void): Promise<void>;
  clear(callback?: () => void): Promise<void>;
  getBytesInUse(keys?: string | string[] | null, callback?: (bytes: number) => void): Promise<number>;
  readonly onChanged: ExtensionEvent<(changes: StorageChanges) => void>;
}

export interface StorageNamespace {
  readonly local: StorageArea;
  readonly session: StorageArea;
  readonly onChanged: ExtensionEvent<(changes: StorageChanges, areaName: 'local' | 'session') => void>;
}

// ── alarms ────────────────────────────────────────────────────────────────────
export interface Alarm {
  name: string;
  /** Epoch ms. */
  scheduledTime: number;
  periodInMinutes?: number;
}

export interface AlarmsNamespace {
  create(name: string, alarmInfo: { when?: number; delayInMinutes?: number; periodInMinutes?: number }, callback?: () => void): Promise<void>;
  create(alarmInfo: { when?: number; delayInMinutes?: number; periodInMinutes?: number }, callback?: () => void): Promise<void>;
  get(name?: string, callback?: (alarm: Alarm | undefined) => void): Promise<Alarm | undefined>;
  getAll(callback?: (alarms: Alarm[]) => void): Promise<Alarm[]>;
  clear(name?: string, callback?: (wasCleared: boolean) => void): Promise<boolean>;
  clearAll(callback?: (wasCleared: boolean) => void): Promise<boolean>;
  readonly onAlarm: ExtensionEvent<(alarm: Alarm) => void>;
}
