// What a proxy can know of where a request comes from, derived once per request from what it shows
// (Sec-Fetch-*, Origin, Referer) and from the navigations seen before it. Chrome's details fields
// (initiator, documentId, parentDocumentId, frameType, documentLifecycle) and Firefox's (originUrl,
// documentUrl, frameAncestors, thirdParty) are both made from it.
//
// What a proxy cannot know, and what wrtui does there:
// - A browser assigns a document its id when the navigation commits; wrtui does when it sees the
//   navigation's response (2xx, text), under its final URL, and finds a subresource's document by
//   its Referer. A cross-origin Referer carries only the origin (the default referrer policy), so
//   the newest top-level document of that origin is taken (a cross-origin fetch from an iframe of
//   the same origin is then attributed to the top frame); with no Referer
//   (referrerpolicy=no-referrer) there is no documentId.
// - Prerendering, back/forward cache and fenced frames are invisible: documentLifecycle is always
//   "active"; frameType is "outermost_frame" or "sub_frame".
// - A request no document made (curl, a Node client: no Sec-Fetch-*, Origin or Referer) is given
//   no frame and no tab: frameId and tabId -1, no frameType, documentLifecycle or documentId, as
//   Chrome reports requests from outside a tab.
// - Tabs: a browser's page requests all carry their tab's id, and extensions commonly ignore
//   tabId -1 ("not from a tab"). wrtui cannot see tabs, so it numbers them from 1: a top-level
//   navigation opens a new tab unless its Referer names a document wrtui saw (a link followed, a
//   form sent: the same tab); a frame, and a request its Referer finds a document for, is in that
//   document's tab. A request from a page wrtui never saw load has no known tab (-1).
import { getPublicSuffix } from 'tough-cookie';
import { getHeader } from '../headers.js';
import type { ToldRequest } from '../capture/browser-told.js';
import type { HttpHeaders, ResourceType } from '../types.js';

export interface FrameAncestor {
  url: string;
  frameId: number;
}

export interface RequestContext {
  /** Chrome's initiator: the origin that caused the request ("null" when opaque), absent for a typed navigation. */
  initiator?: string;
  /** The document the request belongs to (subresources); absent for navigations. */
  documentId?: string;
  /** For a sub-frame navigation and requests in sub-frames: the parent frame's document. */
  parentDocumentId?: string;
  frameType?: 'outermost_frame' | 'sub_frame';
  documentLifecycle?: 'active';
  /** Frame ids as a browser would number them (0 the top frame); absent when no document is known. */
  frameId?: number;
  parentFrameId?: number;
  /** Firefox: the URL of what triggered the request. */
  originUrl?: string;
  /** Firefox: the URL of the document the resource loads into. */
  documentUrl?: string;
  frameAncestors?: FrameAncestor[];
  /** The tab wrtui counts the request in (see above); absent when none is known. */
  tabId?: number;
  thirdParty: boolean;
  /** A CORS preflight the browser made itself (OPTIONS with Access-Control-Request-Method). */
  preflight: boolean;
}

/** A document wrtui saw loaded: a navigation's response. */
export interface KnownDocument {
  documentId: string;
  url: string;
  origin: string;
  frameId: number;
  parentFrameId: number;
  frameType: 'outermost_frame' | 'sub_frame';
  parentDocumentId?: string;
  ancestors: FrameAncestor[];
  /** The tab it loaded in (-1: unknown). */
  tabId: number;
}

const MAX_DOCUMENTS = 512;
const MAX_TABS = 512;

/** A tab wrtui counted from traffic (request-context.ts): what chrome.tabs answers with. */
export interface KnownTab {
  id: number;
  /** Its latest top-level document's URL ('' while its first navigation loads). */
  url: string;
  /** The URL a navigation in it is loading, until the document is in. */
  pendingUrl?: string;
  /** The cookie store of its traffic ("1": the incognito port). */
  storeId: string;
  /** Epoch ms of its latest top-level document. */
  lastAccessed: number;
}

/** The documents seen loading, newest last, bounded (oldest forgotten first). */
export class DocumentTracker {
  readonly #byUrl = new Map<string, KnownDocument>();
  #nextDocument = 1;
  #nextFrameId = 1;
  #nextTab = 1;
  readonly #tabs = new Map<number, KnownTab>();

  /** A tab id for a top-level navigation from no known document (positive, unique for the session). */
  newTab(): number {
    return this.#nextTab++;
  }

