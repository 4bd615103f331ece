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
//   no frame: frameId -1, no frameType, documentLifecycle or documentId, as Chrome reports
//   requests from outside a tab.
import { getPublicSuffix } from 'tough-cookie';
import { getHeader } from '../headers.js';
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
}

const MAX_DOCUMENTS = 512;

/** The documents seen loading, newest last, bounded (oldest forgotten first). */
export class DocumentTracker {
  readonly #byUrl = new Map<string, KnownDocument>();
  #nextDocument = 1;
  #nextFrameId = 1;

  /** A frame id for a new sub-frame (positive, unique for the session). */
  allocateFrameId(): number {
    return this.#nextFrameId++;
  }

  /** Records a navigation's document under its final URL. */
  loaded(url: string, frame: { frameType: 'outermost_frame' | 'sub_frame'; frameId: number; parentFrameId: number; parent?: KnownDocument }): KnownDocument {
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
    return { ...base, frameType: 'outermost_frame', documentLifecycle: 'active', frameId: 0, parentFrameId: -1, frameAncestors: [], ...(referer !== undefined && { originUrl: referer }) };
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
function siteOf(urlOrOrigin: string): string {
  try {
    const host = new URL(urlOrOrigin).hostname;
    // Special-use names (.test, .example, localhost) are sites like any other, not errors.
    return getPublicSuffix(host, { allowSpecialUseDomain: true }) ?? host;
  } catch {
    return urlOrOrigin;
  }
}
