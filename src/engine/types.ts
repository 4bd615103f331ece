// The spec's types, written once (../shared/spec/cookies-webrequest-interface.md).
// Engine, rule authors' type definitions and the UI all import from here.

// ── §2.10 / §8 ────────────────────────────────────────────────────────────────
export const MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES = 20;

// ── §2.1 Cookie ───────────────────────────────────────────────────────────────
export interface Cookie {
  name: string;
  value: string;
  /** Leading dot for domain cookies (`.example.com`), bare host for host-only ones, as Chrome reports. */
  domain: string;
  hostOnly: boolean;
  path: string;
  secure: boolean;
  httpOnly: boolean;
  session: boolean;
  /** Seconds since the UNIX epoch; absent for session cookies. */
  expirationDate?: number;
  storeId: string;
}

/** Chrome's cookie field beyond the spec (chrome.cookies.SameSiteStatus); cookies.set accepts it. */
export const SAME_SITE_STATUSES = ['no_restriction', 'lax', 'strict', 'unspecified'] as const;
export type SameSiteStatus = (typeof SAME_SITE_STATUSES)[number];

// ── §2.2 CookieStore ──────────────────────────────────────────────────────────
export interface CookieStore {
  id: string;
  tabIds: number[];
}

/** Store ids wrtui provides: "0" the default store, "1" the incognito one. */
export const DEFAULT_STORE_ID = '0';
export const INCOGNITO_STORE_ID = '1';

// ── §2.3 OnChangedCause ───────────────────────────────────────────────────────
export const ON_CHANGED_CAUSES = ['evicted', 'expired', 'explicit', 'expired_overwrite', 'overwrite'] as const;
export type OnChangedCause = (typeof ON_CHANGED_CAUSES)[number];

/** §6.1 */
export interface CookieChangeInfo {
  removed: boolean;
  cookie: Cookie;
  cause: OnChangedCause;
}

// ── §2.4 ResourceType ─────────────────────────────────────────────────────────
export const RESOURCE_TYPES = [
  'main_frame', 'sub_frame', 'stylesheet', 'script', 'image', 'object', 'xmlhttprequest', 'xbl',
  'xslt', 'ping', 'beacon', 'xml_dtd', 'font', 'media', 'websocket', 'csp_report', 'imageset',
  'web_manifest', 'other',
] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

// ── §2.5 Listener option enums ────────────────────────────────────────────────
export const ON_BEFORE_REQUEST_OPTIONS = ['blocking', 'requestBody'] as const;
export const ON_BEFORE_SEND_HEADERS_OPTIONS = ['requestHeaders', 'blocking'] as const;
export const ON_SEND_HEADERS_OPTIONS = ['requestHeaders'] as const;
export const ON_HEADERS_RECEIVED_OPTIONS = ['blocking', 'responseHeaders'] as const;
export const ON_AUTH_REQUIRED_OPTIONS = ['responseHeaders', 'blocking', 'asyncBlocking'] as const;
export const ON_RESPONSE_STARTED_OPTIONS = ['responseHeaders'] as const;
export const ON_BEFORE_REDIRECT_OPTIONS = ['responseHeaders'] as const;
export const ON_COMPLETED_OPTIONS = ['responseHeaders'] as const;

export type OnBeforeRequestOptions = (typeof ON_BEFORE_REQUEST_OPTIONS)[number];
export type OnBeforeSendHeadersOptions = (typeof ON_BEFORE_SEND_HEADERS_OPTIONS)[number];
export type OnSendHeadersOptions = (typeof ON_SEND_HEADERS_OPTIONS)[number];
export type OnHeadersReceivedOptions = (typeof ON_HEADERS_RECEIVED_OPTIONS)[number];
export type OnAuthRequiredOptions = (typeof ON_AUTH_REQUIRED_OPTIONS)[number];
export type OnResponseStartedOptions = (typeof ON_RESPONSE_STARTED_OPTIONS)[number];
export type OnBeforeRedirectOptions = (typeof ON_BEFORE_REDIRECT_OPTIONS)[number];
export type OnCompletedOptions = (typeof ON_COMPLETED_OPTIONS)[number];

// ── §2.6 RequestFilter ────────────────────────────────────────────────────────
export interface RequestFilter {
  urls: string[];
  types?: ResourceType[];
  tabId?: number;
  windowId?: number;
}

// ── §2.7 HttpHeaders ──────────────────────────────────────────────────────────
export interface HttpHeader {
  name: string;
  /** The value when representable as UTF-8. */
  value?: string;
  /** The value as bytes (each 0..255) when it is not. */
  binaryValue?: number[];
}
export type HttpHeaders = HttpHeader[];

// ── §2.8 BlockingResponse ─────────────────────────────────────────────────────
export interface AuthCredentials {
  username: string;
  password: string;
}
export interface BlockingResponse {
  cancel?: boolean;
  redirectUrl?: string;
  requestHeaders?: HttpHeaders;
  responseHeaders?: HttpHeaders;
  authCredentials?: AuthCredentials;
  /** Firefox only (onBeforeRequest): go to the https: URL instead. */
  upgradeToSecure?: boolean;
}

// ── §2.9 UploadData ───────────────────────────────────────────────────────────
export interface UploadData {
  /** An ArrayBuffer copy of the uploaded bytes. */
  bytes?: ArrayBuffer;
  file?: string;
}

// ── §6.2 details objects ──────────────────────────────────────────────────────
export interface WebRequestBody {
  error?: string;
  formData?: Record<string, string[]>;
  raw?: UploadData[];
}

export interface CommonDetails {
  requestId: string;
  url: string;
  method: string;
  frameId: number;
  parentFrameId: number;
  tabId: number;
  type: ResourceType;
  timeStamp: number;
}

