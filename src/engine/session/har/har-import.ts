// A HAR 1.2 file (Chrome DevTools', Firefox's, Playwright's, wrtui's own) as a replayable session.
// Lenient: optional fields may be missing, `_`-prefixed extensions are ignored unless known, bodies
// may be base64. Invalid files fail with the JSON path of the first problem.
//
// HAR lists each redirect hop as its own entry, linked by `redirectURL` (or the Location header).
// Entries are taken in start order and an entry whose URL is where an earlier 3xx entry sent the
// client continues that request as its next hop; wrtui's own exports say outright which entries
// belong together (`_webRequest`). A response carrying `Non-Authoritative-Reason: WebRequest API`
// is an extension's redirect (Chrome records it as a 307), not the server's: it is no recorded
// response, and replay's rules decide again whether to redirect.
//
// The timeline replay interleaves requests by comes from each entry's startedDateTime and timings.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { frameInfoFor, inferResourceType, NO_TAB_ID, TAB_ID_HEADER, tabIdFrom } from '../../capture/resource-type.js';
import { getHeader } from '../../headers.js';
import type { HttpHeaders, NetError, ResourceType } from '../../types.js';
import { parseRequestBody } from '../../web-request/request-body.js';
import { fileChunks, isGzipFile } from '../gzip-file.js';
import { readingProgress } from '../progress.js';
import type { RecordedExchange, RecordedHop, RecordedRequest, RecordedResponse, RecordedSession } from '../recorded-session.js';
import { bytesOfHarText } from './har-content.js';
import { HarSpill } from './har-spill.js';
import { readHarDocument, type ByteRange } from './har-stream.js';
import type { ReadingOptions } from '../session-reader.js';
import { isResourceType, resourceTypeFromChrome } from './har-resource-types.js';
import {
  arrayAt,
  dateAt,
  HarFormatError,
  numberAt,
  objectAt,
  optionalArrayAt,
  optionalNumberAt,
  optionalObjectAt,
  optionalStringAt,
  stringAt,
  type JsonObject,
} from './har-validation.js';

/** Headers a client sends to its proxy, never forwarded (as capture-proxy.ts strips them). */
const PROXY_ONLY = new Set(['proxy-connection', 'proxy-authorization', TAB_ID_HEADER]);
const WEB_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:']);

interface ImportedEntry {
  index: number;
  started: number;
  /** Offsets from `started` (ms): when headers went out, when the response came, when it ended. */
  sentAfter: number;
  respondedAfter: number;
  endedAfter: number;
  method: string;
  url: string;
  clientHeaders: HttpHeaders;
  body?: Uint8Array;
  response?: RecordedResponse;
  /** A network failure replay reproduces (not a client-side block). */
  error?: NetError;
  /** How the entry ended, when it failed (any net::ERR_…, blocks included). */
  failure?: string;
  /** Absolute URL a 3xx sent the client to. */
  redirectTo?: string;
  internalRedirect: boolean;
  type: ResourceType;
  tabId: number;
  frameId: number;
  parentFrameId: number;
  storeId: string;
  sentHeaders?: HttpHeaders;
  group?: { requestId: string; hop: number; attempt: number };
}

export async function readHarFile(file: string, options: ReadingOptions = {}): Promise<RecordedSession> {
  const { size: total, mtimeMs } = await stat(file);
  const onRead = readingProgress(total, options.onProgress);
  options.onProgress?.({ phase: 'reading', done: 0, total, unit: 'bytes' });
  const gzipped = options.gzipped ?? (await isGzipFile(file));
  // Each entry is imported as soon as it is read, its JSON text let go. Large response bodies are
  // let go too and read again when the replay needs them, so what the session holds does not grow
  // with its bodies: from the file itself, or from its decompressed text (har-spill.ts) when it
  // is gzipped, as a compressed file cannot be read at an offset.
  const spill = gzipped ? await HarSpill.create() : undefined;
  const source: FileAsRead = { file, size: total, mtimeMs, ...(spill && { copy: spill.fd }) };
  const entries: ImportedEntry[] = [];
  let json: unknown;
  try {
    const chunks = fileChunks(file, { gzipped, onRead });
    json = await readHarDocument(spill ? spill.through(chunks) : chunks, (raw, index, range) => {
      const entry = importEntry(raw, index);
      readBodyOnDemand(entry, source, range);
      entries.push(entry);
    });
  } catch (error) {
    spill?.discard();
    throw error;
  }
  options.onProgress?.({ phase: 'reading', done: total, total, unit: 'bytes' });
  const log = objectAt(objectAt(json, '(root)').log, 'log');
  arrayAt(log.entries, 'log.entries');
  return sessionOfEntries(file, log, entries);
}

