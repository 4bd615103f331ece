// The requests an extension makes itself (fetch and XMLHttpRequest in its background) go out
// through the proxy's own request lifecycle, as a browser sends them through its network stack: they
// are journaled (the TUI lists them), the cookie jar's cookies go with them and their Set-Cookie
// lands in it, the rules act on them, and webRequest shows them to the extension itself (as Chromium
// 156 and Firefox ESR 153.7 do) and to no other (as Chromium 156 does). Their headers are the
// persona's browser's for an extension's fetch (checked in test/extensions/extension-network.test.ts
// against Chromium 156, test/personas/firefox-network.test.ts against Firefox ESR 153.7).
// Runs on the proxy thread, for the extension's worker, which awaits the answer.
import { Readable } from 'node:stream';
import type { Owner } from '../owner.js';
import { EXTENSION_FETCH_CONCURRENCY, EXTENSION_FETCH_WAITING, FetchSlots } from './fetch-slots.js';
import { corsRefusal, grantRefusal, needsPreflight, PreflightCache, readableHeaders, readPreflight, unsafeHeaderNames, type FetchMode, type ResponseTainting } from './extension-cors.js';
import { chromeHeaders, chromePreflightHeaders, firefoxHeaders, firefoxPreflightHeaders, isForbidden, type HeaderFacts } from './extension-request-headers.js';
import type { HttpHeaders, NetError } from '../types.js';
import { getHeaderValues } from '../headers.js';
import { decodedStream, isDecodingFailure } from '../web-request/content-decoding.js';
import { redirectMethod, type CookieAccess, type RequestLifecycle } from '../web-request/lifecycle.js';
import { parseRequestBody } from '../web-request/request-body.js';
import { runRequest } from '../web-request/run-request.js';
import { TransportError, type Transport } from '../web-request/transport.js';

export interface ExtensionFetchRequest {
  url: string;
  method: string;
  /** The headers the extension set, in order (a browser's forbidden ones are dropped here). */
  headers: [name: string, value: string][];
  body?: Uint8Array;
  /** fetch's credentials mode: only "omit" leaves the jar's cookies out (an extension's others get them, as in Chromium). */
  credentials?: 'omit' | 'same-origin' | 'include';
  /** fetch's redirect mode: "manual" answers a server's redirect with an opaque redirect, "error" fails. */
  redirect?: 'follow' | 'manual' | 'error';
  /** fetch's mode: to an origin it has no host permission for, "cors" is checked, "no-cors" answered opaque, "same-origin" refused. */
  mode?: FetchMode;
}

/** The response's head, sent to the worker before its body (which follows in chunks, ExtensionFetchReceiver). */
export interface ExtensionFetchResponse {
  /** The URL answered, after the redirects followed. */
  url: string;
  redirected: boolean;
  status: number;
  statusText: string;
  /** The headers the extension may read (all but Set-Cookie of its own; of a CORS response the safelisted and exposed ones). */
  headers: [name: string, value: string][];
  /**
   * The Response's type: "basic" (its own request), "cors", "opaque" (no-cors across origins: status
   * 0, no headers, no body) or "opaqueredirect" (a redirect not followed with redirect: "manual").
   */
  type: ResponseTainting | 'opaqueredirect';
}

/** Where fetchForExtension delivers a response as it arrives. */
export interface ExtensionFetchReceiver {
  head(response: ExtensionFetchResponse): void;
  /** A piece of the body, with its Content-Encoding undone (as fetch hands it over); resolves when the reader wants more. */
  chunk(bytes: Uint8Array): Promise<void>;
  /**
   * Aborted when the reader gives up on the body (or its worker stops): the request ends with
   * net::ERR_ABORTED, as Chromium 156 ends a fetch whose body stream was cancelled (in most runs;
   * in some it says net::ERR_FAILED).
   */
  signal: AbortSignal;
}

/** The Fetch standard's bad ports: a browser refuses to connect to them (net::ERR_UNSAFE_PORT in Chromium). */
const BAD_PORTS = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137,
  139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

const isBadPort = (url: URL) => url.port !== '' && BAD_PORTS.has(Number(url.port));

/**
 * `network` as an extension's fetch uses it: refusing a bad port on every hop (a redirect may lead to
 * one), as Chromium's stack does after onSendHeaders, and naming a request its extension aborted (its
 * AbortSignal, or a cancelled body) net::ERR_ABORTED, as Chromium does.
 */
function extensionWire(network: Transport): Transport {
  return {
    send: async (outgoing, signal) => {
      if (isBadPort(new URL(outgoing.url))) throw new TransportError('net::ERR_UNSAFE_PORT');
      if (signal?.aborted) throw new TransportError('net::ERR_ABORTED');
      try {
        return await network.send(outgoing, signal);
      } catch (failure) {
        throw signal?.aborted ? new TransportError('net::ERR_ABORTED') : failure;
      }
    },
  };
}

