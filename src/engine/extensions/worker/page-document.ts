// A background page's document, inside the extension's realm: linkedom's DOM (a DOM without
// layout), parsed from the page's HTML, run only once the page's code first touches the DOM, and
// made to answer as the page would where linkedom does not: document.location, URL, readyState,
// defaultView, and an anchor's URL parts (`a.href = url; a.hostname`, how old code parses URLs).
// Bundled on its own (worker-script.ts); what it shares with the bindings is in page-dom.ts.
import * as linkedom from 'linkedom';
import { drawableCanvasElements } from './canvas-globals.js';
import { PAGE_DOCUMENT_GLOBAL, domGlobalNames, type PageDocument, type PageDocumentOptions } from './page-dom.js';

function makePageDocument(options: PageDocumentOptions): PageDocument {
  const { window, document } = linkedom.parseHTML(options.html) as unknown as { window: Record<string, unknown>; document: Record<string, unknown> & { dispatchEvent(event: unknown): boolean } };
  const exported = linkedom as unknown as Record<string, unknown>;
  const globals: Record<string, unknown> = {};
  // The document classes linkedom does not export: `document instanceof HTMLDocument` is how scripts tell a page.
  const classes: Record<string, unknown> = {
    document,
    HTMLDocument: Object.getPrototypeOf(document).constructor,
    XMLDocument: Object.getPrototypeOf(new linkedom.DOMParser().parseFromString('<x/>', 'text/xml')).constructor,
  };
  for (const name of domGlobalNames(Object.keys(exported))) {
    const value = name in exported ? exported[name] : name in classes ? classes[name] : window[name];
    if (value !== undefined) globals[name] = value;
  }
  const href = () => options.location.href;
  Object.defineProperties(document, {
    location: { get: () => options.location, configurable: true },
    URL: { get: href, configurable: true },
    documentURI: { get: href, configurable: true },
    baseURI: { get: href, configurable: true },
    readyState: { get: options.readyState, configurable: true },
    defaultView: { get: () => options.window, configurable: true },
    // The script element of the classic script running now (null in a module or a callback), as
    // libraries find their own folder (`document.currentScript.src`, uMatrix's lz4 codec).
    currentScript: {
      get: () => {
        const index = options.currentScript();
        return index === undefined ? null : ((document as unknown as { querySelectorAll(selector: string): ArrayLike<unknown> }).querySelectorAll('script[src]')[index] ?? null);
      },
      configurable: true,
    },
  });
  for (const element of [linkedom.HTMLAnchorElement, linkedom.HTMLAreaElement]) urlParts(element.prototype, href);
  for (const element of [linkedom.HTMLScriptElement, linkedom.HTMLImageElement, linkedom.HTMLIFrameElement]) resolvedUrl(element.prototype, 'src', href);
  drawableCanvasElements(linkedom.HTMLCanvasElement.prototype, options.canvas, () => (options.window as Record<string, unknown>).Blob);
  const fire = (type: string) => document.dispatchEvent(new linkedom.Event(type, { bubbles: type === 'DOMContentLoaded' }));
  return {
    globals,
    changed(state) {
      fire('readystatechange');
      if (state === 'interactive') fire('DOMContentLoaded');
    },
  };
}

/** What of an element these getters use (the project's types have no DOM library). */
interface Element {
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
}

/** `attribute` (src) read as the page's browser reads it: resolved against the page. */
function resolvedUrl(prototype: object, attribute: string, base: () => string): void {
  Object.defineProperty(prototype, attribute, {
    get(this: Element) {
      const value = this.getAttribute(attribute);
      if (value === null) return '';
      try {
        return new URL(value, base()).href;
      } catch {
        return value;
      }
    },
    set(this: Element, value: unknown) {
      this.setAttribute(attribute, String(value));
    },
    configurable: true,
  });
}

/** href resolved against the page, and its parts (protocol, host, hostname, port, pathname, search, hash, origin). */
function urlParts(prototype: object, base: () => string): void {
  const parsed = (element: Element): URL | undefined => {
    try {
      return new URL(element.getAttribute('href') ?? '', base());
    } catch {
      return undefined;
    }
  };
  Object.defineProperty(prototype, 'href', {
    get(this: Element) {
      return parsed(this)?.href ?? this.getAttribute('href') ?? '';
    },
    set(this: Element, value: unknown) {
      this.setAttribute('href', String(value));
    },
    configurable: true,
  });
  for (const part of ['protocol', 'host', 'hostname', 'port', 'pathname', 'search', 'hash', 'origin', 'username', 'password'] as const) {
    Object.defineProperty(prototype, part, {
      get(this: Element) {
        return parsed(this)?.[part] ?? '';
      },
      configurable: true,
    });
  }
}

(globalThis as unknown as Record<string, unknown>)[PAGE_DOCUMENT_GLOBAL] = makePageDocument;
