// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) as wrtui writes it. Readers are
// lenient (har-import.ts reads unknown JSON); these types describe what export produces, which
// Chrome DevTools' importer (HARFormat.ts) accepts: every number it casts is a number, every
// object it descends into is present.

export interface HarLog {
  log: {
    version: '1.2';
    creator: { name: string; version: string; comment?: string };
    pages: HarPage[];
    entries: HarEntry[];
    comment?: string;
  };
}

export interface HarPage {
  startedDateTime: string;
  id: string;
  title: string;
  pageTimings: { onContentLoad?: number; onLoad?: number };
}

export interface HarNameValue {
  name: string;
  value: string;
}

export interface HarCookie extends HarNameValue {
  path?: string;
  domain?: string;
  expires?: string;
  httpOnly?: boolean;
  secure?: boolean;
}

export interface HarEntry {
  pageref?: string;
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: HarCookie[];
    headers: HarNameValue[];
    queryString: HarNameValue[];
    postData?: { mimeType: string; text: string; params?: HarNameValue[] };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: HarCookie[];
    headers: HarNameValue[];
    content: { size: number; compression?: number; mimeType: string; text?: string; encoding?: string; comment?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    /** Chrome's: why the request failed (net::ERR_…). */
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { blocked?: number; dns?: number; connect?: number; send: number; wait: number; receive: number; ssl?: number };
  serverIPAddress?: string;
  /** Chrome's resource type names (document, stylesheet, xhr, …). */
  _resourceType?: string;
  _fromCache?: 'disk' | 'memory';
  /** wrtui's: what the recording knows beyond HAR, so an exported session imports back as it was. */
  _webRequest?: HarWebRequestExtension;
}

export interface HarWebRequestExtension {
  requestId: string;
  /** 0 for the original URL, 1 for the first redirect target, … */
  hop: number;
  /** 0, or the nth retry with credentials. */
  attempt: number;
  type: string;
  tabId: number;
  frameId: number;
  parentFrameId: number;
  storeId: string;
  /** A listener redirected at onBeforeRequest: the 307 is wrtui's, not the server's. */
  internalRedirect?: boolean;
  /** The headers that went upstream, after the cookie store and listeners. */
  sentHeaders?: HarNameValue[];
  /** How the request ended when it failed (net::ERR_…). */
  error?: string;
}