/** What the fetch failed with, in the persona's browser's words. */
export function fetchFailure(owner: Owner): TypeError {
  return new TypeError(owner.persona.name === 'firefox' ? 'NetworkError when attempting to fetch resource.' : 'Failed to fetch');
}

/**
 * Sends `request` for `owner`, handing `receiver` the response head and then its body as it arrives,
 * decoded; resolves once the body is whole. Rejects with the TypeError of the persona's browser
 * (Chrome's "Failed to fetch") when the request fails, is cancelled or its body breaks off. The body is never held whole here (the proxy's thread): a
 * large download or a compression bomb costs the extension's worker, which reads it, not the proxy.
 */
export async function fetchForExtension(lifecycle: RequestLifecycle, owner: Owner, request: ExtensionFetchRequest, receiver: ExtensionFetchReceiver, version?: object): Promise<void> {
  let slots = fetchSlots.get(owner);
  if (!slots) fetchSlots.set(owner, (slots = new FetchSlots(EXTENSION_FETCH_CONCURRENCY, EXTENSION_FETCH_WAITING)));
  const release = await slots.acquire();
  if (!release) {
    lifecycle.journal.append({ kind: 'log', level: 'warn', source: owner.id, message: `fetch(${request.url.slice(0, 200)}) refused: ${EXTENSION_FETCH_CONCURRENCY} of this extension's requests are running and ${EXTENSION_FETCH_WAITING} more wait` });
    throw fetchFailure(owner);
  }
  try {
    return await fetchInSlot(lifecycle, owner, request, receiver, version);
  } finally {
    release();
  }
}

/** Each extension's requests in flight (fetch-slots.ts). */
const fetchSlots = new WeakMap<Owner, FetchSlots>();

