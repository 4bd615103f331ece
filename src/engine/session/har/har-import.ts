// A HAR 1.2 file (Chrome DevTools', Firefox's, Playwright's, wrtui's own) as a replayable session.
// Lenient: optional fields may be missing, `_`-prefixed extensions are ignored unless known, bodies
// may be base64. Invalid files fail with the JSON path of the first problem.
//
// Each entry is imported as soon as it is read (har-stream.ts) and cut into requests by
// har-requests.ts. A response carrying `Non-Authoritative-Reason: WebRequest API` is an
// extension's redirect (Chrome records it as a 307), not the server's: it is no recorded response,
// and replay's rules decide again whether to redirect.
//
// The timeline replay interleaves requests by comes from each entry's startedDateTime and timings.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { frameInfoFor, inferResourceType, TAB_ID_HEADER, tabIdFrom } from '../../capture/resource-type.js';
import { getHeader } from '../../headers.js';
import type { HttpHeaders, NetError, ResourceType } from '../../types.js';
import { fileChunks, isGzipFile } from '../gzip-file.js';
import { readingProgress } from '../progress.js';
import type { RecordedResponse, RecordedSession } from '../recorded-session.js';
import { bytesOfHarText } from './har-content.js';
import { HarSpill } from './har-spill.js';
import { HarRequestBuilder, type HarEntry } from './har-requests.js';
import { harEntryBatches, type ByteRange } from './har-stream.js';
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

/** A HAR file that can be read from its start, as often as a replay needs (a HAR is replayed twice: see session-replay.ts). */
export interface HarFile {
  file: string;
  /** Bytes on disk (compressed, for a gzipped file): what `onRead` counts up to. */
  size: number;
  /**
   * Its entries, imported as they are read, a batch per chunk read; then checks the document around
   * them and returns its warnings. Throws HarFormatError for a file that is no HAR.
   */
  entries(onRead?: (bytes: number) => void): AsyncGenerator<HarEntry[], string[]>;
}

export async function openHarFile(file: string, options: { gzipped?: boolean } = {}): Promise<HarFile> {
  const { size, mtimeMs } = await stat(file);
  const gzipped = options.gzipped ?? (await isGzipFile(file));
  // Large response bodies are let go as read and read again when the replay needs them, so what is
  // held does not grow with its bodies: from the file itself, or from its decompressed text
  // (har-spill.ts) when it is gzipped, as a compressed file cannot be read at an offset. That copy
  // is written by the first reading; later ones decompress again, their entries at the same offsets.
  let spill: HarSpill | undefined;
  let readings = 0;
  return {
    file,
    size,
    async *entries(onRead) {
      // A later reading must find what the first found: the replay compares the two.
      if (readings++ > 0) {
        const now = await stat(file);
        if (now.size !== size || now.mtimeMs !== mtimeMs) throw new HarFormatError('(file)', `${file} changed since it was read; open it again to replay it`);
      }
      const first = gzipped && !spill;
      if (first) spill = await HarSpill.create();
      const source: FileAsRead = { file, size, mtimeMs, ...(spill && { copy: spill.fd }) };
      const chunks = fileChunks(file, { gzipped, onRead });
      const batches = harEntryBatches(first ? spill!.through(chunks) : chunks);
      try {
        for (let next = await batches.next(); ; next = await batches.next()) {
          if (next.done) return checkDocument(next.value).warnings;
          yield next.value.map(({ entry: raw, index, range }) => {
            const entry = importEntry(raw, index);
            readBodyOnDemand(entry, source, range);
            return entry;
          });
        }
      } catch (error) {
        if (first) {
          spill!.discard();
          spill = undefined;
        }
        throw error;
      } finally {
        // Stopped early: the file is closed.
        await batches.return(undefined);
      }
    },
  };
}

/** Reads a HAR whole (the TUI, an export): its requests in start order, with their timeline. */
export async function readHarFile(file: string, options: ReadingOptions = {}): Promise<RecordedSession> {
  const har = await openHarFile(file, options.gzipped === undefined ? {} : { gzipped: options.gzipped });
  const onRead = readingProgress(har.size, options.onProgress);
  options.onProgress?.({ phase: 'reading', done: 0, total: har.size, unit: 'bytes' });
  const builder = new HarRequestBuilder({ window: Infinity });
  const batches = har.entries(onRead);
  let next = await batches.next();
  for (; !next.done; next = await batches.next()) for (const entry of next.value) builder.add(entry);
  options.onProgress?.({ phase: 'reading', done: har.size, total: har.size, unit: 'bytes' });
  return sessionOf(file, builder, next.value);
}

/** The document must be a HAR: its `log.entries`, and what to say (a missing `log.creator` is only said). */
function checkDocument(json: unknown): { entries: unknown[]; warnings: string[] } {
  const log = objectAt(objectAt(json, '(root)').log, 'log');
  const entries = arrayAt(log.entries, 'log.entries');
  return { entries, warnings: optionalObjectAt(log.creator, 'log.creator') ? [] : ['log.creator: missing (imported anyway)'] };
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
function readBodyOnDemand(entry: HarEntry, source: FileAsRead, range: ByteRange): void {
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
  const { entries, warnings } = checkDocument(json);
  const builder = new HarRequestBuilder({ window: Infinity });
  entries.forEach((raw, index) => builder.add(importEntry(raw, index)));
  return sessionOf(file, builder, warnings);
}

function sessionOf(file: string, builder: HarRequestBuilder, warnings: string[]): RecordedSession {
  builder.finish();
  const { requests, times } = builder.take();
  requests.sort((a, b) => a.index - b.index);
  return {
    source: 'har',
    file,
    header: undefined,
    requests,
    times,
    startedAt: builder.startedAt ?? Date.now(),
    cookies: {},
    journal: undefined,
    redacted: false,
    listenerTimeoutMs: undefined,
    warnings: [...warnings, ...builder.warnings()],
  };
}

function importEntry(raw: unknown, index: number): HarEntry {
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
