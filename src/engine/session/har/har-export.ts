// Any session as HAR 1.2, loadable in Chrome DevTools (Network panel, "Import HAR file").
//
// What a HAR entry holds: what wrtui received — the client's request (its own headers, before the
// cookie store and rules) and the origin's response (before rules changed it). That is what a
// replay needs, so an exported session imports back and replays as the original does. What the
// rules made of it is in wrtui's `_webRequest` extension (the headers sent upstream, how it
// ended). One entry per exchange with the network: a redirect's hops are separate entries linked
// by redirectURL, as browsers export them; a retry with credentials is one more entry. A request
// a rule cancelled before it was sent is an entry with status 0 and `_error`
// (net::ERR_BLOCKED_BY_CLIENT), as Chrome writes blocked requests; a listener's redirect at
// onBeforeRequest is the 307 "Internal Redirect" wrtui answered, as Chrome shows it.
import { getHeader, getHeaderValues, headerText } from '../../headers.js';
import type { HttpHeaders } from '../../types.js';
import type { ProgressListener } from '../progress.js';
import type { RecordedExchange, RecordedHop, RecordedRequest, RecordedSession } from '../recorded-session.js';
import { writePrivateFile, type WritePrivateFileOptions } from '../../private-file.js';
import { wrtuiVersion } from '../wrtui-version.js';
import { harTextOf } from './har-content.js';
import type { HarCookie, HarEntry, HarLog, HarNameValue } from './har-format.js';
import { chromeResourceType } from './har-resource-types.js';

export function sessionToHar(session: RecordedSession, options: { onProgress?: ProgressListener } = {}): HarLog {
  const entries: HarEntry[] = [];
  session.requests.forEach((request, i) => {
    request.hops.forEach((hop, hopIndex) => entries.push(...entriesOfHop(session, request, hop, hopIndex)));
    if (options.onProgress && (i % 256 === 0 || i === session.requests.length - 1)) {
      options.onProgress({ phase: 'exporting', done: i + 1, total: session.requests.length, unit: 'requests' });
    }
  });
  entries.sort((a, b) => Date.parse(a.startedDateTime) - Date.parse(b.startedDateTime));
  return {
    log: {
      version: '1.2',
      creator: { name: 'wrtui', version: wrtuiVersion() },
      pages: [],
      entries,
      comment: `Exported by wrtui from ${session.source === 'har' ? 'a HAR file' : 'a recorded session'}: requests as the client sent them, responses as the origin sent them; _webRequest holds what the rules made of them.`,
    },
  };
}

