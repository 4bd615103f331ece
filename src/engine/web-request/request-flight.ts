// One request across all its hops (server redirects, listener redirects, auth retries) under one
// requestId: its state, and the phase methods its driver calls in order (see lifecycle.ts).
import { EXTENSION_PROTOCOLS } from '../match-pattern.js';
import { getHeader, withHeader } from '../headers.js';
import type { WebRequestEntry, WrtuiAddedHeader } from '../journal.js';
import {
  ERR_BLOCKED_BY_CLIENT,
  type HttpHeaders,
  type NetError,
  type ResourceType,
  type WebRequestBody,
  type WebRequestDetails,
  type CommonDetails,
} from '../types.js';
import { specPersona, type EventFacts, type Persona } from '../personas/index.js';
import { contextFromBrowser, requestContext, type KnownDocument, type RequestContext } from '../personas/request-context.js';
import { authorizationFor, type AuthChallenge } from './auth-challenge.js';
import { AUTH_RETRY_BEFORE_REQUEST, AUTH_RETRY_FACTS, AUTH_RETRY_REFIRES, challengeOf } from './auth-retry.js';
import type { EventWait, FiringPace } from './event-firing.js';
import type { FilterableRequest } from './request-filter.js';
import { storeResponseCookies, withJarCookies } from './flight-cookies.js';
import { securityInfo, type SecurityInfoOptions, type TlsFacts } from './security-info.js';
import { ResponseFilter, type FilterEndpoint } from './stream-filter.js';
import { statusLineOf, type ResponseHead } from './transport.js';
import { dnrBlocker, dnrInfoOf, filterableAt, PersonaFields, webRequestUrl } from './request-views.js';
import type { FlightHost } from './flight-host.js';
import { secureUrlOf, redirectMethod, toldWhenFollowed, WEB_SCHEMES, withHost, withoutBodyHeaders, withoutCredentials } from './redirect-hop.js';
import type { CookieAccess, ExtensionRequester, RequestInit } from './request-init.js';
import type { BeforeRequestDecision, FrameHeaders, HeadersDecision, InternalRedirect, SendDecision } from './phase-decisions.js';

/** What takeFilters gives for the many requests no filter was made for. */
const NO_FILTERS: readonly ResponseFilter[] = Object.freeze([]);

