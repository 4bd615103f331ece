// What starts a request flight: the request as its client made it, who made it, and the cookies it may use.
import type { CrossSite } from '../cookies/cookie-match.js';
import type { ToldRequest } from '../capture/browser-told.js';
import type { HttpHeaders, ResourceType, WebRequestBody } from '../types.js';

/** How the lifecycle reaches a cookie store (satisfied by CookieJars). */
export interface CookieBridge {
  /** `crossSite`: only the cookies a cross-site request carries (SameSite=None; see CrossSite). */
  cookieHeader(url: string, storeId: string, crossSite?: CrossSite): string;
  /** `crossSite`: from a cross-site response, which may set only those cookies. */
  setFromResponse(url: string, setCookieHeaders: string[], storeId: string, crossSite?: CrossSite): { rejected?: readonly { header: string; reason: string }[] } | void;
}

/**
 * Which of the store's cookies a request carries, and which of its response's it stores: all (a
 * page's requests, an extension's own with host permission), those of a cross-site request (an
 * extension's fetch with credentials to an origin it has no host permission for), or none
 * (fetch's "omit", or the default "same-origin" across origins).
 */
export type CookieAccess = 'all' | CrossSite | 'none';

export type CookieMode = 'send' | 'observe';

export interface RequestInit {
  url: string;
  method: string;
  requestHeaders: HttpHeaders;
  /** The whole request body, when there is one. */
  body?: Uint8Array;
  /** onBeforeRequest's requestBody, computed by the caller (see parseRequestBody). */
  requestBody?: WebRequestBody;
  type?: ResourceType;
  tabId?: number;
  windowId?: number;
  frameId?: number;
  parentFrameId?: number;
  /** The cookie store this request uses: "0" (default) or "1" (incognito). */
  storeId?: string;
  /** Made by an extension itself (its own fetch): it comes from that extension's origin, and only it may see it. */
  madeBy?: ExtensionRequester;
  /** Which cookies it carries and stores ('all' when not given). */
  cookies?: CookieAccess;
  /**
   * A redirect is followed to `url`: the next hop's headers and cookie access, for a caller that
   * builds them per URL (an extension's fetch, whose CORS mode and Origin change with the origin).
   * Without it the headers go on as they were (Host set to the new host).
   */
  atRedirect?: (url: string, method: string, withBody: boolean) => { requestHeaders: HttpHeaders; cookies: CookieAccess };
  /** What the attached browser said of this request (its type, frames, tab, document, initiator): used instead of inferring them. */
  told?: ToldRequest;
  /** A browser is attached but did not describe this request: its context is inferred, and the journal says so. */
  inferred?: boolean;
}

/** The extension a request comes from: its name, its origin (chrome-extension://<id>) and that origin's host. */
export interface ExtensionRequester {
  name: string;
  origin: string;
  host: string;
  /**
   * The version of it that made the request (its worker): only that version's listeners are told
   * of it, even while it still loads (a hot reload's old and new versions each see their own).
   */
  version?: object;
}