export interface OnBeforeRequestDetails extends CommonDetails {
  requestBody?: WebRequestBody;
}
export interface OnBeforeSendHeadersDetails extends CommonDetails {
  requestHeaders?: HttpHeaders;
}
export interface OnSendHeadersDetails extends CommonDetails {
  requestHeaders?: HttpHeaders;
}
export interface OnHeadersReceivedDetails extends CommonDetails {
  statusLine: string;
  statusCode: number;
  responseHeaders?: HttpHeaders;
}
export interface AuthChallenger {
  host: string;
  port: number;
}
export interface OnAuthRequiredDetails extends CommonDetails {
  scheme: string;
  realm?: string;
  challenger: AuthChallenger;
  isProxy: boolean;
  responseHeaders?: HttpHeaders;
  statusLine: string;
  statusCode: number;
}
export interface OnResponseStartedDetails extends CommonDetails {
  ip?: string;
  fromCache: boolean;
  statusCode: number;
  responseHeaders?: HttpHeaders;
  statusLine: string;
}
export interface OnBeforeRedirectDetails extends CommonDetails {
  ip?: string;
  fromCache: boolean;
  statusCode: number;
  redirectUrl: string;
  responseHeaders?: HttpHeaders;
  statusLine: string;
}
export interface OnCompletedDetails extends CommonDetails {
  ip?: string;
  fromCache: boolean;
  statusCode: number;
  responseHeaders?: HttpHeaders;
  statusLine: string;
}
export interface OnErrorOccurredDetails extends CommonDetails {
  ip?: string;
  fromCache: boolean;
  error: string;
}

/** Each web request event with its details, option enum and whether it may block. */
export interface WebRequestEventMap {
  onBeforeRequest: { details: OnBeforeRequestDetails; option: OnBeforeRequestOptions; returns: BlockingResponse };
  onBeforeSendHeaders: { details: OnBeforeSendHeadersDetails; option: OnBeforeSendHeadersOptions; returns: BlockingResponse };
  onSendHeaders: { details: OnSendHeadersDetails; option: OnSendHeadersOptions; returns: void };
  onHeadersReceived: { details: OnHeadersReceivedDetails; option: OnHeadersReceivedOptions; returns: BlockingResponse };
  onAuthRequired: { details: OnAuthRequiredDetails; option: OnAuthRequiredOptions; returns: BlockingResponse };
  onResponseStarted: { details: OnResponseStartedDetails; option: OnResponseStartedOptions; returns: void };
  onBeforeRedirect: { details: OnBeforeRedirectDetails; option: OnBeforeRedirectOptions; returns: void };
  onCompleted: { details: OnCompletedDetails; option: OnCompletedOptions; returns: void };
  onErrorOccurred: { details: OnErrorOccurredDetails; option: never; returns: void };
}
export type WebRequestEventName = keyof WebRequestEventMap;
export type WebRequestDetails = WebRequestEventMap[WebRequestEventName]['details'];

/** The values each event accepts in extraInfoSpec (§2.5); onErrorOccurred takes none. */
export const EXTRA_INFO_SPEC: { readonly [E in WebRequestEventName]: readonly string[] } = {
  onBeforeRequest: ON_BEFORE_REQUEST_OPTIONS,
  onBeforeSendHeaders: ON_BEFORE_SEND_HEADERS_OPTIONS,
  onSendHeaders: ON_SEND_HEADERS_OPTIONS,
  onHeadersReceived: ON_HEADERS_RECEIVED_OPTIONS,
  onAuthRequired: ON_AUTH_REQUIRED_OPTIONS,
  onResponseStarted: ON_RESPONSE_STARTED_OPTIONS,
  onBeforeRedirect: ON_BEFORE_REDIRECT_OPTIONS,
  onCompleted: ON_COMPLETED_OPTIONS,
  onErrorOccurred: [],
};

/** In firing order for one hop (ARCHITECTURE.md "Event order per hop"). */
export const WEB_REQUEST_EVENTS: readonly WebRequestEventName[] = [
  'onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onAuthRequired',
  'onResponseStarted', 'onBeforeRedirect', 'onCompleted', 'onErrorOccurred',
];

/** Events whose listeners may return a BlockingResponse (the "Returns" column of §6.2). */
export const BLOCKING_EVENTS: ReadonlySet<WebRequestEventName> = new Set([
  'onBeforeRequest', 'onBeforeSendHeaders', 'onHeadersReceived', 'onAuthRequired',
]);

/** Which BlockingResponse keys each blocking event honours (§2.8 "Used in"). */
export const BLOCKING_RESPONSE_KEYS: { readonly [E in WebRequestEventName]?: readonly (keyof BlockingResponse)[] } = {
  onBeforeRequest: ['cancel', 'redirectUrl'],
  onBeforeSendHeaders: ['cancel', 'requestHeaders'],
  onHeadersReceived: ['cancel', 'redirectUrl', 'responseHeaders'],
  onAuthRequired: ['cancel', 'authCredentials'],
};

export type WebRequestListener<E extends WebRequestEventName> = E extends 'onAuthRequired'
  ? (
      details: OnAuthRequiredDetails,
      asyncCallback?: (response?: BlockingResponse) => void,
    ) => BlockingResponse | void | Promise<BlockingResponse | void>
  : WebRequestEventMap[E]['returns'] extends BlockingResponse
    ? (details: WebRequestEventMap[E]['details']) => BlockingResponse | void | Promise<BlockingResponse | void>
    : (details: WebRequestEventMap[E]['details']) => void;

/** Chrome's `net::ERR_*` names used by wrtui (§6.2 onErrorOccurred.error). */
export type NetError = `net::ERR_${string}`;
export const ERR_BLOCKED_BY_CLIENT: NetError = 'net::ERR_BLOCKED_BY_CLIENT';