async function fetchInSlot(lifecycle: RequestLifecycle, owner: Owner, request: ExtensionFetchRequest, receiver: ExtensionFetchReceiver, version?: object): Promise<void> {
  const network = lifecycle.network;
  const origin = owner.extensionOrigin;
  if (!network || network === 'offline' || !origin || !owner.extensionHost) throw fetchFailure(owner);
  const url = new URL(request.url);
  /** Said in the journal, and on the request's own record (the TUI shows it in the request's detail). */
  const log = (message: string, requestId?: string) => lifecycle.journal.append({ kind: 'log', level: 'info', source: owner.id, message, ...(requestId !== undefined && { requestId }) });
  if (owner.persona.name === 'firefox' && isBadPort(url)) {
    // Firefox refuses it before webRequest sees it (test/personas/firefox-network.test.ts): no events.
    log(`fetch(${url.origin}/…) refused: port ${url.port} is one browsers refuse to connect to (the Fetch standard's bad ports); Firefox refuses it before webRequest sees it`);
    throw fetchFailure(owner);
  }
  const method = request.method.toUpperCase();
  const given = request.headers.filter(([name]) => !isForbidden(name.toLowerCase()));
  const mode: FetchMode = request.mode ?? 'cors';
  const includesCredentials = request.credentials === 'include';
  const body = request.body && request.body.byteLength > 0 ? request.body : undefined;
  const headersFor = owner.persona.name === 'firefox' ? firefoxHeaders : chromeHeaders;

  /** What the request is at one URL: its own (host permission) or a cross-origin one, its headers and cookies there. */
  let everCrossOrigin = false;
  let tainted = false;
  let previous = url;
  const hopAt = (target: URL, hopMethod: string, withBody: boolean, afterRedirect = false) => {
    // A redirect across origins taints the request's origin: it says "null" from then on.
    if (target.origin !== previous.origin) tainted = true;
    previous = target;
    const own = !everCrossOrigin && owner.hostPermissions.matches(target);
    everCrossOrigin ||= !own;
    const tainting: ResponseTainting = own ? 'basic' : mode === 'no-cors' ? 'opaque' : 'cors';
    // Its own request carries the jar's cookies unless it omits them; a cross-origin one only with
    // "include", and only SameSite=None ones (Firefox counts a cookie without the attribute as None).
    const crossSite: CookieAccess = { unsetIs: owner.persona.name === 'firefox' ? 'none' : 'lax' };
    const cookies: CookieAccess = own ? (request.credentials === 'omit' ? 'none' : 'all') : includesCredentials ? crossSite : 'none';
    const facts: HeaderFacts = {
      url: target,
      method: hopMethod,
      given: withBody ? given : given.filter(([name]) => !/^content-/i.test(name)),
      origin: tainted ? 'null' : origin,
      userAgent: owner.persona.userAgent,
      bodyLength: withBody ? (body?.byteLength ?? 0) : 0,
      mode,
      tainting,
      withCredentials: cookies !== 'none',
      afterRedirect,
    };
    return { facts, cookies, requestHeaders: headersFor(facts) };
  };
  let hop = hopAt(url, method, body !== undefined);

  if (hop.facts.tainting !== 'basic' && mode === 'same-origin') {
    log(`fetch(${url.href}) refused: its mode is "same-origin" and ${url.origin} is another origin, one it has no host permission for; nothing was sent`);
    throw fetchFailure(owner);
  }
  if (hop.facts.tainting === 'cors' && needsPreflight(method, given)) {
    const refusal = await preflight(lifecycle, owner, network, hop.facts, unsafeHeaderNames(given), includesCredentials, receiver.signal, version);
    if (refusal) {
      // Said on the preflight's record: the request itself was never made.
      log(`fetch(${url.href}) refused by CORS: ${refusal.reason}; the request was not sent. An extension reads another origin's responses only with host permission for it, or when the server allows its origin ${origin}`, refusal.requestId);
      throw fetchFailure(owner);
    }
  }

  const requestBody = body && parseRequestBody({ method, contentType: given.find(([name]) => name.toLowerCase() === 'content-type')?.[1], bytes: body });
  let headed = false;
  const result = await runRequest(
    lifecycle,
    {
      url: url.href,
      method,
      requestHeaders: hop.requestHeaders,
      ...(body && { body }),
      ...(requestBody && { requestBody }),
      type: 'xmlhttprequest',
      tabId: -1,
      frameId: -1,
      parentFrameId: -1,
      madeBy: { name: owner.id, origin, host: owner.extensionHost, ...(version && { version }) },
      cookies: hop.cookies,
      atRedirect: (next, nextMethod, withBody) => (hop = hopAt(new URL(next), nextMethod, withBody, true)),
    },
    extensionWire(network),
    {
      signal: receiver.signal,
      ...(request.redirect && { redirect: request.redirect }),
      admit: async (at, response, requestId) => {
        const location = response.statusCode >= 300 && response.statusCode < 400 ? getHeaderValues(response.headers, 'location')[0] : undefined;
        let refusal = hop.facts.tainting === 'cors' ? corsRefusal(response.headers, hop.facts.origin, includesCredentials) : undefined;
        if (!refusal && location !== undefined && request.redirect !== 'manual' && request.redirect !== 'error') {
          const next = urlOrNull(location, at);
          const crossing = next !== null && !owner.hostPermissions.matches(next);
          if (crossing && mode === 'same-origin') refusal = `it redirects to ${next.origin}, another origin, and its mode is "same-origin"`;
          else if (crossing && mode === 'cors') {
            // The next hop goes to another origin: one that needs a preflight is preflighted there
            // first, from the origin the redirect leaves it with ("null" once it crossed origins).
            const nextMethod = redirectMethod(hop.facts.method, response.statusCode);
            const withBody = nextMethod === hop.facts.method && body !== undefined;
            const nextGiven = withBody ? given : given.filter(([name]) => !/^content-/i.test(name));
            if (needsPreflight(nextMethod, nextGiven)) {
              // Chromium's preflight says the origin the redirect leaves ("null" once it crossed
              // origins); Firefox ESR 153.7's still says the extension's own.
              const crossed = next.origin !== new URL(at).origin;
              const preflightOrigin = owner.persona.name === 'firefox' ? origin : crossed ? 'null' : hop.facts.origin;
              const facts: HeaderFacts = { ...hop.facts, url: next, method: nextMethod, given: nextGiven, origin: preflightOrigin, tainting: 'cors' };
              const preflighted = await preflight(lifecycle, owner, network, facts, unsafeHeaderNames(nextGiven), includesCredentials, receiver.signal, version);
              if (preflighted) refusal = `it redirects to ${next.origin}, and there ${preflighted.reason}`;
            }
          }
        }
        if (!refusal) return true;
        log(`fetch(${at}) refused by CORS: ${refusal}. An extension reads another origin's responses only with host permission for it, or when the server allows its origin ${hop.facts.origin}`, requestId);
        return false;
      },
      takeBody: async (response, wire) => {
        headed = true;
        const { tainting } = hop.facts;
        const pairs: [string, string][] = response.headers.map((header) => [header.name, header.value ?? Buffer.from(header.binaryValue ?? []).toString('latin1')]);
        receiver.head(
          tainting === 'opaque'
            ? { url: response.url, redirected: false, status: 0, statusText: '', headers: [], type: 'opaque' }
            : {
                url: response.url,
                redirected: response.url !== url.href,
                status: response.statusCode,
                statusText: response.statusLine.replace(/^\S+\s+\d+\s?/, ''),
                headers: readableHeaders(pairs, tainting, response.headers, includesCredentials),
                type: tainting,
              },
        );
        try {
          for await (const chunk of decodedStream(Readable.from(wire, { objectMode: false }), response.headers).stream) {
            if (receiver.signal.aborted) break;
            // An opaque response is fetched whole, and none of it handed over.
            if (tainting !== 'opaque') await receiver.chunk(chunk as Uint8Array);
          }
        } catch (failure) {
          if (receiver.signal.aborted) throw new TransportError('net::ERR_ABORTED');
          throw isDecodingFailure(failure) ? new TransportError('net::ERR_CONTENT_DECODING_FAILED') : failure;
        }
        if (receiver.signal.aborted) throw new TransportError('net::ERR_ABORTED');
      },
    },
  );
  if (result.kind === 'response') return;
  if (result.kind === 'redirect-not-followed' && request.redirect === 'manual') {
    return receiver.head({ url: result.url, redirected: false, status: 0, statusText: '', headers: [], type: 'opaqueredirect' });
  }
  throw headed && result.kind === 'error' ? bodyFailure(owner, result.error) : fetchFailure(owner);
}