/** Response bodies this large and more are read from the file when used, not held. */
export const BODY_ON_DEMAND_BYTES = 64 * 1024;

/** The uncompressed HAR text entries are read again from, as it was when read (a later change is refused). */
interface FileAsRead {
  /** The HAR the user opened. */
  file: string;
  size: number;
  mtimeMs: number;
  /** A gzipped HAR's decompressed copy, open (har-spill.ts): read from there instead. */
  copy?: number;
}

/**
 * Lets go of a large response body, leaving in its place a `body` that reads the entry again from
 * the file each time it is asked for (the replay asks once per step that uses it, then lets go).
 */
function readBodyOnDemand(entry: ImportedEntry, source: FileAsRead, range: ByteRange): void {
  const response = entry.response;
  const length = response?.body?.length ?? 0;
  if (!response || length < BODY_ON_DEMAND_BYTES) return;
  Object.defineProperty(response, 'body', { enumerable: true, configurable: true, get: () => bodyFromFile(entry.index, length, source, range) });
}

function bodyFromFile(index: number, length: number, source: FileAsRead, range: ByteRange): Uint8Array {
  const changed = () => new HarFormatError(`log.entries[${index}]`, `${source.file} changed since it was read; open it again to replay it`);
  const read = (fd: number) => {
    const text = Buffer.allocUnsafe(range.end - range.start);
    readSync(fd, text, 0, text.length, range.start);
    let raw: unknown;
    try {
      raw = JSON.parse(text.toString('utf8'));
    } catch {
      throw changed();
    }
    const body = importEntry(raw, index).response?.body;
    if (body?.length !== length) throw changed();
    return body;
  };
  // Nobody else can reach the copy: it cannot have changed.
  if (source.copy !== undefined) return read(source.copy);
  let fd: number;
  try {
    fd = openSync(source.file, 'r');
  } catch {
    throw changed();
  }
  try {
    const now = fstatSync(fd);
    if (now.size !== source.size || now.mtimeMs !== source.mtimeMs) throw changed();
    return read(fd);
  } finally {
    closeSync(fd);
  }
}

/** A HAR document already parsed (tests; wrtui itself reads files with readHarFile). */
export function sessionFromHar(file: string, json: unknown): RecordedSession {
  const log = objectAt(objectAt(json, '(root)').log, 'log');
  const entries = arrayAt(log.entries, 'log.entries').map((raw, index) => importEntry(raw, index));
  return sessionOfEntries(file, log, entries);
}

function sessionOfEntries(file: string, log: JsonObject, entries: ImportedEntry[]): RecordedSession {
  entries.sort((a, b) => a.started - b.started || a.index - b.index);
  const groups = groupIntoRequests(entries);
  const { requests, times } = buildTimeline(groups);
  const creator = optionalObjectAt(log.creator, 'log.creator');
  return {
    source: 'har',
    file,
    header: undefined,
    requests,
    times,
    startedAt: entries[0]?.started ?? Date.now(),
    cookies: {},
    journal: undefined,
    redacted: false,
    listenerTimeoutMs: undefined,
    warnings: creator ? [] : ['log.creator: missing (imported anyway)'],
  };
}

