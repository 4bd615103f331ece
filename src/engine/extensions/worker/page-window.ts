// What makes a background page a window (runs inside the extension's realm), beside the global
// EventTarget (global-scope.ts): `window`, web storage, the DOM (run the first time the page
// touches it), CSS, requestIdleCallback, XMLHttpRequest, and the page's loading: its scripts run
// while it is `loading`, then DOMContentLoaded (`interactive`) and load (`complete`). Each was
// missing for a real MV2 extension (docs/extensions-and-host.md, "What the code sees"); the page probe compares them
// with Firefox ESR (test/personas/firefox-page.test.ts).
import type { WorkerBoot } from '../protocol.js';
import type { Bridge } from './bridge.js';
import { captureGlobals, withCapturedGlobals } from './captured-globals.js';
import { createCssNamespace } from './css-namespace.js';
import type { GlobalEvents } from './global-scope.js';
import type { HostCalls } from './host-calls.js';
import { PAGE_DOCUMENT_GLOBAL, type PageDocument, type PageDocumentOptions } from './page-dom.js';
import { Storage, createWebStorage, type WebStorageChange } from './web-storage.js';
import { createXMLHttpRequest } from './xml-http-request.js';

export interface PageWindowParts {
  scope: Record<string, unknown>;
  boot: WorkerBoot;
  bridge: Bridge;
  calls: HostCalls;
  events: GlobalEvents;
  onError: (error: unknown, where: string) => void;
  /** Node's Event and EventTarget, taken before the DOM's may shadow them. */
  NodeEvent: typeof Event;
  NodeEventTarget: typeof EventTarget;
}

export class PageWindow {
  readonly #parts: PageWindowParts;
  #readyState: 'loading' | 'interactive' | 'complete' = 'loading';
  /** The classic script running now, by its place among the page's scripts (document.currentScript). */
  #currentScript: number | undefined;
  #document: PageDocument | undefined;

  constructor(parts: PageWindowParts) {
    this.#parts = parts;
    const { scope } = parts;
    scope.window = globalThis;
    this.#webStorage();
    this.#lazyDocument();
    scope.CSS = createCssNamespace();
    this.#idleCallbacks();
    scope.XMLHttpRequest = createXMLHttpRequest({
      // The page's own fetch as it was made (its files from its folder), not one the page replaced later.
      fetch: scope.fetch as (input: string, init: Record<string, unknown>) => Promise<Response>,
      base: () => (scope.location as { href: string }).href,
      Event: parts.NodeEvent,
      EventTarget: parts.NodeEventTarget,
      parseDocument: (text, type) => new (scope.DOMParser as new () => { parseFromString(text: string, type: string): unknown })().parseFromString(text, type),
      onError: parts.onError,
    });
  }

  /** The classic script at `index` runs now (undefined: none, or a module, which has no current script). */
  running(index: number | undefined): void {
    this.#currentScript = index;
  }

  /** Every script ran: the document is interactive (DOMContentLoaded), then complete (load). */
  loaded(): void {
    const PageEvent = (this.#document?.globals.Event ?? this.#parts.NodeEvent) as typeof Event;
    this.#readyState = 'interactive';
    this.#document?.changed('interactive');
    this.#parts.events.dispatch(new PageEvent('DOMContentLoaded'));
    this.#readyState = 'complete';
    this.#document?.changed('complete');
    this.#parts.events.dispatch(new PageEvent('load'));
  }

  /** localStorage's changes go to the host once per turn, which keeps them; sessionStorage lives with the worker. */
  #webStorage(): void {
    const { scope, boot, bridge, calls } = this.#parts;
    let pending: WebStorageChange[] = [];
    const send = () => {
      const changes = pending;
      pending = [];
      void calls.call('webStorage.write', [changes]);
    };
    scope.Storage = Storage;
    scope.localStorage = createWebStorage(boot.localStorage ?? {}, (change) => {
      if (pending.push(change) === 1) bridge.setTimer(send, 0, false);
    });
    scope.sessionStorage = createWebStorage({});
  }

  /** The DOM's globals (document, DOMParser, Event …), each running linkedom the first time one is touched. */
  #lazyDocument(): void {
    const { scope, boot, bridge } = this.#parts;
    const page = boot.page;
    if (!page) return;
    const settle = (name: string, value: unknown) => Object.defineProperty(scope, name, { value, writable: true, configurable: true, enumerable: false });
    // What the DOM's script uses, as the realm has it before the page's scripts run: a page that
    // defines `require` (Privacy Badger) or `define` does not lend them to the DOM (captured-globals.ts).
    // Its own globals are not taken: it looks some of them up as it runs, and they are not there yet.
    const captured = captureGlobals(globalThis, page.captured, new Set(page.globals));
    let loading = false;
    const load = () => {
      if (this.#document || loading) return;
      loading = true;
      (bridge.runScript(withCapturedGlobals(page.domSource, captured.params), 'wrtui:page-dom') as (captured: unknown) => void).call(globalThis, captured);
      const make = scope[PAGE_DOCUMENT_GLOBAL] as (options: PageDocumentOptions) => PageDocument;
      delete scope[PAGE_DOCUMENT_GLOBAL];
      const document = make({ html: page.html, location: scope.location as { href: string }, window: globalThis, readyState: () => this.#readyState, currentScript: () => this.#currentScript, canvas: () => bridge.canvas() });
      this.#document = document;
      for (const name of page.globals) {
        // Still the trigger (not set by the page itself meanwhile): the DOM's own.
        if (Object.getOwnPropertyDescriptor(scope, name)?.get) settle(name, document.globals[name]);
      }
    };
    for (const name of page.globals) {
      Object.defineProperty(scope, name, {
        get: () => {
          load();
          const settled = Object.getOwnPropertyDescriptor(scope, name);
          return settled && 'value' in settled ? settled.value : undefined;
        },
        set: (value: unknown) => settle(name, value),
        configurable: true,
        enumerable: false,
      });
    }
  }

  /** requestIdleCallback (uMatrix defers its tab bookkeeping so): a page with nothing to draw is idle at once, for the 50 ms of an idle period. */
  #idleCallbacks(): void {
    const { scope, bridge, onError } = this.#parts;
    const idle = new Map<number, unknown>();
    let nextIdle = 1;
    scope.requestIdleCallback = (callback: unknown) => {
      if (typeof callback !== 'function') throw new TypeError("Failed to execute 'requestIdleCallback' on 'Window': parameter 1 is not of type 'Function'.");
      const id = nextIdle++;
      const run = () => {
        idle.delete(id);
        const started = performance.now();
        try {
          (callback as (deadline: unknown) => void)({ didTimeout: false, timeRemaining: () => Math.max(0, 50 - (performance.now() - started)) });
        } catch (error) {
          onError(error, 'an idle callback');
        }
      };
      idle.set(id, bridge.setTimer(run, 0, false));
      return id;
    };
    scope.cancelIdleCallback = (id: unknown) => {
      const handle = idle.get(Number(id));
      if (handle !== undefined) bridge.clearTimer(handle);
      idle.delete(Number(id));
    };
  }
}