  /** The tabs seen, in the order they opened (the oldest forgotten past MAX_TABS). */
  tabs(): KnownTab[] {
    return [...this.#tabs.values()].sort((a, b) => a.id - b.id);
  }

  tab(id: number): KnownTab | undefined {
    return this.#tabs.get(id);
  }

  /** A top-level navigation starts in tab `tabId` (a new tab, or one seen before): it is loading `url`. Returns the tab when it is new. */
  navigating(tabId: number, url: string, storeId: string): KnownTab | undefined {
    const known = this.#tabs.get(tabId);
    const tab = { id: tabId, url: known?.url ?? '', pendingUrl: url, storeId, lastAccessed: Date.now() };
    this.#remember(tab);
    return known ? undefined : tab;
  }

  /** A tab the attached browser opened (`wrtui browser`): known before any request of it. Returns it when it is new. */
  opened(tabId: number, url: string, storeId = '0'): KnownTab | undefined {
    if (this.#tabs.has(tabId)) return undefined;
    const tab = { id: tabId, url, storeId, lastAccessed: Date.now() };
    this.#remember(tab);
    return tab;
  }

  /** The attached browser's tab now shows `url`. Returns the tab when it changed. */
  updated(tabId: number, url: string): KnownTab | undefined {
    const tab = this.#tabs.get(tabId);
    if (!tab || (tab.url === url && tab.pendingUrl === undefined)) return undefined;
    tab.url = url;
    delete tab.pendingUrl;
    return tab;
  }

  /** The attached browser closed the tab. Returns whether it was known. */
  closed(tabId: number): boolean {
    return this.#tabs.delete(tabId);
  }

  #remember(tab: KnownTab): void {
    this.#tabs.delete(tab.id);
    this.#tabs.set(tab.id, tab);
    if (this.#tabs.size > MAX_TABS) this.#tabs.delete(this.#tabs.keys().next().value!);
  }

  /** A frame id for a new sub-frame (positive, unique for the session). */
  allocateFrameId(): number {
    return this.#nextFrameId++;
  }

  /** Records a navigation's document under its final URL. */
  loaded(url: string, frame: { frameType: 'outermost_frame' | 'sub_frame'; frameId: number; parentFrameId: number; parent?: KnownDocument; tabId: number; storeId?: string }): KnownDocument {
    if (frame.frameType === 'outermost_frame' && frame.tabId > 0) this.#remember({ id: frame.tabId, url, storeId: frame.storeId ?? '0', lastAccessed: Date.now() });
    const documentId = documentIdOf(this.#nextDocument++);
    const document: KnownDocument = {
      documentId,
      url,
      origin: originOf(url),
      frameId: frame.frameId,
      parentFrameId: frame.parentFrameId,
      frameType: frame.frameType,
      ...(frame.parent && { parentDocumentId: frame.parent.documentId }),
      ancestors: frame.parent ? [{ url: frame.parent.url, frameId: frame.parent.frameId }, ...frame.parent.ancestors] : [],
      tabId: frame.tabId,
    };
    this.#byUrl.delete(url);
    this.#byUrl.set(url, document);
    if (this.#byUrl.size > MAX_DOCUMENTS) this.#byUrl.delete(this.#byUrl.keys().next().value!);
    return document;
  }

  /**
   * The document a Referer names: that URL, else (an origin-only Referer: a cross-origin request
   * under the default referrer policy) the newest top-level document of that origin, else its
   * newest frame. Pages make most cross-origin requests from the top frame.
   */
  find(referer: string): KnownDocument | undefined {
    const exact = this.#byUrl.get(referer);
    if (exact) return exact;
    let origin: string;
    try {
      const url = new URL(referer);
      if (url.pathname !== '/' || url.search !== '') return undefined;
      origin = url.origin;
    } catch {
      return undefined;
    }
    let newest: KnownDocument | undefined;
    let newestTop: KnownDocument | undefined;
    for (const document of this.#byUrl.values()) {
      if (document.origin !== origin) continue;
      newest = document;
      if (document.frameType === 'outermost_frame') newestTop = document;
    }
    return newestTop ?? newest;
  }
}

/** 32 hex digits, as Chrome's document ids look. */
function documentIdOf(n: number): string {
  return n.toString(16).toUpperCase().padStart(32, '0');
}

/** The context of a new request (its first hop: the initiator stays the same through redirects). */
export function requestContext(
  request: { url: string; method: string; headers: HttpHeaders; type: ResourceType },
  documents: DocumentTracker,
): RequestContext & { parentDocument?: KnownDocument } {
  const { url, method, headers, type } = request;
  const secFetchSite = getHeader(headers, 'sec-fetch-site');
  const origin = getHeader(headers, 'origin');
  const referer = getHeader(headers, 'referer');
  const preflight = method === 'OPTIONS' && getHeader(headers, 'access-control-request-method') !== undefined;
  const fromDocument = secFetchSite !== undefined || getHeader(headers, 'sec-fetch-dest') !== undefined || referer !== undefined || origin !== undefined;

  let initiator: string | undefined;
  if (secFetchSite !== 'none') {
    if (origin !== undefined) initiator = origin;
    else if (referer !== undefined) initiator = originOf(referer);
    else if (secFetchSite === 'same-origin') initiator = originOf(url);
  }
  const thirdParty = secFetchSite !== undefined ? secFetchSite === 'cross-site' : initiator !== undefined && initiator !== 'null' && siteOf(initiator) !== siteOf(url);
  const base = { preflight, thirdParty, ...(initiator !== undefined && { initiator }) };
  if (!fromDocument) return base;

  const document = referer !== undefined ? documents.find(referer) : undefined;
  if (type === 'main_frame') {
    const tabId = document && document.tabId !== -1 ? document.tabId : documents.newTab();
    return { ...base, frameType: 'outermost_frame', documentLifecycle: 'active', frameId: 0, parentFrameId: -1, frameAncestors: [], tabId, ...(referer !== undefined && { originUrl: referer }) };
  }
  if (type === 'sub_frame') {
    return {
      ...base,
      frameType: 'sub_frame',
      documentLifecycle: 'active',
      frameId: documents.allocateFrameId(),
      parentFrameId: document?.frameId ?? 0,
      ...(document && { parentDocumentId: document.documentId, documentUrl: document.url, parentDocument: document }),
      frameAncestors: document ? [{ url: document.url, frameId: document.frameId }, ...document.ancestors] : [],
      ...(document && document.tabId !== -1 && { tabId: document.tabId }),
      ...(referer !== undefined && { originUrl: referer }),
    };
  }
  if (!document) {
    return { ...base, frameType: 'outermost_frame', documentLifecycle: 'active', frameId: 0, parentFrameId: -1, ...(referer !== undefined && { originUrl: referer, documentUrl: referer }) };
  }
  return {
    ...base,
    documentId: document.documentId,
    ...(document.parentDocumentId !== undefined && { parentDocumentId: document.parentDocumentId }),
    frameType: document.frameType,
    documentLifecycle: 'active',
    frameId: document.frameId,
    parentFrameId: document.parentFrameId,
    originUrl: referer ?? document.url,
    documentUrl: document.url,
    frameAncestors: document.ancestors,
    ...(document.tabId !== -1 && { tabId: document.tabId }),
  };
}

/**
 * The context of a request the attached browser described (capture/browser-told.ts): its frames,
 * tab, document and initiator are the browser's; Firefox's originUrl, documentUrl, frameAncestors
 * and thirdParty are the browser's where it told them (firefox-attach.ts), else follow from the
 * rest (the Referer, the initiator's site against the URL's, as the inference does).
 */
export function contextFromBrowser(told: ToldRequest, headers: HttpHeaders, method: string): RequestContext {
  const preflight = method === 'OPTIONS' && getHeader(headers, 'access-control-request-method') !== undefined;
  const { initiator } = told;
  const thirdParty = told.thirdParty ?? (initiator !== undefined && initiator !== 'null' && siteOf(initiator) !== siteOf(told.url));
  const originUrl = told.originUrl ?? getHeader(headers, 'referer') ?? told.documentUrl;
  return {
    preflight,
    thirdParty,
    ...(initiator !== undefined && { initiator }),
    frameId: told.frameId,
    parentFrameId: told.parentFrameId,
    tabId: told.tabId,
    ...(told.frameType !== undefined && { frameType: told.frameType }),
    ...(told.documentLifecycle !== undefined && { documentLifecycle: told.documentLifecycle }),
    ...(told.documentId !== undefined && { documentId: told.documentId }),
    ...(told.parentDocumentId !== undefined && { parentDocumentId: told.parentDocumentId }),
    ...(told.documentUrl !== undefined && { documentUrl: told.documentUrl }),
    ...(originUrl !== undefined && { originUrl }),
    frameAncestors: told.frameAncestors ?? [],
  };
}

export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}

/** The registrable domain ("site") of a URL or origin; the host itself for IPs and localhost. */
export function siteOf(urlOrOrigin: string): string {
  try {
    const host = new URL(urlOrOrigin).hostname;
    // Special-use names (.test, .example, localhost) are sites like any other, not errors.
    return getPublicSuffix(host, { allowSpecialUseDomain: true }) ?? host;
  } catch {
    return urlOrOrigin;
  }
}
