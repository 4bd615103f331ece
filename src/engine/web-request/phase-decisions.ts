// What each phase of a request flight answers its driver (the live proxy, runRequest, a replay).
import type { HttpHeaders, NetError } from '../types.js';

export type BeforeRequestDecision =
  | { action: 'cancel'; error: NetError }
  | { action: 'continue' }
  | InternalRedirect;

/**
 * Lets a transport adjust framing headers after the listeners are done and before onSendHeaders,
 * so that onSendHeaders reports what really goes out. `changed`: the headers differ from the client's.
 */
export type FrameHeaders = (headers: HttpHeaders, changed: boolean) => HttpHeaders;

export type SendDecision = { action: 'cancel'; error: NetError } | { action: 'send'; requestHeaders: HttpHeaders };

export type HeadersDecision =
  | { action: 'cancel'; error: NetError }
  | { action: 'retry-auth' }
  | InternalRedirect
  | { action: 'redirect'; redirectUrl: string; statusCode: number; statusLine: string; responseHeaders: HttpHeaders; internal: false }
  | { action: 'respond'; statusCode: number; statusLine: string; responseHeaders: HttpHeaders; headersModified: boolean };

/** A redirect a listener asked for: the proxy answers it itself. */
export interface InternalRedirect {
  action: 'redirect';
  redirectUrl: string;
  statusCode: number;
  statusLine: string;
  responseHeaders: HttpHeaders;
  internal: true;
}