function importEntry(raw: unknown, index: number): ImportedEntry {
  const path = `log.entries[${index}]`;
  const entry = objectAt(raw, path);
  const request = objectAt(entry.request, `${path}.request`);
  const response = objectAt(entry.response, `${path}.response`);
  const method = stringAt(request.method, `${path}.request.method`).toUpperCase();
  const url = absoluteUrl(request.url, `${path}.request.url`);
  const started = dateAt(entry.startedDateTime, `${path}.startedDateTime`);
  const clientHeaders = harHeaders(request.headers, `${path}.request.headers`).filter((header) => !PROXY_ONLY.has(header.name.toLowerCase()));
  const wrtui = optionalObjectAt(entry._webRequest, `${path}._webRequest`);

  const postData = optionalObjectAt(request.postData, `${path}.request.postData`);
  const bodyText = postData && optionalStringAt(postData.text, `${path}.request.postData.text`);
  const body = bodyText !== undefined && bodyText !== '' ? bytesOfHarText(bodyText, optionalStringAt(postData!.encoding ?? postData!._encoding, `${path}.request.postData.encoding`), `${path}.request.postData`) : undefined;

  const headerRecord = Object.fromEntries(clientHeaders.map((header) => [header.name.toLowerCase(), header.value ?? '']));
  const type = typeOf(entry, wrtui, headerRecord, method, url);
  const tabId = wrtui ? numberAt(wrtui.tabId, `${path}._webRequest.tabId`) : tabIdFrom(headerRecord);
  const frames = wrtui
    ? { frameId: numberAt(wrtui.frameId, `${path}._webRequest.frameId`), parentFrameId: numberAt(wrtui.parentFrameId, `${path}._webRequest.parentFrameId`) }
    : frameInfoFor(type, tabId);

  const status = numberAt(response.status, `${path}.response.status`);
  const responseHeaders = harHeaders(response.headers, `${path}.response.headers`);
  const internalRedirect = wrtui?.internalRedirect === true || getHeader(responseHeaders, 'non-authoritative-reason') === 'WebRequest API';
  const failure = optionalStringAt(response._error ?? wrtui?.error, `${path}.response._error`);
  let recorded: RecordedResponse | undefined;
  let error: NetError | undefined;
  if (status > 0 && !internalRedirect) recorded = responseOf(response, status, responseHeaders, entry, path);
  else if (failure && /^net::ERR_[A-Z0-9_]+$/.test(failure) && !/^net::ERR_BLOCKED_BY_/.test(failure)) error = failure as NetError;

  const timings = optionalObjectAt(entry.timings, `${path}.timings`) ?? {};
  const phase = (name: string) => Math.max(0, optionalNumberAt(timings[name], `${path}.timings.${name}`) ?? 0);
  const sentAfter = phase('blocked') + phase('dns') + phase('connect');
  const respondedAfter = sentAfter + phase('send') + phase('wait');
  const endedAfter = Math.max(respondedAfter + phase('receive'), optionalNumberAt(entry.time, `${path}.time`) ?? 0);

  const redirectTarget = status >= 300 && status < 400 && status !== 304 ? optionalStringAt(response.redirectURL, `${path}.response.redirectURL`) || getHeader(responseHeaders, 'location') : undefined;
  const sentHeaders = wrtui?.sentHeaders === undefined ? undefined : harHeaders(wrtui.sentHeaders, `${path}._webRequest.sentHeaders`);
  return {
    index,
    started,
    sentAfter,
    respondedAfter,
    endedAfter,
    method,
    url,
    clientHeaders,
    ...(body && { body }),
    ...(recorded && { response: recorded }),
    ...(error && { error }),
    ...(failure && /^net::ERR_/.test(failure) && { failure }),
    ...(redirectTarget && { redirectTo: resolveAgainst(redirectTarget, url) }),
    internalRedirect,
    type,
    tabId,
    ...frames,
    storeId: wrtui ? String(wrtui.storeId ?? '0') : '0',
    ...(sentHeaders && { sentHeaders }),
    ...(wrtui && {
      group: {
        requestId: stringAt(wrtui.requestId, `${path}._webRequest.requestId`),
        hop: numberAt(wrtui.hop, `${path}._webRequest.hop`),
        attempt: numberAt(wrtui.attempt ?? 0, `${path}._webRequest.attempt`),
      },
    }),
  };
}

