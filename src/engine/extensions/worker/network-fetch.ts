// fetch to the network, as the extension's worker sends it: the request is read here (Node's Request
// turns every kind of body and headers into bytes and pairs), handed to the host, which sends it
// through the proxy's own lifecycle (extension-network.ts), and the answer becomes a Response. A
// replay reaches no network: the fetch fails. Where the host has no proxy at all (an embedding
// without one) it says so, and Node's fetch goes straight to the network instead.
import type { ExtensionFetchRequest, ExtensionFetchResponse } from '../extension-network.js';
import type { WorkerItem } from '../protocol.js';

/** Statuses whose response has no body (a Response made with one throws). */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

export class NetworkFetch {
  #next = 1;
  readonly #pending = new Map<number, (answer: { response?: ExtensionFetchResponse; failure?: string }) => void>();
  readonly #bodies = new Map<number, IncomingBody>();
  readonly #post: (item: WorkerItem) => void;
  readonly #scope: () => FetchScope;

  constructor(post: (item: WorkerItem) => void, scope: () => FetchScope = () => ({ browser: 'chrome', scope: 'WorkerGlobalScope' })) {
    this.#post = post;
    this.#scope = scope;
  }

  /** fetch(input, init) for an http(s) `url`; `direct` is Node's fetch, for when the host has no proxy. */
  async fetch(url: URL, input: unknown, init: RequestInit | undefined, direct: () => Promise<Response>): Promise<Response> {
    let request: Request;
    try {
      request = new Request(typeof input === 'string' || input instanceof URL ? url.href : (input as Request), init);
    } catch (error) {
      throw requestError(error, this.#scope());
    }
    const signal = request.signal;
    signal.throwIfAborted();
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const sent: ExtensionFetchRequest = {
      url: request.url,
      method: request.method,
      headers: headerPairs(request.headers, init?.headers),
      ...(body && { body }),
      credentials: request.credentials,
      redirect: request.redirect,
      mode: request.mode,
    };
    const id = this.#next++;
    const answer = new Promise<{ response?: ExtensionFetchResponse; failure?: string }>((resolve) => this.#pending.set(id, resolve));
    // The body may come before the extension takes the Response: it is kept from the first chunk.
    const incoming = new IncomingBody(id, this.#post);
    this.#bodies.set(id, incoming);
    this.#post(['fetch', id, sent]);
    // An abort ends the extension's wait at once, and its reading of the body; the request itself ends
    // on the host when the body is given up. (An abort after the body, as a timeout's controller often
    // fires, is nobody's error.)
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_resolve, reject) =>
      signal.addEventListener('abort', (onAbort = () => (incoming.abort(signal.reason), reject(signal.reason))), { once: true }),
    );
    aborted.catch(() => {});
    let settled: { response?: ExtensionFetchResponse; failure?: string };
    try {
      settled = await Promise.race([answer, aborted]);
    } catch (error) {
      signal.removeEventListener('abort', onAbort!);
      this.#bodies.delete(id);
      throw error;
    }
    incoming.whenDone(() => {
      signal.removeEventListener('abort', onAbort!);
      this.#bodies.delete(id);
    });
    const { response, failure } = settled;
    if (failure === 'direct') return direct();
    if (!response) throw new TypeError(failure ?? 'Failed to fetch');
    if (request.redirect === 'error' && response.redirected) {
      incoming.cancel();
      throw new TypeError('Failed to fetch');
    }
    if (response.type === 'opaque' || response.type === 'opaqueredirect') {
      // Nothing of it is handed over (an opaque response's body is still fetched whole, on the host).
      if (response.type === 'opaqueredirect') incoming.cancel();
      return opaqueResponse(response.type, response.url);
    }
    const nullBody = NULL_BODY_STATUS.has(response.status) || request.method === 'HEAD';
    if (nullBody) incoming.cancel();
    const made = new Response(nullBody ? null : incoming.stream, { status: response.status, statusText: response.statusText, headers: validHeaders(response.headers) });
    // A Response made here has no URL of its own: the one it answers for, after redirects.
    Object.defineProperty(made, 'url', { value: response.url.replace(/#.*$/, ''), enumerable: true });
    Object.defineProperty(made, 'redirected', { value: response.redirected, enumerable: true });
    Object.defineProperty(made, 'type', { value: response.type, enumerable: true });
    return made;
  }

  /** The host's answer to fetch `id`: the response's head, or why it failed. */
  answered(id: number, response: ExtensionFetchResponse | undefined, failure: string | undefined): void {
    const resolve = this.#pending.get(id);
    this.#pending.delete(id);
    if (!response) this.#bodies.get(id)?.ended(['TypeError', failure ?? 'Failed to fetch']);
    resolve?.({ ...(response && { response }), ...(failure !== undefined && { failure }) });
  }

  /** A piece of fetch `id`'s body. */
  bodyChunk(id: number, chunk: Uint8Array): void {
    this.#bodies.get(id)?.chunk(chunk);
  }

  /** Fetch `id`'s body is whole, or broke off with `failure`. */
  bodyEnded(id: number, failure: [name: string, message: string] | undefined): void {
    this.#bodies.get(id)?.ended(failure);
  }
}

/** Where fetch runs, as the persona's browser names it in its TypeErrors. */
export interface FetchScope {
  browser: 'chrome' | 'firefox';
  /** WorkerGlobalScope (a service worker) or Window (a background page). */
  scope: string;
}

/**
 * A TypeError fetch's arguments raised, in the browser's words where wrtui knows them: Chromium 156
 * says where it was thrown ("Failed to execute 'fetch' on 'WorkerGlobalScope': ") and quotes a method
 * no-cors refuses whole (Node leaves the closing quote out); Firefox ESR 153.7 says "Window.fetch: "
 * and "Invalid request method PUT.".
 */
function requestError(error: unknown, { browser, scope }: FetchScope): unknown {
  if (!(error instanceof TypeError)) return error;
  const noCorsMethod = /^'([A-Z]+) is unsupported in no-cors mode\.$/.exec(error.message)?.[1];
  if (browser === 'firefox') return new TypeError(`${scope}.fetch: ${noCorsMethod ? `Invalid request method ${noCorsMethod}.` : error.message}`);
  return new TypeError(`Failed to execute 'fetch' on '${scope}': ${noCorsMethod ? `'${noCorsMethod}' is unsupported in no-cors mode.` : error.message}`);
}

/**
 * A response a script cannot look into: an "opaque" one (no-cors across origins) or an
 * "opaqueredirect" (a redirect not followed, redirect: "manual"): status 0, no headers, an empty
 * body. A Response with status 0 cannot be constructed, so its fields are set on one.
 */
function opaqueResponse(type: 'opaque' | 'opaqueredirect', url: string): Response {
  const made = new Response(null);
  const fields = { type, status: 0, statusText: '', ok: false, url: type === 'opaque' ? '' : url.replace(/#.*$/, ''), redirected: false };
  for (const [name, value] of Object.entries(fields)) Object.defineProperty(made, name, { value, enumerable: true });
  return made;
}

/**
 * A response body arriving from the host, as the ReadableStream the extension reads. It tells the
 * host what was read, so that the host sends more (FETCH_WINDOW_BYTES ahead at most).
 */
class IncomingBody {
  readonly stream: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  readonly #queue: Uint8Array[] = [];
  #wanted = false;
  #end: { failure?: [name: string, message: string] } | undefined;
  #done = false;
  #onDone: (() => void) | undefined;

  constructor(
    private readonly id: number,
    private readonly post: (item: WorkerItem) => void,
  ) {
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => {
          this.#wanted = true;
          this.#deliver();
        },
        cancel: () => this.cancel(),
      },
      { highWaterMark: 0 },
    );
  }

  chunk(bytes: Uint8Array): void {
    if (this.#done) return;
    this.#queue.push(bytes);
    this.#deliver();
  }

  ended(failure: [name: string, message: string] | undefined): void {
    if (this.#done) return;
    this.#end = failure === undefined ? {} : { failure };
    this.#deliver();
  }

  /** The extension gave up on the body: the host ends the request. */
  cancel(): void {
    if (this.#done) return;
    if (!this.#end) this.post(['fetchCancel', this.id]);
    this.#finish();
  }

  /** The extension's fetch was aborted (its AbortSignal): reading the body rejects with the reason. */
  abort(reason: unknown): void {
    if (this.#done) return;
    try {
      this.#controller.error(reason);
    } catch {
      // already closed
    }
    this.cancel();
  }

  whenDone(onDone: () => void): void {
    if (this.#done) onDone();
    else this.#onDone = onDone;
  }

  #deliver(): void {
    while (this.#wanted && this.#queue.length > 0) {
      const bytes = this.#queue.shift()!;
      this.#wanted = false;
      this.#controller.enqueue(bytes);
      this.post(['fetchRead', this.id, bytes.byteLength]);
      // enqueue calls pull again when the reader waits for more
    }
    if (this.#queue.length === 0 && this.#end) {
      if (this.#end.failure === undefined) this.#controller.close();
      else {
        const [name, message] = this.#end.failure;
        this.#controller.error(name === 'TypeError' ? new TypeError(message) : new DOMException(message, name));
      }
      this.#finish();
    }
  }

  #finish(): void {
    this.#done = true;
    this.#queue.length = 0;
    this.#onDone?.();
    this.#onDone = undefined;
  }
}

/**
 * The request's headers in the order and case the extension wrote them (Node's Headers sorts and
 * lowercases every name; a browser sends what the script set), then any it implied (the
 * Content-Type of a string body) in the usual Title-Case.
 */
function headerPairs(headers: Headers, given: unknown): [string, string][] {
  const names = given instanceof Headers ? [] : Array.isArray(given) ? given.map((pair) => String((pair as unknown[])[0])) : typeof given === 'object' && given !== null ? Object.keys(given) : [];
  const pairs: [string, string][] = [];
  const done = new Set<string>();
  for (const name of names) {
    const lower = name.toLowerCase();
    const value = headers.get(lower);
    if (done.has(lower) || value === null) continue;
    done.add(lower);
    pairs.push([name, value]);
  }
  headers.forEach((value, name) => {
    if (!done.has(name)) pairs.push([name.replace(/(^|-)([a-z])/g, (_all, dash: string, letter: string) => dash + letter.toUpperCase()), value]);
  });
  return pairs;
}

/** The response's headers that a Headers object takes (a server may send bytes fetch refuses). */
function validHeaders(pairs: [string, string][]): Headers {
  const headers = new Headers();
  for (const [name, value] of pairs) {
    try {
      headers.append(name, value);
    } catch {
      // not a header a browser's fetch would show either
    }
  }
  return headers;
}
