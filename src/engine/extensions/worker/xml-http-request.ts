// XMLHttpRequest for a background page (runs inside the extension's realm), over the page's fetch:
// so the extension's own files (a relative URL) come from its folder, as fetch's do. MV2 extensions
// load their data and talk to their servers with it; a service worker has none (in Chrome neither).
// Asynchronous only: a synchronous request would need the worker to block on its own event loop,
// so `open(…, false)` fails saying so. Events: readystatechange, loadstart, progress, load, error,
// abort, timeout, loadend, through `on…` attributes and addEventListener.

import { fireWithHandler } from './handler-attributes.js';

type Fetch = (input: string, init: Record<string, unknown>) => Promise<Response>;

/** What a page's XMLHttpRequest is made of (Node's Event and EventTarget: a page's DOM ones are its own). */
export interface XhrParts {
  fetch: Fetch;
  /** The page's URL, which relative URLs resolve against. */
  base: () => string;
  Event: new (type: string) => Event;
  EventTarget: new () => EventTarget;
  /** responseXML: the page's DOMParser. */
  parseDocument: (text: string, type: string) => unknown;
  /** A handler that threw: reported as an uncaught error at its file:line. */
  onError: (error: unknown, where: string) => void;
}

const STATES = { UNSENT: 0, OPENED: 1, HEADERS_RECEIVED: 2, LOADING: 3, DONE: 4 } as const;
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** The XMLHttpRequest class of one page. */
export function createXMLHttpRequest(parts: XhrParts): unknown {
  const { fetch, base, parseDocument, onError } = parts;
  class XMLHttpRequestUpload extends parts.EventTarget {}

  class XMLHttpRequest extends parts.EventTarget {
    static readonly UNSENT = 0;
    static readonly OPENED = 1;
    static readonly HEADERS_RECEIVED = 2;
    static readonly LOADING = 3;
    static readonly DONE = 4;

    readyState: number = STATES.UNSENT;
    status = 0;
    statusText = '';
    responseURL = '';
    responseType: '' | 'text' | 'json' | 'arraybuffer' | 'blob' | 'document' = '';
    timeout = 0;
    withCredentials = false;
    readonly upload = new XMLHttpRequestUpload();
    onreadystatechange: ((event: Event) => unknown) | null = null;
    onloadstart: ((event: Event) => unknown) | null = null;
    onprogress: ((event: Event) => unknown) | null = null;
    onload: ((event: Event) => unknown) | null = null;
    onerror: ((event: Event) => unknown) | null = null;
    onabort: ((event: Event) => unknown) | null = null;
    ontimeout: ((event: Event) => unknown) | null = null;
    onloadend: ((event: Event) => unknown) | null = null;

    #method = 'GET';
    #url = '';
    #headers = new Headers();
    #responseHeaders: Headers | undefined;
    #body: ArrayBuffer | undefined;
    #mimeOverride: string | undefined;
    #controller: AbortController | undefined;
    #sent = false;

    open(method: unknown, url: unknown, async: unknown = true): void {
      const verb = String(method).toUpperCase();
      if (FORBIDDEN_METHODS.has(verb)) throw new DOMException(`Failed to execute 'open' on 'XMLHttpRequest': '${String(method)}' HTTP method is unsupported.`, 'SecurityError');
      if (async === false) throw new DOMException("Failed to execute 'open' on 'XMLHttpRequest': wrtui runs asynchronous requests only (a synchronous one would block the extension's worker on itself)", 'InvalidAccessError');
      let resolved: URL;
      try {
        resolved = new URL(String(url), base());
      } catch {
        throw new DOMException(`Failed to execute 'open' on 'XMLHttpRequest': Invalid URL`, 'SyntaxError');
      }
      this.#controller?.abort();
      this.#method = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'].includes(verb) ? verb : String(method);
      this.#url = resolved.href;
      this.#headers = new Headers();
      this.#responseHeaders = undefined;
      this.#body = undefined;
      this.#sent = false;
      this.status = 0;
      this.statusText = '';
      this.responseURL = '';
      this.#state(STATES.OPENED);
    }

    setRequestHeader(name: unknown, value: unknown): void {
      if (this.readyState !== STATES.OPENED || this.#sent) throw new DOMException("Failed to execute 'setRequestHeader' on 'XMLHttpRequest': The object's state must be OPENED.", 'InvalidStateError');
      this.#headers.append(String(name), String(value));
    }

    overrideMimeType(type: unknown): void {
      this.#mimeOverride = String(type);
    }

    send(body: unknown = null): void {
      if (this.readyState !== STATES.OPENED || this.#sent) throw new DOMException("Failed to execute 'send' on 'XMLHttpRequest': The object's state must be OPENED.", 'InvalidStateError');
      this.#sent = true;
      const controller = (this.#controller = new AbortController());
      let timedOut = false;
      const timer = this.timeout > 0 ? setTimeout(() => ((timedOut = true), controller.abort()), this.timeout) : undefined;
      this.#fire('loadstart');
      // withCredentials is fetch's "include"; without it, "same-origin" (cookies only where it has host permission).
      const init: Record<string, unknown> = { method: this.#method, headers: this.#headers, signal: controller.signal, credentials: this.withCredentials ? 'include' : 'same-origin' };
      if (body !== null && body !== undefined && this.#method !== 'GET' && this.#method !== 'HEAD') init.body = body;
      fetch(this.#url, init)
        .then(async (response) => {
          if (controller !== this.#controller) return;
          this.status = response.status;
          this.statusText = response.statusText;
          this.responseURL = response.url || this.#url;
          this.#responseHeaders = response.headers;
          this.#state(STATES.HEADERS_RECEIVED);
          this.#state(STATES.LOADING);
          // fetch is Node's: the body is copied into this realm (`response instanceof ArrayBuffer`).
          this.#body = new Uint8Array(await response.arrayBuffer()).slice().buffer;
          if (controller !== this.#controller) return;
          if (timer) clearTimeout(timer);
          this.#fire('progress');
          this.#state(STATES.DONE);
          this.#fire('load');
          this.#fire('loadend');
        })
        .catch(() => {
          if (timer) clearTimeout(timer);
          if (controller !== this.#controller || (controller.signal.aborted && !timedOut)) return;
          this.status = 0;
          this.#state(STATES.DONE);
          this.#fire(timedOut ? 'timeout' : 'error');
          this.#fire('loadend');
        });
    }

    abort(): void {
      const controller = this.#controller;
      if (!controller || !this.#sent || this.readyState === STATES.DONE) return;
      this.#controller = undefined;
      controller.abort();
      this.status = 0;
      this.#state(STATES.DONE);
      this.#fire('abort');
      this.#fire('loadend');
      this.readyState = STATES.UNSENT;
    }

    getResponseHeader(name: unknown): string | null {
      return this.readyState >= STATES.HEADERS_RECEIVED ? (this.#responseHeaders?.get(String(name)) ?? null) : null;
    }

    getAllResponseHeaders(): string {
      if (this.readyState < STATES.HEADERS_RECEIVED || !this.#responseHeaders) return '';
      return [...this.#responseHeaders].map(([name, value]) => `${name}: ${value}\r\n`).join('');
    }

    get responseText(): string {
      if (this.responseType !== '' && this.responseType !== 'text') throw new DOMException(`Failed to read the 'responseText' property from 'XMLHttpRequest': The value is only accessible if the object's 'responseType' is '' or 'text' (was '${this.responseType}').`, 'InvalidStateError');
      return this.#body ? new TextDecoder().decode(this.#body) : '';
    }

    get response(): unknown {
      if (this.responseType === '' || this.responseType === 'text') return this.responseText;
      if (this.readyState !== STATES.DONE || !this.#body) return null;
      switch (this.responseType) {
        case 'json':
          try {
            return JSON.parse(new TextDecoder().decode(this.#body));
          } catch {
            return null;
          }
        case 'arraybuffer':
          return this.#body;
        case 'blob':
          return new Blob([this.#body], { type: this.#mimeType() });
        case 'document':
          return this.responseXML;
      }
    }

    get responseXML(): unknown {
      if (this.readyState !== STATES.DONE || !this.#body) return null;
      const type = this.#mimeType();
      return /[/+]xml\b|^text\/html/.test(type) ? parseDocument(new TextDecoder().decode(this.#body), type.startsWith('text/html') ? 'text/html' : 'text/xml') : null;
    }

    #mimeType(): string {
      return (this.#mimeOverride ?? this.#responseHeaders?.get('content-type') ?? 'text/xml').split(';')[0]!.trim().toLowerCase();
    }

    #state(state: number): void {
      this.readyState = state;
      this.#fire('readystatechange');
    }

    #fire(type: string): void {
      fireWithHandler(this, type, parts.Event, onError, 'an XMLHttpRequest');
    }
  }
  for (const [name, value] of Object.entries(STATES)) Object.defineProperty(XMLHttpRequest.prototype, name, { value, enumerable: true });
  return XMLHttpRequest;
}