function responseOf(response: JsonObject, status: number, headers: HttpHeaders, entry: JsonObject, path: string): RecordedResponse {
  const statusText = optionalStringAt(response.statusText, `${path}.response.statusText`) ?? '';
  const version = httpVersionOf(optionalStringAt(response.httpVersion, `${path}.response.httpVersion`));
  const content = optionalObjectAt(response.content, `${path}.response.content`);
  const text = content && optionalStringAt(content.text, `${path}.response.content.text`);
  const body = text !== undefined ? bytesOfHarText(text, optionalStringAt(content!.encoding, `${path}.response.content.encoding`), `${path}.response.content`) : undefined;
  const ip = optionalStringAt(entry.serverIPAddress, `${path}.serverIPAddress`)?.replace(/^\[(.*)\]$/, '$1');
  return {
    statusCode: status,
    statusLine: `HTTP/${version} ${status}${statusText ? ` ${statusText}` : ''}`,
    headers,
    ...(ip && { ip }),
    fromCache: entry._fromCache === 'disk' || entry._fromCache === 'memory',
    ...(body && { body }),
    bodyDecoded: true,
  };
}

/** Chrome writes "http/1.1", "h2", "h3" or "HTTP/1.1"; Firefox "HTTP/1.1", "HTTP/2". */
function httpVersionOf(value: string | undefined): string {
  const version = (value ?? '').trim().toLowerCase();
  if (version === 'h2' || version === 'http/2' || version === 'http/2.0') return '2';
  if (version === 'h3' || version.startsWith('http/3')) return '3';
  const match = /^http\/(\d(?:\.\d)?)$/.exec(version);
  return match ? match[1]! : '1.1';
}

function harHeaders(value: unknown, path: string): HttpHeaders {
  return optionalArrayAt(value, path)
    .map((raw, i) => {
      const header = objectAt(raw, `${path}[${i}]`);
      const name = stringAt(header.name, `${path}[${i}].name`);
      const headerValue = header.value === undefined || header.value === null ? '' : String(header.value);
      return { name, value: headerValue };
    })
    .filter((header) => !header.name.startsWith(':'));
}

function absoluteUrl(value: unknown, path: string): string {
  const text = stringAt(value, path);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new HarFormatError(path, `not an absolute URL (${JSON.stringify(text)})`);
  }
  if (!WEB_SCHEMES.has(url.protocol)) throw new HarFormatError(path, `not an http(s) or ws(s) URL (${JSON.stringify(text)})`);
  return url.href;
}

function resolveAgainst(location: string, base: string): string | undefined {
  try {
    return new URL(location, base).href;
  } catch {
    return undefined;
  }
}

function typeOf(entry: JsonObject, wrtui: JsonObject | undefined, headers: Record<string, string>, method: string, url: string): ResourceType {
  if (wrtui && isResourceType(wrtui.type)) return wrtui.type;
  // What the live proxy would say when the request shows it (Sec-Fetch-Dest), else the browser's word.
  if (headers['sec-fetch-dest'] === undefined) {
    const fromBrowser = resourceTypeFromChrome(typeof entry._resourceType === 'string' ? entry._resourceType : undefined);
    if (fromBrowser) return fromBrowser;
  }
  return inferResourceType({ method, url, headers });
}

