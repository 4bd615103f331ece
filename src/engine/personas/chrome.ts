// Chrome as of Chromium 156 (checked with an unpacked MV3 extension; see test/personas): its
// web_request.json enums, its registration errors word for word, its header visibility, its
// details fields, and its sequences (no re-fired events on an auth retry, onActionIgnored).
import type { ResourceType, WebRequestEventName } from '../types.js';
import { chromeEnumKey, restoreHidden, withoutHeaders, type Persona } from './persona.js';
import { CHROME_SURFACES } from './surface-dialects.js';

/** Chrome's ResourceType, in its schema's order. */
export const CHROME_RESOURCE_TYPES = [
  'main_frame', 'sub_frame', 'stylesheet', 'script', 'image', 'font', 'object', 'xmlhttprequest',
  'ping', 'csp_report', 'media', 'websocket', 'webbundle', 'other',
] as const;

// What the proxy saw (the spec's most specific name) → what Chrome reports. Chrome has no beacon
// (it says ping), no imageset (image), no xslt (stylesheet), no manifest, DTD or XBL (other).
const CHROME_TYPE: Partial<Record<ResourceType, string>> = {
  beacon: 'ping',
  imageset: 'image',
  xslt: 'stylesheet',
  web_manifest: 'other',
  xml_dtd: 'other',
  xbl: 'other',
};

const CHROME_EXTRA_INFO_SPEC: { readonly [E in WebRequestEventName]: readonly string[] } = {
  onBeforeRequest: ['blocking', 'requestBody', 'extraHeaders'],
  onBeforeSendHeaders: ['requestHeaders', 'blocking', 'extraHeaders'],
  onSendHeaders: ['requestHeaders', 'extraHeaders'],
  onHeadersReceived: ['blocking', 'responseHeaders', 'extraHeaders', 'securityInfo', 'securityInfoRawDer'],
  onAuthRequired: ['responseHeaders', 'blocking', 'asyncBlocking', 'extraHeaders'],
  onResponseStarted: ['responseHeaders', 'extraHeaders'],
  onBeforeRedirect: ['responseHeaders', 'extraHeaders'],
  onCompleted: ['responseHeaders', 'extraHeaders'],
  onErrorOccurred: ['extraHeaders'],
};

// Added below the extension layer (the network stack's own), so never shown: seen on Chromium 156,
// onBeforeSendHeaders shows no Host, Connection or Content-Length even with extraHeaders.
const NEVER_SHOWN_REQUEST = new Set(['host', 'connection', 'proxy-connection', 'proxy-authorization', 'keep-alive', 'content-length', 'transfer-encoding', 'te']);
// Shown (and changeable) only with extraHeaders.
const EXTRA_REQUEST = new Set([...NEVER_SHOWN_REQUEST, 'accept-encoding', 'accept-language', 'referer', 'cookie', 'origin']);
const EXTRA_RESPONSE = new Set(['set-cookie']);

const sorted = (values: readonly string[]) => [...values].sort().join(', ');

export const chromePersona: Persona = {
  name: 'chrome',
  resourceTypes: CHROME_RESOURCE_TYPES,
  typeOf: (seen) => CHROME_TYPE[seen] ?? seen,
  extraInfoSpec: CHROME_EXTRA_INFO_SPEC,
  filterKeys: ['types', 'tabId', 'windowId'],
  acceptsEmptyUrls: true,
  extraBlockingKeys: {},
  extraEnums: { IgnoredActionType: ['redirect', 'request_headers', 'response_headers', 'auth_credentials'] },
  // Chrome's messages word for word (Chromium 156), which name no call.
  errors: {
    badType: (_where, _value, index, allowed) => `Error at parameter 'filter': Error at property 'types': Error at index ${index}: Value must be one of ${sorted(allowed)}.`,
    unexpectedFilterKey: (_where, key) => `Error at parameter 'filter': Unexpected property: '${key}'.`,
    badOption: (_where, _event, _value, index, allowed) => `Error at parameter 'extraInfoSpec': Error at index ${index}: Value must be one of ${sorted(allowed)}.`,
  },
  enumKey: chromeEnumKey,
  visibleRequestHeaders: (headers, extraHeaders) => withoutHeaders(headers, extraHeaders ? NEVER_SHOWN_REQUEST : EXTRA_REQUEST),
  visibleResponseHeaders: (headers, extraHeaders) => (extraHeaders ? headers : withoutHeaders(headers, EXTRA_RESPONSE)),
  restoreRequestHeaders: (full, answered, extraHeaders) => restoreHidden(full, answered, extraHeaders ? NEVER_SHOWN_REQUEST : EXTRA_REQUEST),
  restoreResponseHeaders: (full, answered, extraHeaders) => (extraHeaders ? answered : restoreHidden(full, answered, EXTRA_RESPONSE)),
  preflightsNeedExtraHeaders: true,
  refiresAuthRetry: false,
  authCancelFails: false,
  hasActionIgnored: true,
  hasSecurityInfo: false,
  surfaces: CHROME_SURFACES,
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
  hasFilterResponseData: false,
  redirectNoticeWhenFollowed: false,
  // chrome.cookies.SameSiteStatus: a cookie without the attribute is "unspecified".
  cookieSameSite: (attribute) => (attribute === 'none' ? 'no_restriction' : attribute === 'lax' || attribute === 'strict' ? attribute : 'unspecified'),
  contextFields(context) {
    const fields: Record<string, unknown> = {};
    if (context.initiator !== undefined) fields.initiator = context.initiator;
    if (context.frameId !== undefined) {
      fields.frameId = context.frameId;
      fields.parentFrameId = context.parentFrameId;
    }
    if (context.documentId !== undefined) fields.documentId = context.documentId;
    if (context.parentDocumentId !== undefined) fields.parentDocumentId = context.parentDocumentId;
    if (context.documentLifecycle !== undefined) fields.documentLifecycle = context.documentLifecycle;
    if (context.frameType !== undefined) fields.frameType = context.frameType;
    return fields;
  },
};
