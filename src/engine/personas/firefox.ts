// Firefox as of ESR 153 (toolkit/components/extensions/schemas/web_request.json, MDN, and what a
// real Firefox showed: see ../shared/design/FACTS.md): its type list and enum spellings, every
// header shown, its details fields, upgradeToSecure, and its sequences (an auth retry re-fires
// onBeforeRequest … onHeadersReceived; a cancel in onAuthRequired ends the request with an error).
import { headerText } from '../headers.js';
import type { HttpHeader, WebRequestEventName } from '../types.js';
import { firefoxEnumKey, restoreHidden, showsEveryHeader, withoutHeaders, type Persona } from './persona.js';
import { FIREFOX_SURFACES } from './surface-dialects.js';

export const FIREFOX_RESOURCE_TYPES = [
  'main_frame', 'sub_frame', 'stylesheet', 'script', 'image', 'object', 'object_subrequest',
  'xmlhttprequest', 'xslt', 'ping', 'beacon', 'xml_dtd', 'font', 'media', 'websocket', 'csp_report',
  'imageset', 'web_manifest', 'speculative', 'json', 'other',
] as const;

const FIREFOX_EXTRA_INFO_SPEC: { readonly [E in WebRequestEventName]: readonly string[] } = {
  onBeforeRequest: ['blocking', 'requestBody'],
  onBeforeSendHeaders: ['requestHeaders', 'blocking'],
  onSendHeaders: ['requestHeaders'],
  onHeadersReceived: ['blocking', 'responseHeaders'],
  onAuthRequired: ['responseHeaders', 'blocking', 'asyncBlocking'],
  onResponseStarted: ['responseHeaders'],
  onBeforeRedirect: ['responseHeaders'],
  onCompleted: ['responseHeaders'],
  onErrorOccurred: [],
};

// Firefox's HTTP layer, below webRequest, adds Priority (RFC 9218) to every request and
// Content-Length: 0 to a bodiless PUT: seen on Firefox ESR 153.7, which sends both to a proxy but
// shows no listener either (onBeforeSendHeaders lists every other header; a body's Content-Length
// it shows).
const emptyContentLength = (header: HttpHeader) => header.name.toLowerCase() === 'content-length' && headerText(header).trim() === '0';
const belowWebRequest = (header: HttpHeader) => header.name.toLowerCase() === 'priority' || emptyContentLength(header);

export const firefoxPersona: Persona = {
  name: 'firefox',
  resourceTypes: FIREFOX_RESOURCE_TYPES,
  typeOf: (seen) => seen,
  extraInfoSpec: FIREFOX_EXTRA_INFO_SPEC,
  filterKeys: ['types', 'tabId', 'windowId', 'incognito'],
  acceptsEmptyUrls: false,
  extraBlockingKeys: { onBeforeRequest: ['upgradeToSecure'] },
  extraEnums: {},
  errors: {
    badType: (where, value, index) => `Type error for parameter filter (Error processing types.${index}: Invalid enumeration value ${JSON.stringify(value)}) for ${where}.`,
    unexpectedFilterKey: (where, key) => `Type error for parameter filter (Unexpected property "${key}") for ${where}.`,
    badOption: (where, _event, value, index) => `Type error for parameter extraInfoSpec (Error processing ${index}: Invalid enumeration value ${JSON.stringify(value)}) for ${where}.`,
  },
  enumKey: firefoxEnumKey,
  ...showsEveryHeader,
  // The retry after onAuthRequired is the request as already sent: Firefox ESR 153.8 shows its Priority.
  visibleRequestHeaders: (headers, _extraHeaders, facts) => withoutHeaders(headers, facts?.authRetry ? emptyContentLength : belowWebRequest),
  restoreRequestHeaders: (full, answered) => restoreHidden(full, answered, belowWebRequest),
  preflightsNeedExtraHeaders: false,
  refiresAuthRetry: true,
  authCancelFails: true,
  hasActionIgnored: false,
  hasSecurityInfo: true,
  surfaces: FIREFOX_SURFACES,
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0',
  hasFilterResponseData: true,
  redirectNoticeWhenFollowed: true,
  // Firefox's SameSiteStatus has no "unspecified": a cookie without the attribute is stored as None.
  cookieSameSite: (attribute) => (attribute === 'lax' || attribute === 'strict' ? attribute : 'no_restriction'),
  // Checked on Firefox ESR 153.8 (test/personas/firefox-differential.test.ts): a cancelled request
  // fails with NS_ERROR_ABORT; a redirect an add-on decides in onHeadersReceived reports the status
  // of the response it replaced, one decided in onBeforeRequest "200" with an empty reason phrase.
  eventFields(event, details, facts) {
    if (event === 'onErrorOccurred' && details.error === 'net::ERR_BLOCKED_BY_CLIENT') return { error: 'NS_ERROR_ABORT' };
    if (event === 'onBeforeRedirect' && facts?.decidedRedirect) return facts.decidedRedirect.replaced ?? { statusCode: 200, statusLine: 'HTTP/1.1 200 ' };
    return undefined;
  },
  contextFields(context, storeId) {
    const incognito = storeId === '1';
    // Assigned one by one rather than spread: made for every request a Firefox listener sees.
    const fields: Record<string, unknown> = {};
    if (context.frameId !== undefined) {
      fields.frameId = context.frameId;
      fields.parentFrameId = context.parentFrameId;
    }
    if (context.originUrl !== undefined) fields.originUrl = context.originUrl;
    if (context.documentUrl !== undefined) fields.documentUrl = context.documentUrl;
    fields.frameAncestors = context.frameAncestors ?? [];
    fields.thirdParty = context.thirdParty;
    fields.cookieStoreId = incognito ? 'firefox-private' : 'firefox-default';
    fields.incognito = incognito;
    // Firefox fills these from its tracking-protection lists, which wrtui does not have.
    fields.urlClassification = { firstParty: [], thirdParty: [] };
    fields.proxyInfo = null;
    return fields;
  },
};
