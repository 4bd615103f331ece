// What replay works from, whatever the file was (a wrtui session, a headless NDJSON capture, a
// HAR): requests as a client made them and responses as the network gave them, plus where each
// step sat in the recorded timeline, so replay can interleave requests as they were interleaved.
import type { SerializedCookie } from 'tough-cookie';
import type { JournalEntry } from '../journal.js';
import type { HttpHeaders, NetError, ResourceType, WebRequestBody } from '../types.js';
import type { SessionHeader } from './session-format.js';

/** One response as the network (or the HTTP cache) gave it, before any listener changed it. */
export interface RecordedResponse {
  statusCode: number;
  statusLine: string;
  headers: HttpHeaders;
  ip?: string;
  fromCache: boolean;
  /** Undefined when the recording has no body for it (not recorded, or over the size cap). */
  body?: Uint8Array;
  /** The body is as it crossed the wire (still content-encoded) unless it was decoded (HAR content). */
  bodyDecoded: boolean;
  /** The body broke off midway with this error. */
  bodyError?: NetError;
}

/** One request sent upstream (a hop has several when credentials were supplied). */
export interface RecordedExchange {
  /** The headers that went upstream (onSendHeaders). */
  sentHeaders?: HttpHeaders;
  response?: RecordedResponse;
  /** The network failed before any response. */
  error?: NetError;
  /**
   * Timeline positions of onBeforeSendHeaders and of the response (or the network error); and where
   * the cookie store was read for this send: live, that happens right after the request's previous
   * event, before the onBeforeSendHeaders listeners run (their entry is journaled once they
   * answered), so it sits half-way after that event's position.
   */
  at: { beforeSendHeaders?: number; cookiesRead?: number; response?: number };
}

/** One URL of a request: the original one, then each redirect target. */
export interface RecordedHop {
  url: string;
  method: string;
  /** The client's own headers, before the cookie store and listeners; undefined when none were seen (cancelled before). */
  clientHeaders?: HttpHeaders;
  body?: Uint8Array;
  requestBody?: WebRequestBody;
  exchanges: RecordedExchange[];
  /** Where this hop was redirected to (server or listener redirect). */
  redirectUrl?: string;
  /** A listener redirected the hop at onBeforeRequest: nothing was sent, wrtui answered 307 itself. */
  redirectedInternally?: boolean;
  /** The error the hop (so the request) ended with. */
  error?: string;
  at: { beforeRequest?: number; responseStarted?: number; end?: number };
}

export interface RecordedRequest {
  /** Position among the recording's requests, 0-based, in the order they started. */
  index: number;
  /** The requestId it had when recorded (HAR: the entry number of its first hop). */
  requestId: string;
  type: ResourceType;
  tabId: number;
  frameId: number;
  parentFrameId: number;
  storeId: string;
  /** An extension made it itself (its fetch): which, and its origin. */
  madeBy?: { extension: string; origin: string };
  hops: RecordedHop[];
  /** The client did not follow the last hop's redirect (wrtui then ended the request as aborted). */
  redirectNotFollowed: boolean;
  /** The recording holds the request's end (onCompleted or onErrorOccurred). */
  complete: boolean;
}

export type SessionSource = 'wrtui-session' | 'wrtui-journal' | 'har';

export interface RecordedSession {
  source: SessionSource;
  file: string;
  header: SessionHeader | undefined;
  requests: RecordedRequest[];
  /** Epoch ms of each timeline position: replay's clock reads these. */
  times: number[];
  /** When recording started (replay's clock starts here). */
  startedAt: number;
  /** Cookie stores as recording started, by store id. */
  cookies: Record<string, SerializedCookie[]>;
  /** The recorded journal (wrtui sessions): what replay is compared with. HAR has none; see session-replay.ts. */
  journal: JournalEntry[] | undefined;
  redacted: boolean;
  listenerTimeoutMs: number | undefined;
  warnings: string[];
}