function urlOrNull(text: string, base: string): URL | null {
  try {
    return new URL(text, base);
  } catch {
    return null;
  }
}

/** Each extension's preflight answers, reused while they last (an owner is new with each load). */
const preflightCaches = new WeakMap<Owner, PreflightCache>();

/**
 * Asks the server whether the extension may send its request (an OPTIONS through the proxy, as
 * its own request), or reuses an answer it gave; undefined when it may, else why not.
 */
async function preflight(
  lifecycle: RequestLifecycle,
  owner: Owner,
  network: Transport,
  facts: HeaderFacts,
  unsafeNames: string[],
  withCredentials: boolean,
  signal: AbortSignal,
  version: object | undefined,
): Promise<{ reason: string; requestId?: string } | undefined> {
  // Firefox ESR 153.7 preflights an add-on's repeated request again in most runs, Access-Control-Max-Age
  // or not (in some it reuses the first answer, its cache filled as the preflight ends): never reused here.
  let cache = owner.persona.name === 'firefox' ? undefined : preflightCaches.get(owner);
  if (!cache && owner.persona.name !== 'firefox') preflightCaches.set(owner, (cache = new PreflightCache()));
  const now = Date.now();
  const cached = cache?.get(facts.origin, facts.url.href, withCredentials, now);
  if (cached && grantRefusal(cached, facts.method, unsafeNames) === undefined) return undefined;
  let answer: { statusCode: number; headers: HttpHeaders } | undefined;
  const result = await runRequest(
    lifecycle,
    {
      url: facts.url.href,
      method: 'OPTIONS',
      requestHeaders: (owner.persona.name === 'firefox' ? firefoxPreflightHeaders : chromePreflightHeaders)(facts, unsafeNames),
      type: 'other',
      tabId: -1,
      frameId: -1,
      parentFrameId: -1,
      madeBy: { name: owner.id, origin: owner.extensionOrigin!, host: owner.extensionHost!, ...(version && { version }) },
      cookies: 'none',
    },
    extensionWire(network),
    {
      signal,
      // A preflight is not redirected: a 3xx is its answer, and refuses.
      redirect: 'error',
      takeBody: async (response, body) => {
        answer = response;
        for await (const _chunk of body); // read to its end, unused
      },
    },
  );
  const { requestId } = result;
  if (result.kind === 'redirect-not-followed') return { reason: `its preflight (OPTIONS) answered ${result.statusCode}, a redirect, which a preflight may not follow`, requestId };
  if (result.kind !== 'response' || !answer) return { reason: `its preflight (OPTIONS) failed (${result.kind === 'error' ? result.error : result.kind})`, requestId };
  const grant = readPreflight(answer.statusCode, answer.headers, facts.origin, withCredentials, now);
  if ('refused' in grant) return { reason: grant.refused, requestId };
  cache?.put(facts.origin, facts.url.href, withCredentials, grant, now);
  const refusal = grantRefusal(grant, facts.method, unsafeNames);
  return refusal === undefined ? undefined : { reason: refusal, requestId };
}

/**
 * What reading a body that broke off rejects with, in the persona's browser's words: Chromium 156
 * says "Failed to fetch" whatever the cause; Firefox ESR 153.7 names a body short of its framing
 * (Content-Length or chunks, alike) and calls a reset connection an abort.
 */
export function bodyFailure(owner: Owner, netError: NetError): Error {
  if (owner.persona.name !== 'firefox') return fetchFailure(owner);
  if (netError === 'net::ERR_CONTENT_LENGTH_MISMATCH' || netError === 'net::ERR_INCOMPLETE_CHUNKED_ENCODING') return new TypeError('Content-Length header of network response exceeds response Body.');
  if (netError === 'net::ERR_CONNECTION_RESET') return new DOMException('The operation was aborted. ', 'AbortError');
  return fetchFailure(owner);
}