function entriesOfHop(session: RecordedSession, request: RecordedRequest, hop: RecordedHop, hopIndex: number): HarEntry[] {
  const timeOf = (position: number | undefined, fallback: number) => (position === undefined ? fallback : session.times[position] ?? fallback);
  const hopStart = timeOf(hop.at.beforeRequest ?? hop.exchanges[0]?.at.beforeSendHeaders, session.startedAt);
  const hopEnd = timeOf(hop.at.end, hopStart);
  const base = (attempt: number, started: number) => ({
    startedDateTime: new Date(started).toISOString(),
    cache: {},
    _resourceType: chromeResourceType(request.type),
    _webRequest: {
      requestId: request.requestId,
      hop: hopIndex,
      attempt,
      type: request.type,
      tabId: request.tabId,
      frameId: request.frameId,
      parentFrameId: request.parentFrameId,
      storeId: request.storeId,
    },
  });
  const harRequest = harRequestOf(hop);

  if (hop.exchanges.length === 0) {
    // Nothing went upstream: a listener cancelled or redirected it first.
    const internal = hop.redirectedInternally === true && hop.redirectUrl !== undefined;
    const started = base(0, hopStart);
    return [
      {
        ...started,
        time: Math.max(0, hopEnd - hopStart),
        request: harRequest,
        response: internal ? internalRedirectResponse(hop.redirectUrl!) : failedResponse(hop.error ?? 'net::ERR_FAILED'),
        timings: { blocked: Math.max(0, hopEnd - hopStart), send: 0, wait: 0, receive: 0 },
        _webRequest: { ...started._webRequest, ...(internal ? { internalRedirect: true } : { error: hop.error ?? 'net::ERR_FAILED' }) },
      },
    ];
  }

  return hop.exchanges.map((exchange, attempt) => {
    const started = attempt === 0 ? hopStart : timeOf(exchange.at.beforeSendHeaders, hopStart);
    const sent = timeOf(exchange.at.beforeSendHeaders, started);
    const responded = timeOf(exchange.at.response, sent);
    const last = attempt === hop.exchanges.length - 1;
    const ended = last ? Math.max(hopEnd, responded) : responded;
    const entry = base(attempt, started);
    const error = exchange.error ?? exchange.response?.bodyError ?? (last ? hop.error : undefined);
    return {
      ...entry,
      time: Math.max(0, ended - started),
      request: { ...harRequest, httpVersion: httpVersionOf(exchange) },
      response: exchange.response ? responseOf(exchange, hop.url, error) : failedResponse(error ?? 'net::ERR_FAILED'),
      timings: {
        blocked: Math.max(0, sent - started),
        dns: -1,
        connect: -1,
        ssl: -1,
        send: 0,
        wait: Math.max(0, responded - sent),
        receive: Math.max(0, ended - responded),
      },
      ...(exchange.response?.ip !== undefined && { serverIPAddress: exchange.response.ip }),
      ...(exchange.response?.fromCache && { _fromCache: 'disk' as const }),
      _webRequest: {
        ...entry._webRequest,
        ...(exchange.sentHeaders && { sentHeaders: nameValues(exchange.sentHeaders) }),
        ...(error !== undefined && { error }),
      },
    };
  });
}

function harRequestOf(hop: RecordedHop): HarEntry['request'] {
  const headers = hop.clientHeaders ?? [];
  const url = new URL(hop.url);
  const contentType = getHeader(headers, 'content-type') ?? 'application/octet-stream';
  return {
    method: hop.method,
    url: hop.url,
    httpVersion: 'HTTP/1.1',
    cookies: requestCookies(headers),
    headers: nameValues(headers),
    queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
    ...(hop.body && hop.body.length > 0 && { postData: postDataOf(hop.body, contentType) }),
    headersSize: -1,
    bodySize: hop.body?.length ?? 0,
  };
}

function postDataOf(body: Uint8Array, mimeType: string): NonNullable<HarEntry['request']['postData']> {
  const text = Buffer.from(body).toString('utf8');
  const form = mimeType.split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded';
  return { mimeType, text, ...(form && { params: [...new URLSearchParams(text)].map(([name, value]) => ({ name, value })) }) };
}

function responseOf(exchange: RecordedExchange, url: string, error: string | undefined): HarEntry['response'] {
  const response = exchange.response!;
  const { version, statusText } = parseStatusLine(response.statusLine);
  const mimeType = getHeader(response.headers, 'content-type') ?? 'x-unknown';
  const body = response.body; // read once: a large HAR body is read from its file when asked for
  const content = body
    ? harTextOf(body, { mimeType, contentEncoding: getHeader(response.headers, 'content-encoding'), decoded: response.bodyDecoded })
    : { size: -1, comment: 'body not recorded' };
  const location = response.statusCode >= 300 && response.statusCode < 400 ? getHeader(response.headers, 'location') : undefined;
  return {
    status: response.statusCode,
    statusText,
    httpVersion: version,
    cookies: responseCookies(response.headers),
    headers: nameValues(response.headers),
    content: { mimeType, ...content },
    redirectURL: location === undefined ? '' : absolute(location, url),
    headersSize: -1,
    bodySize: body ? body.length : -1,
    ...(error !== undefined && { _error: error }),
  };
}

function absolute(location: string, base: string): string {
  try {
    return new URL(location, base).href;
  } catch {
    return location;
  }
}

function failedResponse(error: string): HarEntry['response'] {
  return {
    status: 0,
    statusText: '',
    httpVersion: '',
    cookies: [],
    headers: [],
    content: { size: 0, mimeType: 'x-unknown' },
    redirectURL: '',
    headersSize: -1,
    bodySize: -1,
    _error: error,
  };
}

