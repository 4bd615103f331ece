// A lifecycle with a journal and a scripted origin, for tests that need no network.
import { Journal, type JournalEntry, type WebRequestEntry } from '../../src/engine/journal.js';
import { createTrustedOwner, type Owner } from '../../src/engine/owner.js';
import { HandlerBehaviorChangedQuota } from '../../src/engine/web-request/handler-behavior-changed.js';
import { RequestLifecycle, type CookieBridge, type CookieMode, type RequestInit } from '../../src/engine/web-request/lifecycle.js';
import { ListenerRegistry } from '../../src/engine/web-request/listener-registry.js';
import { runRequest } from '../../src/engine/web-request/run-request.js';
import type { OutgoingRequest, Transport, TransportResponse } from '../../src/engine/web-request/transport.js';
import { createWebRequestNamespace, type WebRequestNamespace } from '../../src/engine/web-request/web-request-namespace.js';

export type Route = (request: OutgoingRequest) => TransportResponse | Promise<TransportResponse>;

/** A transport answering from a function, recording what it was sent. */
export class ScriptedOrigin implements Transport {
  readonly received: OutgoingRequest[] = [];
  constructor(public route: Route = () => ok()) {}
  async send(request: OutgoingRequest): Promise<TransportResponse> {
    this.received.push(request);
    return this.route(request);
  }
}

export function ok(body = 'ok', headers: { name: string; value: string }[] = []): TransportResponse {
  return { statusCode: 200, statusMessage: 'OK', headers: [{ name: 'Content-Type', value: 'text/plain' }, ...headers], body: Buffer.from(body), ip: '127.0.0.1' };
}

export function createHarness(options: { cookies?: CookieBridge; listenerTimeoutMs?: number; dryRun?: boolean; cookieMode?: CookieMode } = {}) {
  const journal = new Journal();
  const entries: JournalEntry[] = [];
  journal.subscribe((entry) => entries.push(entry));
  const registry = new ListenerRegistry();
  const quota = new HandlerBehaviorChangedQuota();
  let flushes = 0;
  const lifecycle = new RequestLifecycle({
    registry,
    journal,
    ...(options.cookies && { cookies: options.cookies }),
    ...(options.cookieMode && { cookieMode: options.cookieMode }),
    listenerTimeoutMs: options.listenerTimeoutMs ?? 200,
    dryRun: options.dryRun ?? false,
  });
  const origin = new ScriptedOrigin();
  const host = { registry, quota, journal, flushCaches: () => void flushes++ };

  return {
    journal,
    entries,
    registry,
    quota,
    lifecycle,
    origin,
    get flushes() {
      return flushes;
    },
    /** The webRequest namespace of a (trusted unless given) owner. */
    webRequest(owner: Owner | string = 'rule'): WebRequestNamespace {
      return createWebRequestNamespace(host, typeof owner === 'string' ? createTrustedOwner(owner) : owner);
    },
    run(init: Partial<RequestInit> & { url: string }) {
      return runRequest(lifecycle, { method: 'GET', requestHeaders: [], ...init }, origin);
    },
    webRequestEntries(requestId?: string): WebRequestEntry[] {
      return entries.filter((e): e is WebRequestEntry & JournalEntry => e.kind === 'webRequest' && (requestId === undefined || e.details.requestId === requestId));
    },
    /** The events journaled, in order, e.g. ['onBeforeRequest', …]. */
    eventNames(requestId?: string): string[] {
      return this.webRequestEntries(requestId).map((e) => e.event);
    },
  };
}

export const ALL_URLS = { urls: ['<all_urls>'] };
