// What a proxy can see of a request, mapped to the spec's ResourceType (§2.4), plus the frame and
// tab ids wrtui reports for it (§6.2 common details).
//
// A browser knows why it fetches something; a proxy only sees the request. Chromium says most of
// it in `Sec-Fetch-Dest` (its webRequest type follows the fetch destination almost one to one),
// so that header decides whenever it is present. Without it (plain http:// to a non-loopback host,
// where Chromium sends no Sec-Fetch-*, and non-browser clients) the Accept header, Range and a few
// URL extensions are weaker hints, and `other` is the honest answer when none applies.
//
// Where Chrome's answer cannot be copied:
// - The spec's type list is Firefox's; where the request shows a more specific kind than Chrome
//   reports, the spec's name wins: `manifest` → web_manifest (Chrome: other) and `xslt` → xslt
//   (Chrome: stylesheet). `beacon`, `xbl`, `xml_dtd` and `imageset` are never inferred: Chrome
//   reports beacons as `ping` and nothing on the wire distinguishes the others.
// - navigator.sendBeacon(): Chromium 156 sends it as a POST with `Sec-Fetch-Dest: empty` and
//   `Sec-Fetch-Mode: no-cors` (a fetch() POST says `cors`), so that pair is inferred as `beacon`
//   (Firefox's name); the spec and Chrome personas report it as `ping`, as Chrome does. A
//   fetch(url, { method: 'POST', mode: 'no-cors' }) looks the same on the wire and is reported as
//   a beacon too. A beacon whose body needs CORS (a Blob of application/json) says `cors` and is
//   reported as xmlhttprequest. `<a ping>` (Content-Type: text/ping, Ping-From/Ping-To) is `ping`.
// - Without Sec-Fetch-Dest an iframe navigation looks like a top-level one: both are main_frame.
import type { ResourceType } from '../types.js';