/** Entries of one request: wrtui's groups as they say, others chained by their redirects. */
function groupIntoRequests(entries: ImportedEntry[]): ImportedEntry[][] {
  const groups: ImportedEntry[][] = [];
  const byRequestId = new Map<string, ImportedEntry[]>();
  /** Chains whose last hop redirected, by the URL the client was sent to (oldest first). */
  const waiting = new Map<string, ImportedEntry[][]>();
  for (const entry of entries) {
    if (entry.group) {
      let group = byRequestId.get(entry.group.requestId);
      if (!group) {
        byRequestId.set(entry.group.requestId, (group = []));
        groups.push(group);
      }
      group.push(entry);
      continue;
    }
    const candidates = waiting.get(entry.url);
    const chain = candidates?.shift();
    if (candidates?.length === 0) waiting.delete(entry.url);
    const group = chain ?? [];
    if (!chain) groups.push(group);
    group.push(entry);
    if (entry.redirectTo) {
      const list = waiting.get(entry.redirectTo) ?? [];
      list.push(group);
      waiting.set(entry.redirectTo, list);
    }
  }
  for (const group of byRequestId.values()) group.sort((a, b) => a.group!.hop - b.group!.hop || a.group!.attempt - b.group!.attempt);
  return groups;
}

interface TimelinePoint {
  time: number;
  /** Tie-break: the entry, then the phase within it. */
  order: number;
  assign: (position: number) => void;
}

/** Requests with hops and exchanges, and the timeline positions of each step. */
function buildTimeline(groups: ImportedEntry[][]): { requests: RecordedRequest[]; times: number[] } {
  const points: TimelinePoint[] = [];
  const point = (time: number, entry: ImportedEntry, phase: number, assign: (position: number) => void) =>
    points.push({ time, order: entry.index * 8 + phase, assign });

  const requests = groups.map((group, requestIndex): RecordedRequest => {
    const first = group[0]!;
    const hops: RecordedHop[] = [];
    let previousHop: number | undefined;
    for (const entry of group) {
      const sameHop = entry.group !== undefined && entry.group.hop === previousHop;
      previousHop = entry.group?.hop;
      let hop = sameHop ? hops.at(-1)! : undefined;
      if (!hop) {
        const requestBody = parseRequestBody({ method: entry.method, contentType: getHeader(entry.clientHeaders, 'content-type'), bytes: entry.body });
        hop = {
          url: entry.url,
          method: entry.method,
          clientHeaders: entry.clientHeaders,
          ...(entry.body && { body: entry.body }),
          ...(requestBody && { requestBody }),
          exchanges: [],
          at: {},
          ...(entry.internalRedirect && { redirectedInternally: true }),
        };
        const created = hop;
        point(entry.started, entry, 0, (position) => (created.at.beforeRequest = position));
        hops.push(hop);
      }
      const thisHop = hop;
      if (entry.redirectTo) thisHop.redirectUrl = entry.redirectTo;
      if (entry.response || entry.error) {
        const exchange: RecordedExchange = { at: {}, ...(entry.sentHeaders && { sentHeaders: entry.sentHeaders }) };
        if (entry.response) exchange.response = entry.response;
        if (entry.error) exchange.error = entry.error;
        thisHop.exchanges.push(exchange);
        point(entry.started + entry.sentAfter, entry, 1, (position) => (exchange.at.beforeSendHeaders = position));
        point(entry.started + entry.respondedAfter, entry, 2, (position) => (exchange.at.response = position));
        if (entry.response) point(entry.started + entry.respondedAfter, entry, 3, (position) => (thisHop.at.responseStarted = position));
      }
      if (entry.failure) thisHop.error = entry.failure;
      point(entry.started + entry.endedAfter, entry, 4, (position) => (thisHop.at.end = position));
    }
    // A chain ending in a server redirect nobody followed: the client stopped there (fetch's
    // redirect: 'manual', or curl without -L), and replay does the same.
    const lastHop = hops.at(-1)!;
    const redirectNotFollowed = lastHop.redirectUrl !== undefined && !lastHop.redirectedInternally;
    return {
      index: requestIndex,
      requestId: first.group?.requestId ?? String(first.index),
      type: first.type,
      tabId: first.tabId ?? NO_TAB_ID,
      frameId: first.frameId,
      parentFrameId: first.parentFrameId,
      storeId: first.storeId,
      hops,
      redirectNotFollowed,
      complete: true,
    };
  });
  points.sort((a, b) => a.time - b.time || a.order - b.order);
  const times = points.map((p, position) => (p.assign(position), p.time));
  return { requests, times };
}