function internalRedirectResponse(location: string): HarEntry['response'] {
  return {
    status: 307,
    statusText: 'Internal Redirect',
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: [
      { name: 'Location', value: location },
      { name: 'Non-Authoritative-Reason', value: 'WebRequest API' },
    ],
    content: { size: 0, mimeType: 'x-unknown' },
    redirectURL: location,
    headersSize: -1,
    bodySize: 0,
  };
}

/** "HTTP/1.1 200 OK" → HTTP/1.1 and "OK"; "HTTP/2 200" → HTTP/2 and "". */
function parseStatusLine(statusLine: string): { version: string; statusText: string } {
  const match = /^(HTTP\/[\d.]+)\s+\d{3}\s?(.*)$/.exec(statusLine);
  return match ? { version: match[1]!, statusText: match[2]! } : { version: 'HTTP/1.1', statusText: '' };
}

function httpVersionOf(exchange: RecordedExchange): string {
  return exchange.response ? parseStatusLine(exchange.response.statusLine).version : 'HTTP/1.1';
}

function nameValues(headers: HttpHeaders): HarNameValue[] {
  return headers.map((header) => ({ name: header.name, value: headerText(header) }));
}

function requestCookies(headers: HttpHeaders): HarCookie[] {
  const header = getHeader(headers, 'cookie');
  if (!header) return [];
  return header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '')
    .map((pair) => {
      const index = pair.indexOf('=');
      return index === -1 ? { name: '', value: pair } : { name: pair.slice(0, index).trim(), value: pair.slice(index + 1).trim() };
    });
}

function responseCookies(headers: HttpHeaders): HarCookie[] {
  return getHeaderValues(headers, 'set-cookie').map((value) => {
    const [pair = '', ...attributes] = value.split(';');
    const index = pair.indexOf('=');
    const cookie: HarCookie = index === -1 ? { name: '', value: pair.trim() } : { name: pair.slice(0, index).trim(), value: pair.slice(index + 1).trim() };
    for (const attribute of attributes) {
      const [key = '', ...rest] = attribute.split('=');
      const name = key.trim().toLowerCase();
      const attributeValue = rest.join('=').trim();
      if (name === 'path') cookie.path = attributeValue;
      else if (name === 'domain') cookie.domain = attributeValue;
      else if (name === 'httponly') cookie.httpOnly = true;
      else if (name === 'secure') cookie.secure = true;
      else if (name === 'expires') {
        const time = Date.parse(attributeValue);
        if (!Number.isNaN(time)) cookie.expires = new Date(time).toISOString();
      }
    }
    return cookie;
  });
}

/**
 * Writes `har` to `file` as `JSON.stringify(har, null, 2)` would, entry by entry: a session's HAR
 * can be longer than V8's longest string (~512 MB), which one stringify cannot make. A HAR holds
 * cookies and headers: private-file.ts makes it 0600, never through a symbolic link, and refuses an
 * existing file unless `replace` (--force).
 */
export async function writeHarFile(file: string, har: HarLog, options: WritePrivateFileOptions = {}): Promise<void> {
  const placeholder = JSON.stringify({ ...har, log: { ...har.log, entries: [] } }, null, 2);
  const marker = '"entries": []';
  const at = placeholder.indexOf(marker);
  await writePrivateFile(
    file,
    async (out) => {
      await out.write(placeholder.slice(0, at + marker.length - (har.log.entries.length > 0 ? 1 : 0)));
      const indent = ' '.repeat(6); // entries sit three levels deep: log, entries, the entry
      for (const [i, entry] of har.log.entries.entries()) {
        await out.write(`${i === 0 ? '' : ','}\n${indent}${JSON.stringify(entry, null, 2).replaceAll('\n', `\n${indent}`)}`);
      }
      await out.write(`${har.log.entries.length > 0 ? '\n    ]' : ''}${placeholder.slice(at + marker.length)}\n`);
    },
    options,
  );
}
