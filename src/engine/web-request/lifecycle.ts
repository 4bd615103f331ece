// The request lifecycle, independent of any transport. A RequestFlight is one request across all
// its hops (server redirects, listener redirects, auth retries) under one requestId. Its phase
// methods fire the events in order, ask the listeners, merge and apply their verdicts:
//
//   beforeRequest()      onBeforeRequest                       → cancel | redirect | continue
//   prepareToSend()      onBeforeSendHeaders, onSendHeaders    → cancel | send(headers)
//   headersReceived(r)   onHeadersReceived, (onAuthRequired), (onBeforeRedirect)
//                                                              → cancel | redirect | retry-auth | respond
//   responseStarted()    onResponseStarted
//   completed()          onCompleted
//   fail(error)          onErrorOccurred
//
// A request ends once (completed, fail, redirectNotFollowed) and nothing of it is journaled after
// that: a phase whose listeners were still thinking when it ended answers cancel with the error it
// ended with, its event journaled before the end (event-firing.ts).
//
// The live proxy calls the phases from its hooks; runRequest() drives them over a Transport.
import type { Journal } from '../journal.js';
import type { Owner } from '../owner.js';
import { DocumentTracker, type KnownTab } from '../personas/request-context.js';
import type { DnrEngine } from '../dnr/dnr-engine.js';
import { EventFiring } from './event-firing.js';
import type { ListenerRegistry } from './listener-registry.js';
import type { CookieBridge, CookieMode, RequestInit } from './request-init.js';
import type { ExtensionResourceLookup } from './flight-host.js';
import { RequestFlight } from './request-flight.js';
import type { SecurityInfoOptions } from './security-info.js';
import type { FilterEndpoint, ResponseFilter } from './stream-filter.js';
import type { Transport } from './transport.js';

export type { CookieAccess, CookieBridge, CookieMode, ExtensionRequester, RequestInit } from './request-init.js';
export type { BeforeRequestDecision, FrameHeaders, HeadersDecision, InternalRedirect, SendDecision } from './phase-decisions.js';

export interface RequestLifecycleOptions {
  registry: ListenerRegistry;
  journal: Journal;
  /** When given, requests carry the store's cookies and responses' Set-Cookie go into it. */
  cookies?: CookieBridge;
  now?: () => number;
  /** How long a blocking listener may take before the request goes on without it. */
  listenerTimeoutMs?: number;
  /** Credentials answered per hop before wrtui stops retrying (bad credentials must not loop forever). */
  maxAuthAttempts?: number;
  dryRun?: boolean;
  /**
   * Whether requests carry the jar's cookies ('send', the default) or the jar only learns from
   * Set-Cookie and serves the cookies API ('observe', for clients with a jar of their own).
   */
  cookieMode?: CookieMode;
  /** Extensions' declarativeNetRequest rules, evaluated beside the listeners. */
  dnr?: DnrEngine;
}

export type NavigationEvent = 'onBeforeNavigate' | 'onCommitted' | 'onDOMContentLoaded' | 'onCompleted' | 'onErrorOccurred' | 'onHistoryStateUpdated' | 'onReferenceFragmentUpdated' | 'onCreatedNavigationTarget';

/** What an extension may do to an attached browser's tabs (`wrtui browser`). */
export interface BrowserTabControl {
  /** Opens a tab loading `url` (about:blank when none); resolves with its id once its requests are watched. */
  create(url: string | undefined): Promise<number>;
  /** Loads `url` in the tab. */
  navigate(tabId: number, url: string): Promise<void>;
  reload(tabId: number): Promise<void>;
  remove(tabId: number): Promise<void>;
}

const DEFAULT_LISTENER_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_AUTH_ATTEMPTS = 3;