/** The request as the proxy received it. Header names are lower-case, as Node gives them. */
export interface ObservedRequest {
  method: string;
  url: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** Frame ids as §6.2 defines them: 0 is the main frame, positive a subframe, -1 none. */
export interface FrameInfo {
  frameId: number;
  parentFrameId: number;
}

/** A tab id a client may send to attribute its requests to a tab; wrtui strips it before forwarding. */
export const TAB_ID_HEADER = 'x-wrtui-tab-id';

/** §6.2: tabId is -1 when the request is not related to a tab. */
export const NO_TAB_ID = -1;

// Chromium's fetch destinations (services/network/public/cpp/request_destination.cc) and the
// webRequest type Chrome reports for each, except where the spec names the kind more precisely.
const TYPE_BY_FETCH_DEST: ReadonlyMap<string, ResourceType> = new Map(Object.entries<ResourceType>({
  document: 'main_frame',
  iframe: 'sub_frame',
  frame: 'sub_frame',
  fencedframe: 'sub_frame',
  object: 'object',
  embed: 'object',
  style: 'stylesheet',
  xslt: 'xslt',
  script: 'script',
  worker: 'script',
  sharedworker: 'script',
  serviceworker: 'script',
  sharedstorageworklet: 'script',
  json: 'script', // JSON modules: Chrome files them with scripts
  image: 'image',
  font: 'font',
  audio: 'media',
  video: 'media',
  track: 'media',
  report: 'csp_report', // Chrome reports every Reporting API upload as csp_report
  manifest: 'web_manifest',
  websocket: 'websocket',
  // Chrome: other.
  audioworklet: 'other',
  paintworklet: 'other',
  webbundle: 'other',
  webidentity: 'other',
  dictionary: 'other',
  speculationrules: 'other',
}));

// Only extensions whose Chromium requests carry a generic `Accept: */*` (scripts, fonts): for
// images, stylesheets and documents Chromium sends a telling Accept, so a `.png` asked for with
// `*/*` is a fetch() or a non-browser client, and claiming `image` would be a guess.
const SCRIPT_EXTENSIONS = new Set(['js', 'mjs', 'cjs']);
const FONT_EXTENSIONS = new Set(['woff', 'woff2', 'ttf', 'otf', 'eot']);
const MEDIA_EXTENSIONS = new Set([
  'mp4', 'm4v', 'm4a', 'webm', 'mkv', 'mov', 'ogg', 'ogv', 'oga', 'opus', 'mp3', 'wav', 'flac', 'aac',
]);

/** The webRequest type of a request, from what a proxy can see of it. */
export function inferResourceType(request: ObservedRequest): ResourceType {
  const header = (name: string): string => headerValue(request.headers, name).trim().toLowerCase();

  // WebSocket handshakes carry no Sec-Fetch-Dest in Chromium; over HTTP/2 (RFC 8441) they are
  // an extended CONNECT with `:protocol: websocket`.
  if (/(^|,)\s*websocket\s*(,|$)/.test(header('upgrade')) || header(':protocol') === 'websocket') return 'websocket';
  if (/^wss?:/i.test(request.url)) return 'websocket';

  const contentType = mediaType(header('content-type'));
  // `<a ping>`: these markers are on the wire whatever else the request says.
  if (contentType === 'text/ping' || header('ping-to') !== '' || header('ping-from') !== '') return 'ping';
  // report-uri sends application/csp-report; the Reporting API (report-to) application/reports+json.
  if (contentType === 'application/csp-report' || contentType === 'application/reports+json') return 'csp_report';

  const dest = header('sec-fetch-dest');
  if (dest !== '') return typeForFetchDest(dest, header, request.method);
  return typeFromWeakerHints(request, header);
}

function typeForFetchDest(dest: string, header: (name: string) => string, method: string): ResourceType {
  if (dest === 'empty') {
    // `<link rel=prefetch>` has an empty destination too; Chrome reports it as other.
    if (header('sec-purpose').startsWith('prefetch') || header('purpose') === 'prefetch') return 'other';
    // sendBeacon (see the top comment).
    if (method.toUpperCase() === 'POST' && header('sec-fetch-mode') === 'no-cors') return 'beacon';
    // fetch(), XMLHttpRequest and EventSource.
    return 'xmlhttprequest';
  }
  // A destination newer than this table: Chrome files unknown kinds under other.
  return TYPE_BY_FETCH_DEST.get(dest) ?? 'other';
}

function typeFromWeakerHints(request: ObservedRequest, header: (name: string) => string): ResourceType {
  if (header('x-requested-with') === 'xmlhttprequest') return 'xmlhttprequest';

  const fromAccept = typeFromAccept(header('accept'));
  if (fromAccept !== undefined) return fromAccept;

  const extension = urlExtension(request.url);
  // Chromium's <video>/<audio> ask for ranges with identity encoding only; a Range request for a
  // media file is a player too.
  if (header('range') !== '' && (acceptsIdentityOnly(header('accept-encoding')) || MEDIA_EXTENSIONS.has(extension))) return 'media';
  if (SCRIPT_EXTENSIONS.has(extension)) return 'script';
  if (FONT_EXTENSIONS.has(extension)) return 'font';
  return 'other';
}

/** The Accept header's preferred type says what the client will do with the answer. */
function typeFromAccept(accept: string): ResourceType | undefined {
  if (accept === '') return undefined;
  const first = mediaType(accept.split(',')[0] ?? '');
  if (first === 'text/html' || first === 'application/xhtml+xml') return 'main_frame';
  if (first === 'text/css') return 'stylesheet';
  if (first.startsWith('image/')) return 'image';
  // Firefox: application/font-woff2;q=1.0,application/font-woff;q=0.9,*/*;q=0.8
  if (first.startsWith('font/') || first.includes('woff')) return 'font';
  if (first === 'text/event-stream') return 'xmlhttprequest';
  if (first === 'application/json') return 'xmlhttprequest';
  if (/^(application|text)\/(x-)?(java|ecma)script$/.test(first)) return 'script';
  if (first === 'application/manifest+json') return 'web_manifest';
  return undefined;
}

/** `identity`, or Chromium's media form `identity;q=1, *;q=0`: no compression wanted at all. */
function acceptsIdentityOnly(acceptEncoding: string): boolean {
  return /^identity(\s*;\s*q=1(\.0*)?)?(\s*,\s*\*\s*;\s*q=0(\.0*)?)?$/.test(acceptEncoding);
}

/** The type/subtype of a media type, without parameters. */
function mediaType(value: string): string {
  return (value.split(';')[0] ?? '').trim().toLowerCase();
}

function urlExtension(url: string): string {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    pathname = url.split(/[?#]/)[0] ?? '';
  }
  const lastSegment = pathname.slice(pathname.lastIndexOf('/') + 1);
  const dot = lastSegment.lastIndexOf('.');
  return dot > 0 ? lastSegment.slice(dot + 1).toLowerCase() : '';
}

function headerValue(headers: ObservedRequest['headers'], name: string): string {
  const value = headers[name];
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The frame ids Chrome would report for a request of this type when the frame tree is unknown,
 * as it always is to a proxy.
 * - main_frame: the tab's top frame, 0, with no parent.
 * - sub_frame: a subframe's id is positive and chosen by the browser; wrtui reports 1, a child
 *   of the main frame (the common case: one level of nesting). Every subframe shares that id.
 * - anything else: the frame that issued it. In a known tab that is taken to be the main frame
 *   (0); for a request related to no tab (tabId -1, Chrome's case for service workers and the
 *   browser's own requests) there is no frame either: -1, as RequestFlight assumes by default.
 */
export function frameInfoFor(type: ResourceType, tabId: number = NO_TAB_ID): FrameInfo {
  if (type === 'main_frame') return { frameId: 0, parentFrameId: -1 };
  if (type === 'sub_frame') return { frameId: 1, parentFrameId: 0 };
  return { frameId: tabId === NO_TAB_ID ? -1 : 0, parentFrameId: -1 };
}

/**
 * The tab a client attributes its request to, from the `X-Wrtui-Tab-Id` header (a decimal tab
 * id, e.g. sent by a test or a browser extension that knows its tab), or -1 when absent or not
 * a plain non-negative integer. wrtui removes the header before forwarding the request.
 */
export function tabIdFrom(headers: ObservedRequest['headers']): number {
  const raw = headerValue(headers, TAB_ID_HEADER).trim();
  if (!/^\d{1,10}$/.test(raw)) return NO_TAB_ID;
  const tabId = Number(raw);
  return tabId <= 0x7fffffff ? tabId : NO_TAB_ID;
}

/**
 * A request's tab and frame as the client named them (X-Wrtui-Tab-Id); without that, only a
 * navigation's frame, and the lifecycle counts the request in a tab from what it shows.
 */
export function tabAndFrame(type: ResourceType, tabId: number): { tabId?: number; frameId?: number; parentFrameId?: number } {
  if (tabId !== NO_TAB_ID) return { tabId, ...frameInfoFor(type, tabId) };
  return type === 'main_frame' || type === 'sub_frame' ? frameInfoFor(type) : {};
}