export class RequestFlight {
  /** The rule or extension that cancelled it (a listener's owner, or a declarativeNetRequest rule), once cancelled. */
  cancelledBy: string | undefined;
  readonly requestId: string;
  readonly lifecycle: FlightHost;
  readonly type: ResourceType;
  readonly tabId: number;
  readonly windowId: number;
  readonly frameId: number;
  readonly parentFrameId: number;
  readonly storeId: string;
  readonly madeBy: ExtensionRequester | undefined;
  #cookieAccess: CookieAccess;
  readonly #atRedirect: RequestInit['atRedirect'];
  url: string;
  method: string;
  /** The client's headers for the current hop, before cookies and listeners. */
  requestHeaders: HttpHeaders;
  body: Uint8Array | undefined;
  requestBody: WebRequestBody | undefined;
  /** Hops so far (1 = the original request). */
  hop = 1;
  /** Set once onCompleted or onErrorOccurred fired: nothing more fires. */
  get finished(): boolean {
    return this.#finished;
  }
  set finished(value: boolean) {
    this.#finished = value;
    if (!value) return;
    this.lifecycle.ended(this);
    // Filters that never saw a body: the request ended before it (cancelled, failed, answered by wrtui).
    for (const filter of this.takeFilters()) filter.abandon();
  }
  #finished = false;
  /** Owners whose blocking listeners were given this request (Firefox's getSecurityInfo answers them); made on first use, as most requests reach no such listener. */
  tracedBy: Set<string> | undefined;
  /** The blocking event being waited for, if any: ending the request journals it first (event-firing.ts). */
  waiting: EventWait | undefined;
  /** Replay's scheduler: when the request may go on after waiting for listeners (event-firing.ts). */
  pace: FiringPace | undefined;
  /** What the request ended with, once it failed (a phase that was waiting answers with it). */
  #endedWith: NetError | undefined;
  /** StreamFilters waiting for this request's response body (Firefox's filterResponseData); made on first use, as most requests have none. */
  #filters: ResponseFilter[] | undefined;
  /** onResponseStarted fired for the latest response: too late for a new filter. */
  #bodyStarted = false;
  /** The TLS connection of the latest response, if it came over TLS. */
  #tls: (() => TlsFacts) | undefined;
  #filterable: FilterableRequest;
  /** Where the request comes from, worked out when a persona first asks (personas/request-context.ts). */
  #context: (RequestContext & { parentDocument?: KnownDocument }) | undefined;
  readonly #clientHeaders: HttpHeaders;
  /** An attached browser did not describe it (RequestInit.inferred). */
  readonly #inferred: boolean;
  /** The next prepareToSend answers an auth challenge (fires nothing for Chrome and the spec). */
  #authRetry = false;
  /** This hop is being retried with credentials: its events fire only for personas that re-fire them. */
  #authRetried = false;
  /** What went out last on this hop, for the retry with credentials. */
  #lastSent: HttpHeaders | undefined;
  #authAttempts = 0;
  #authorization: { header: string; value: string } | undefined;
  #responseHeadersOwner: string | undefined;
  #response: { statusCode: number; statusLine: string; responseHeaders: HttpHeaders; ip?: string; fromCache: boolean } | undefined;
  /**
   * A server redirect's onBeforeRedirect for the personas that tell it only once the client follows
   * (Firefox), with the 3xx they are told instead (onCompleted) if it does not.
   */
  #redirectNotice: { details: WebRequestDetails; filterable: FilterableRequest } | undefined;
  /** The hop that got the latest redirect, for a client that takes the 3xx as its answer. */
  #redirectedFrom: { url: string; method: string; filterable: FilterableRequest; fromCache: boolean; ip: string | undefined } | undefined;

  constructor(lifecycle: FlightHost, requestId: string, init: RequestInit) {
    this.lifecycle = lifecycle;
    this.requestId = requestId;
    this.type = init.type ?? 'other';
    this.windowId = init.windowId ?? -1;
    this.parentFrameId = init.told?.parentFrameId ?? init.parentFrameId ?? -1;
    this.storeId = init.storeId ?? '0';
    this.madeBy = init.madeBy;
    this.#cookieAccess = init.cookies ?? 'all';
    this.#atRedirect = init.atRedirect;
    this.url = init.url;
    this.method = init.method.toUpperCase();
    this.requestHeaders = init.requestHeaders;
    this.body = init.body;
    this.requestBody = init.requestBody;
    this.#clientHeaders = init.requestHeaders;
    this.#inferred = init.inferred === true;
    if (init.told) {
      if (init.told.type !== undefined) this.type = init.told.type;
      this.#context = contextFromBrowser(init.told, init.requestHeaders, this.method);
    }
    // A tab the client named (X-Wrtui-Tab-Id), a replay's recorded one, or the one wrtui counts the
    // request in from what it shows (request-context.ts).
    this.tabId = init.told?.tabId ?? init.tabId ?? this.context.tabId ?? -1;
    this.frameId = init.told?.frameId ?? init.frameId ?? (this.type === 'main_frame' ? 0 : this.tabId === -1 ? -1 : 0);
    if (this.type === 'main_frame' && this.tabId > 0) {
      const opened = lifecycle.documents.navigating(this.tabId, this.url, this.storeId);
      // A tab wrtui had not seen: extensions hear tabs.onCreated before its first onBeforeRequest.
      if (opened) lifecycle.onTabCreated?.(opened);
    }
    this.#filterable = filterableAt(this, webRequestUrl(init.url));
  }

  /** Each persona's details fields, made on first use (request-views.ts). */
  readonly #personaFields = new PersonaFields(this);

  fieldsFor(persona: Persona): Record<string, unknown> {
    return this.#personaFields.fieldsFor(persona);
  }