export class RequestLifecycle {
  readonly registry: ListenerRegistry;
  readonly journal: Journal;
  readonly cookies: CookieBridge | undefined;
  readonly cookieMode: CookieMode;
  readonly dnr: DnrEngine | undefined;
  readonly now: () => number;
  listenerTimeoutMs: number;
  maxAuthAttempts: number;
  /** Engine-wide dry-run: every verdict is computed and journaled, none applied. */
  dryRun: boolean;
  /** The documents navigations loaded: where subresources' documentId and frames come from. */
  readonly documents = new DocumentTracker();
  /** The extensions' web accessible resources (the extension host sets it). */
  extensionResources: ExtensionResourceLookup | undefined;
  /** A tab counted from traffic for the first time (the extension host tells extensions: tabs.onCreated). */
  onTabCreated: ((tab: KnownTab) => void) | undefined;
  /** An attached browser's tab changed (tabs.onUpdated) or closed (tabs.onRemoved); the extension host tells extensions. */
  onTabUpdated: ((tab: KnownTab) => void) | undefined;
  onTabRemoved: ((tabId: number) => void) | undefined;
  /** An attached browser's navigation event (webNavigation's details, as Chrome gives them); the extension host tells extensions. */
  onNavigation: ((event: NavigationEvent, details: Record<string, unknown>) => void) | undefined;
  /** An attached browser's tabs, which extensions may act on (tabs.create/update/remove/reload); undefined: no browser is attached. */
  tabControl: BrowserTabControl | undefined;
  /**
   * Where the requests extensions make themselves go out: the live proxy's upstream; 'offline' in a
   * replay (which makes no requests of its own: the recording's are replayed); undefined without a
   * proxy (an embedding), where Node's fetch goes straight out.
   */
  network: Transport | 'offline' | undefined;
  #nextRequestId = 1;
  /** Requests not finished yet, by requestId (Firefox's getSecurityInfo finds them here). */
  readonly #inFlight = new Map<string, RequestFlight>();
  /** Tells listeners of events and journals them (event-firing.ts). */
  readonly events: EventFiring = new EventFiring(this);

  constructor(options: RequestLifecycleOptions) {
    this.registry = options.registry;
    this.journal = options.journal;
    this.cookies = options.cookies;
    this.cookieMode = options.cookieMode ?? 'send';
    this.dnr = options.dnr;
    this.now = options.now ?? (() => performance.timeOrigin + performance.now());
    this.listenerTimeoutMs = options.listenerTimeoutMs ?? DEFAULT_LISTENER_TIMEOUT_MS;
    this.maxAuthAttempts = options.maxAuthAttempts ?? DEFAULT_MAX_AUTH_ATTEMPTS;
    this.dryRun = options.dryRun ?? false;
  }

  /** A new request: a fresh requestId. Throws a TypeError for URLs webRequest never sees. */
  start(init: RequestInit): RequestFlight {
    const flight = new RequestFlight(this, String(this.#nextRequestId++), init);
    if (!flight.finished) this.#inFlight.set(flight.requestId, flight);
    return flight;
  }

  /** The flight ended: it is no longer findable by id. */
  ended(flight: RequestFlight): void {
    this.#inFlight.delete(flight.requestId);
  }

  /**
   * Firefox's webRequest.getSecurityInfo(requestId, options) for `ownerId`: undefined unless one of
   * its blocking listeners has been given this request (Firefox registers the channel for the
   * extension then, and answers nothing otherwise).
   */
  securityInfo(ownerId: string, requestId: string, options: SecurityInfoOptions): Record<string, unknown> | undefined {
    const flight = this.#inFlight.get(requestId);
    return flight?.tracedBy?.has(ownerId) ? flight.securityInfo(options) : undefined;
  }

  /**
   * Firefox's webRequest.filterResponseData(requestId) for `owner`: a filter on the request's
   * response body, or Firefox's error for a request it cannot filter (unknown, ended, not within
   * the owner's host permissions, or whose response has already started).
   */
  attachFilter(owner: Owner, requestId: string, endpoint: FilterEndpoint): ResponseFilter | { error: string } {
    const flight = this.#inFlight.get(requestId);
    if (!flight || !owner.hostPermissions.matches(flight.url)) return { error: 'Invalid request ID' };
    return flight.attachFilter(owner.id, endpoint) ?? { error: 'Invalid request ID' };
  }
}

export { RequestFlight } from './request-flight.js';
export type { ExtensionResourceLookup, FlightHost } from './flight-host.js';
export { redirectMethod } from './redirect-hop.js';
