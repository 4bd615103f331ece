// The HTTP cache's answers (--cache): a fresh cached response is served by wrtui itself; a stale
// one is revalidated upstream by wrtui (a 304 serves the stored body). Either way the events fire
// as for a network response, with fromCache: true when the body came from the cache.
import type { Socket } from 'node:net';
import { headerLatin1, headerObject, headersFromRaw } from '../headers.js';
import type { HttpHeaders } from '../types.js';
import type { InternalRedirect, RequestFlight } from '../web-request/lifecycle.js';
import type { WholeResponse } from './client-response.js';
import type { FollowUps } from './follow-ups.js';
import type { CacheRequest, CacheResponse, HttpCache } from './http-cache.js';
import type { UpstreamTransport } from './upstream-transport.js';

/** What answering from the cache needs of the proxy. */
export interface CachedAnswerContext {
  cache: HttpCache;
  upstream: UpstreamTransport;
  followUps: FollowUps;
  /** What a request redirected to a URL webRequest never sees is answered with (undefined: refused). */
  localAnswer: (flight: RequestFlight, url: string) => WholeResponse | undefined;
}

/**
 * The cache's answer to `flight`, after its events fired as for a network response. Undefined: go
 * upstream as usual; 'reset': the request was cancelled; `failed`: the revalidation failed;
 * `internalRedirect`: a listener redirected it to an extension's own URL, which wrtui takes itself.
 */
export async function answerFromCache(context: CachedAnswerContext, flight: RequestFlight, cacheRequest: CacheRequest, sentHeaders: HttpHeaders, client: string, connection: Socket): Promise<WholeResponse | 'reset' | { failed: unknown } | { internalRedirect: InternalRedirect } | undefined> {
  const cache = context.cache;
  const lookup = cache.lookup(cacheRequest);
  if (lookup.kind === 'miss') return undefined;
  let response: CacheResponse;
  let fromCache = true;
  let ip: string | undefined;
  if (lookup.kind === 'fresh') response = lookup.response;
  else {
    const revalidation = Object.entries(lookup.revalidationHeaders).flatMap(([name, value]) =>
      (Array.isArray(value) ? value : [value]).map((v) => ({ name, value: v })),
    );
    let upstream;
    try {
      upstream = await context.upstream.send({
        url: flight.url,
        method: flight.method,
        headers: [...sentHeaders.filter((h) => !/^if-(none-match|modified-since)$/i.test(h.name)), ...revalidation.filter((h) => /^if-/i.test(h.name))],
      });
    } catch (error) {
      return { failed: error };
    }
    ip = upstream.ip;
    const body = upstream.body instanceof Uint8Array ? upstream.body : new Uint8Array();
    const fromUpstream: CacheResponse = {
      statusCode: upstream.statusCode,
      statusMessage: upstream.statusMessage ?? '',
      headers: headerObject(upstream.headers),
      rawHeaders: pairsOf(upstream.headers),
      body,
    };
    const outcome = cache.revalidated(lookup, cacheRequest, fromUpstream);
    if (outcome.kind === 'not-modified') response = outcome.response;
    else {
      fromCache = false;
      response = fromUpstream;
    }
  }
  const decision = await flight.headersReceived({
    statusCode: response.statusCode,
    statusMessage: response.statusMessage,
    headers: headersFromPairs(response.rawHeaders),
    fromCache,
    ...(ip !== undefined && { ip }),
  });
  if (decision.action === 'cancel') return 'reset';
  if (decision.action === 'retry-auth') {
    // Credentials for a cached 401 need the network: let the request go upstream after all.
    return undefined;
  }
  if (decision.action === 'redirect' && decision.internal) {
    if (flight.finished) return context.localAnswer(flight, decision.redirectUrl) ?? 'reset';
    if (flight.atExtensionUrl) return { internalRedirect: decision };
    context.followUps.expect(flight, client, connection);
    return { statusCode: decision.statusCode, statusMessage: 'Found', headers: decision.responseHeaders, body: new Uint8Array() };
  }
  const answer = { statusCode: response.statusCode, statusMessage: response.statusMessage, headers: decision.responseHeaders, body: response.body };
  if (decision.action === 'redirect') {
    if (!flight.finished) context.followUps.expect(flight, client, connection);
    return answer;
  }
  flight.responseStarted();
  flight.completed();
  return answer;
}

/** Headers as the cache stores them: [name, value] pairs, values as Latin-1. */
export function pairsOf(headers: HttpHeaders): [string, string][] {
  return headers.map((header) => [header.name, headerLatin1(header)]);
}

function headersFromPairs(pairs: readonly (readonly [string, string])[]): HttpHeaders {
  return headersFromRaw(pairs.flat());
}