  fieldsJsonFor(persona: Persona): string {
    return this.#personaFields.fieldsJsonFor(persona);
  }

  /** Firefox's SecurityInfo of the latest response: `state: "insecure"` before one, or over plain HTTP. */
  securityInfo(options: SecurityInfoOptions): Record<string, unknown> {
    return securityInfo(this.#response ? this.#tls?.() : undefined, options, this.#response?.responseHeaders);
  }

  /** onBeforeRequest's journal note of an extension's own request: which extension made it (replay makes it its own again). */
  #madeByNote(): Pick<WebRequestEntry, 'madeBy' | 'inferred'> {
    if (this.#inferred) return { inferred: true };
    return this.madeBy ? { madeBy: { extension: this.madeBy.name, origin: this.madeBy.origin } } : {};
  }

  /** The request's context (initiator, document, frames), the same through redirects as Chrome's initiator is. */
  get context(): RequestContext {
    // An extension's own request comes from its origin, in no tab or frame (Chromium 156).
    if (this.madeBy) return (this.#context ??= { initiator: this.madeBy.origin, preflight: false, thirdParty: false });
    return (this.#context ??= requestContext({ url: this.url, method: this.method, headers: this.#clientHeaders, type: this.type }, this.lifecycle.documents));
  }

  /** onBeforeRequest. A cancel ends the request (onErrorOccurred); a redirect starts the next hop. */
  async beforeRequest(): Promise<BeforeRequestDecision> {
    this.#assertActive('beforeRequest');
    const notice = this.#redirectNotice;
    this.#redirectNotice = undefined;
    if (notice) this.lifecycle.events.notifyLater('onBeforeRedirect', notice.details, notice.filterable, toldWhenFollowed);
    const details = { ...this.#common(), ...(this.requestBody && { requestBody: this.requestBody }) };
    // declarativeNetRequest decides first; onBeforeRequest still fires (Chromium 156 shows it for a
    // request its rules block or redirect), but nobody waits for a listener's answer then.
    // (Not at an extension's own URL: declarativeNetRequest acts on web requests only.)
    const dnr = this.lifecycle.dnr?.active && !this.atExtensionUrl ? this.lifecycle.dnr.beforeRequest(dnrInfoOf(this)) : undefined;
    if (dnr && dnr.action.kind !== 'none') {
      this.lifecycle.events.notify('onBeforeRequest', details, this.#filterable, undefined, this.#madeByNote());
      this.lifecycle.dnr!.journal(dnr.entry!);
      if (dnr.action.kind === 'block') return this.#cancel(dnrBlocker(dnr.entry));
      return this.#internalRedirect(dnr.action.url, 307, 'Internal Redirect', false);
    }
    const { verdict } = await this.lifecycle.events.fire(this, 'onBeforeRequest', details, this.#filterable, {}, undefined, this.#madeByNote());
    if (this.finished) return this.#ended(); // the client left while the listeners thought
    // The rules' entry follows the event's: the journal's first entry for a request is its onBeforeRequest.
    if (dnr?.entry) this.lifecycle.dnr!.journal(dnr.entry);
    if (verdict.cancelledBy !== undefined) return this.#cancel(verdict.cancelledBy);
    if (verdict.redirectUrl !== undefined) return this.#internalRedirect(verdict.redirectUrl, 307, 'Internal Redirect', false);
    if (verdict.upgradeToSecure) {
      const secure = secureUrlOf(this.url);
      if (secure !== undefined) return this.#internalRedirect(secure, 307, 'Internal Redirect', false);
    }
    return { action: 'continue' };
  }

  /**
   * onBeforeSendHeaders then onSendHeaders. The store's cookies (and, on an auth retry, the
   * Authorization header) are added first, so listeners see what will really be sent.
   */
  async prepareToSend(transport: { frame?: FrameHeaders } = {}): Promise<SendDecision> {
    this.#assertActive('prepareToSend');
    if (this.#authRetry) return this.#prepareAuthRetry(transport);
    let headers = this.requestHeaders;
    const added: WrtuiAddedHeader[] = [];
    const cookies = this.lifecycle.cookies;
    // An extension's own request has no client jar: wrtui is its browser, whatever --cookies says.
    if (cookies && (this.lifecycle.cookieMode === 'send' || this.madeBy) && this.#cookieAccess !== 'none') {
      const withCookies = withJarCookies(cookies, headers, this.url, this.storeId, this.#cookieAccess);
      headers = withCookies.headers;
      if (withCookies.added) added.push(withCookies.added);
    }
    if (this.#authorization) {
      headers = withHeader(headers, this.#authorization.header, this.#authorization.value);
      added.push({ header: this.#authorization.header, by: 'auth credentials' });
    }

    const { verdict } = await this.lifecycle.events.fire(
      this,
      'onBeforeSendHeaders',
      { ...this.#common(), requestHeaders: headers },
      this.#filterable,
      { shownRequestHeaders: headers },
      undefined,
      added.length > 0 ? { wrtuiAdded: added } : {},
    );
    if (this.finished) return this.#ended();
    if (verdict.cancelledBy !== undefined) return this.#cancel(verdict.cancelledBy);
    let sent = verdict.requestHeaders ?? headers;
    // Rules change request headers after the listeners: onSendHeaders shows their work, onBeforeSendHeaders did not.
    if (this.lifecycle.dnr?.active) sent = this.lifecycle.dnr.requestHeaders(dnrInfoOf(this), sent);
    // The transport's own framing (a proxy that must send Content-Length) is part of what is sent.
    if (transport.frame) sent = transport.frame(sent, sent !== this.requestHeaders);
    // §3: "modifications made by onBeforeSendHeaders listeners are visible by the time onSendHeaders fires".
    if (this.lifecycle.events.heard('onSendHeaders')) this.lifecycle.events.notify('onSendHeaders', { ...this.#common(), requestHeaders: sent }, this.#filterable);
    this.#lastSent = sent;
    return { action: 'send', requestHeaders: sent };
  }

  /**
   * The same request again with credentials. Chrome fires nothing for it (its
   * test_auth_required.js expects BR, BSH, SH, HR(401), AR, RS, C), so neither does the spec;
   * Firefox fires onBeforeRequest, onBeforeSendHeaders and onSendHeaders again, to its listeners.
   */
  async #prepareAuthRetry(transport: { frame?: FrameHeaders }): Promise<SendDecision> {
    this.#authRetry = false;
    this.#authRetried = true;
    const authorization = this.#authorization!;
    let headers = withHeader(this.#lastSent ?? this.requestHeaders, authorization.header, authorization.value);
    const before = await this.lifecycle.events.fire(this, 'onBeforeRequest', { ...this.#common(), ...(this.requestBody && { requestBody: this.requestBody }) }, this.#filterable, {}, AUTH_RETRY_BEFORE_REQUEST);
    if (this.finished) return this.#ended();
    if (before.verdict.cancelledBy !== undefined) return this.#cancel(before.verdict.cancelledBy);
    const { verdict } = await this.lifecycle.events.fire(this, 'onBeforeSendHeaders', { ...this.#common(), requestHeaders: headers }, this.#filterable, { shownRequestHeaders: headers }, AUTH_RETRY_REFIRES, {}, AUTH_RETRY_FACTS);
    if (this.finished) return this.#ended();
    if (verdict.cancelledBy !== undefined) return this.#cancel(verdict.cancelledBy);
    headers = verdict.requestHeaders ?? headers;
    if (transport.frame) headers = transport.frame(headers, true);
    this.lifecycle.events.notify('onSendHeaders', { ...this.#common(), requestHeaders: headers }, this.#filterable, AUTH_RETRY_REFIRES, {}, undefined, AUTH_RETRY_FACTS);
    this.#lastSent = headers;
    return { action: 'send', requestHeaders: headers };
  }

  /**
   * onHeadersReceived, then whichever follows: onAuthRequired on a challenge, onBeforeRedirect on a
   * server or listener redirect. Set-Cookie headers of the (possibly replaced) response are stored.
   */
  async headersReceived(head: ResponseHead): Promise<HeadersDecision> {
    this.#assertActive('headersReceived');
    const statusLine = statusLineOf(head);
    const { statusCode } = head;
    this.#response = { statusCode, statusLine, responseHeaders: head.headers, fromCache: head.fromCache ?? false, ...(head.ip !== undefined && { ip: head.ip }) };
    this.#tls = head.tls;

    const merged = await this.lifecycle.events.fire(
      this,
      'onHeadersReceived',
      { ...this.#common(), statusCode, statusLine, responseHeaders: head.headers },
      this.#filterable,
      { shownResponseHeaders: head.headers, ...(this.#responseHeadersOwner !== undefined && { responseHeadersOwner: this.#responseHeadersOwner }) },
      this.#authRetried ? AUTH_RETRY_REFIRES : undefined,
    );
    if (this.finished) return this.#ended();
    const { verdict } = merged;
    this.#responseHeadersOwner ??= merged.responseHeadersOwner;
    if (verdict.cancelledBy !== undefined) return this.#cancel(verdict.cancelledBy);
    if (verdict.redirectUrl !== undefined) {
      // Chrome turns the response into a "302 Found" to the new URL: the next hop is a GET (§2.8).
      return this.#internalRedirect(verdict.redirectUrl, 302, 'Found', true);
    }
    let responseHeaders = verdict.responseHeaders ?? head.headers;
    // Rules change response headers after the listeners (onResponseStarted shows it, onHeadersReceived did not).
    if (this.lifecycle.dnr?.active) {
      const ruled = this.lifecycle.dnr.responseHeaders(dnrInfoOf(this), responseHeaders);
      if (ruled.blocked) return this.#cancel('a declarativeNetRequest rule');
      responseHeaders = ruled.headers;
    }
    this.#response.responseHeaders = responseHeaders;
    if (this.lifecycle.cookies && this.#cookieAccess !== 'none') storeResponseCookies(this.lifecycle.cookies, this.lifecycle.journal, this, this.#cookieAccess, responseHeaders);

    const challenge = challengeOf(statusCode, responseHeaders);
    if (challenge && this.lifecycle.registry.count('onAuthRequired') > 0) {
      const retry = await this.#authRequired(challenge, statusLine, statusCode, responseHeaders);
      if (this.finished) return this.#ended();
      if (retry) return retry;
    }

    const location = getHeader(responseHeaders, 'location');
    if (statusCode >= 300 && statusCode < 400 && statusCode !== 304 && location !== undefined) {
      let redirectUrl: string | undefined;
      try {
        redirectUrl = new URL(location, this.url).href;
      } catch {
        // An unparseable Location is no redirect; the client gets the response as it is.
      }
      if (redirectUrl !== undefined) {
        this.#beforeRedirect(redirectUrl, statusCode, statusLine, responseHeaders, head.fromCache ?? false, head.ip, true);
        this.#nextHop(redirectUrl, redirectMethod(this.method, statusCode), head.fromCache ?? false, head.ip);
        return { action: 'redirect', redirectUrl, statusCode, statusLine, responseHeaders, internal: false };
      }
    }
    if ((this.type === 'main_frame' || this.type === 'sub_frame') && statusCode >= 200 && statusCode < 300) this.#documentLoaded();
    return { action: 'respond', statusCode, statusLine, responseHeaders, headersModified: responseHeaders !== head.headers };
  }

  /** A navigation's response: its URL is a document now, which later subresources may name in Referer. */
  #documentLoaded(): void {
    const context = this.context as RequestContext & { parentDocument?: KnownDocument };
    const topLevel = this.type === 'main_frame';
    this.lifecycle.documents.loaded(this.url, {
      frameType: topLevel ? 'outermost_frame' : 'sub_frame',
      frameId: context.frameId ?? 0,
      parentFrameId: context.parentFrameId ?? -1,
      ...(context.parentDocument && { parent: context.parentDocument }),
      tabId: this.tabId,
      storeId: this.storeId,
    });
  }

  /** A new StreamFilter on this request's body; undefined once the response has started. */
  attachFilter(ownerId: string, endpoint: FilterEndpoint): ResponseFilter | undefined {
    if (this.finished || this.#bodyStarted) return undefined;
    const filter = new ResponseFilter(ownerId, endpoint);
    (this.#filters ??= []).push(filter);
    return filter;
  }

  /** The filters the next response body goes through, in the order they were made (the caller runs them). */
  takeFilters(): readonly ResponseFilter[] {
    const filters = this.#filters;
    this.#filters = undefined;
    return filters ?? NO_FILTERS;
  }

  /** onResponseStarted: the first byte of the body arrived (or the head, for an empty body). */
  responseStarted(): void {
    this.#assertActive('responseStarted');
    this.#bodyStarted = true;
    const response = this.#requireResponse('responseStarted');
    if (!this.lifecycle.events.heard('onResponseStarted')) return;
    this.lifecycle.events.notify('onResponseStarted', { ...this.#common(), ...response }, this.#filterable);
  }

  /** onCompleted: the whole response arrived. */
  completed(): void {
    if (this.finished) return;
    const response = this.#requireResponse('completed');
    this.waiting?.journalNow('completed');
    this.finished = true;
    this.lifecycle.events.notify('onCompleted', { ...this.#common(), ...response }, this.#filterable);
  }

  /** onErrorOccurred, once; later calls (a late abort after a cancel, say) are ignored. */
  fail(error: NetError): void {
    if (this.finished) return;
    // An event whose listeners are still thinking is journaled first: nothing follows the end.
    this.waiting?.journalNow(error);
    this.#endedWith = error;
    this.finished = true;
    const response = this.#response;
    this.lifecycle.events.notify(
      'onErrorOccurred',
      { ...this.#common(), fromCache: response?.fromCache ?? false, error, ...(response?.ip !== undefined && { ip: response.ip }) },
      this.#filterable,
    );
  }

  /**
   * The client took the latest redirect as its answer and will not follow it (curl without -L,
   * fetch with redirect: "manual"). Chromium 156 ends such a request right after onBeforeRedirect
   * with onErrorOccurred net::ERR_ABORTED at the URL that answered 3xx, not at the redirect's
   * target: so does every persona. The journal marks the entry, so screens show a completed 3xx.
   */
  redirectNotFollowed(): void {
    const from = this.#redirectedFrom;
    if (this.finished || !from) return this.fail('net::ERR_ABORTED');
    this.waiting?.journalNow('net::ERR_ABORTED');
    this.finished = true;
    this.url = from.url;
    this.method = from.method;
    this.#filterable = from.filterable;
    const notice = this.#redirectNotice;
    this.#redirectNotice = undefined;
    this.lifecycle.events.notify(
      'onErrorOccurred',
      { ...this.#common(), fromCache: from.fromCache, error: 'net::ERR_ABORTED', ...(from.ip !== undefined && { ip: from.ip }) },
      this.#filterable,
      undefined,
      { ending: 'redirect-not-followed' },
      notice ? toldWhenFollowed : undefined,
    );
    // Firefox (checked on ESR 153.7: fetch with redirect: "manual"): the 3xx is the answer, onCompleted, no onBeforeRedirect.
    if (notice) {
      const { redirectUrl: _notFollowed, ...response } = notice.details as WebRequestDetails & { redirectUrl: string };
      this.lifecycle.events.notifyLater('onCompleted', { ...response, timeStamp: this.lifecycle.now() } as WebRequestDetails, notice.filterable, toldWhenFollowed);
    }
  }

  #common(): CommonDetails {
    return {
      requestId: this.requestId,
      url: this.url,
      method: this.method,
      frameId: this.frameId,
      parentFrameId: this.parentFrameId,
      tabId: this.tabId,
      type: specPersona.typeOf(this.type) as ResourceType,
      timeStamp: this.lifecycle.now(),
    };
  }

  /** A phase's answer once the request ended while it waited for listeners: the caller stops there. */
  #ended(): { action: 'cancel'; error: NetError } {
    return { action: 'cancel', error: this.#endedWith ?? 'net::ERR_ABORTED' };
  }

  /** Ends the request as blocked; `by` (a rule's or extension's name) is kept for the client's answer. */
  #cancel(by?: string): { action: 'cancel'; error: NetError } {
    this.cancelledBy = by;
    this.fail(ERR_BLOCKED_BY_CLIENT);
    return { action: 'cancel', error: ERR_BLOCKED_BY_CLIENT };
  }

  #internalRedirect(redirectUrl: string, statusCode: number, reason: string, toGet: boolean): InternalRedirect {
    const statusLine = `HTTP/1.1 ${statusCode} ${reason}`;
    const responseHeaders: HttpHeaders = [
      { name: 'Location', value: redirectUrl },
      { name: 'Non-Authoritative-Reason', value: 'WebRequest API' },
    ];
    const replaced = this.#response && { statusCode: this.#response.statusCode, statusLine: this.#response.statusLine };
    this.#beforeRedirect(redirectUrl, statusCode, statusLine, responseHeaders, false, undefined, false, { decidedRedirect: replaced ? { replaced } : {} });
    this.#nextHop(redirectUrl, toGet ? 'GET' : this.method, false, undefined);
    return { action: 'redirect', redirectUrl, statusCode, statusLine, responseHeaders, internal: true };
  }

  /**
   * The hop is at an extension's own URL (a redirect to its resource). No client can ask the
   * network for it: whoever drives the request runs beforeRequest() for it (its onBeforeRequest
   * fires, as in Chromium 156), then serveExtensionResource().
   */
  get atExtensionUrl(): boolean {
    return this.#filterable.extensionHost !== undefined;
  }

  /**
   * The browser serves an extension's resource itself if the extension made it web accessible
   * (onResponseStarted and onCompleted, 200, at that URL; no onBeforeSendHeaders, onSendHeaders or
   * onHeadersReceived), and otherwise ends the request with net::ERR_BLOCKED_BY_CLIENT (Chromium
   * 156, checked with an image). Returns what to serve; undefined when the request failed.
   */
  async serveExtensionResource(): Promise<{ statusLine: string; headers: HttpHeaders; body: Uint8Array } | undefined> {
    this.#assertActive('serveExtensionResource');
    const resource = await this.lifecycle.extensionResources?.(this.#filterable.url);
    if (this.finished) return undefined; // the client left while the file was read
    if (!resource) {
      this.fail('net::ERR_BLOCKED_BY_CLIENT');
      return undefined;
    }
    const statusLine = 'HTTP/1.1 200 OK';
    const headers: HttpHeaders = [{ name: 'Content-Type', value: resource.type }];
    this.#response = { statusCode: 200, statusLine, responseHeaders: headers, fromCache: false };
    this.responseStarted();
    this.completed();
    return { statusLine, headers, body: resource.bytes };
  }

  #beforeRedirect(
    redirectUrl: string,
    statusCode: number,
    statusLine: string,
    responseHeaders: HttpHeaders,
    fromCache: boolean,
    ip: string | undefined,
    server = false,
    facts?: EventFacts,
  ): void {
    const details = { ...this.#common(), statusCode, statusLine, redirectUrl, responseHeaders, fromCache, ...(ip !== undefined && { ip }) };
    // A server's redirect: Firefox tells its listeners only when the client follows it (see redirectNotFollowed).
    this.#redirectNotice = server ? { details, filterable: this.#filterable } : undefined;
    this.lifecycle.events.notify('onBeforeRedirect', details, this.#filterable, undefined, {}, server ? toldWhenFollowed : undefined, facts);
  }

  /** The same request goes on at a new URL. webRequest never sees data: and about: URLs, so there the request ends. */
  #nextHop(url: string, method: string, fromCache: boolean, ip: string | undefined): void {
    this.#redirectedFrom = { url: this.url, method: this.method, filterable: this.#filterable, fromCache, ip };
    this.hop++;
    this.#bodyStarted = false;
    this.#authAttempts = 0;
    this.#authorization = undefined;
    this.#authRetried = false;
    this.#lastSent = undefined;
    this.#response = undefined;
    if (method !== this.method) {
      // A method change drops the body and the headers that described it (fetch's redirect rules).
      this.body = undefined;
      this.requestBody = undefined;
      this.requestHeaders = withoutBodyHeaders(this.requestHeaders);
    }
    const next = new URL(url);
    if (WEB_SCHEMES.has(next.protocol)) {
      if (this.#atRedirect) {
        const hop = this.#atRedirect(url, method, this.body !== undefined);
        this.requestHeaders = hop.requestHeaders;
        this.#cookieAccess = hop.cookies;
      } else {
        // The next hop is sent to its own host.
        this.requestHeaders = withHost(this.requestHeaders, next.host);
      }
    }
    if (next.origin !== this.#filterable.url.origin) {
      // Credentials meant for one origin are not sent to another.
      this.requestHeaders = withoutCredentials(this.requestHeaders);
    }
    this.url = url;
    this.method = method;
    // An extension's URL is a hop webRequest reports (serveExtensionResource); data: and about: end here.
    if (WEB_SCHEMES.has(next.protocol) || EXTENSION_PROTOCOLS.has(next.protocol)) this.#filterable = filterableAt(this, next);
    else this.finished = true;
  }

  async #authRequired(
    challenge: AuthChallenge & { isProxy: boolean },
    statusLine: string,
    statusCode: number,
    responseHeaders: HttpHeaders,
  ): Promise<HeadersDecision | undefined> {
    const journal = this.lifecycle.journal;
    if (this.#authAttempts >= this.lifecycle.maxAuthAttempts) {
      journal.append({
        kind: 'log',
        level: 'warn',
        source: 'webRequest',
        message: `request ${this.requestId}: credentials were rejected ${this.#authAttempts} times; passing the ${statusCode} to the client`,
      });
      return undefined;
    }
    const url = new URL(this.url);
    const { verdict } = await this.lifecycle.events.fire(
      this,
      'onAuthRequired',
      {
        ...this.#common(),
        scheme: challenge.scheme.toLowerCase(),
        ...(challenge.params.realm !== undefined && { realm: challenge.params.realm }),
        challenger: { host: url.hostname, port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80) },
        isProxy: challenge.isProxy,
        responseHeaders,
        statusLine,
        statusCode,
      },
      this.#filterable,
    );
    if (this.finished) return undefined; // the caller sees the end
    // Chrome's cancel here is CancelAuth: the 401 itself is shown, so the request completes with it.
    // Firefox's ends the request: its test_ext_webRequest_auth.js expects onErrorOccurred.
    if (verdict.cancelledBy !== undefined && verdict.canceller?.persona.authCancelFails) return this.#cancel(verdict.cancelledBy);
    if (verdict.cancelledBy !== undefined || !verdict.authCredentials) return undefined;
    const value = authorizationFor(challenge, verdict.authCredentials, { method: this.method, url: this.url });
    if (value === undefined) {
      journal.append({ kind: 'log', level: 'warn', source: 'webRequest', message: `request ${this.requestId}: cannot answer a "${challenge.scheme}" challenge; passing it to the client` });
      return undefined;
    }
    this.#authAttempts++;
    this.#authorization = { header: challenge.isProxy ? 'Proxy-Authorization' : 'Authorization', value };
    this.#authRetry = true;
    this.#response = undefined;
    return { action: 'retry-auth' };
  }

  #requireResponse(phase: string) {
    if (!this.#response) throw new Error(`request ${this.requestId}: ${phase} before headersReceived`);
    return this.#response;
  }

  #assertActive(phase: string): void {
    if (this.finished) throw new Error(`request ${this.requestId} already finished; ${phase} is too late`);
  }
}
