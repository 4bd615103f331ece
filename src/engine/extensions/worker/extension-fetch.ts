// fetch as an extension has it (runs on the worker's Node side, one per realm: the extension's and
// each dedicated Worker's): a URL relative to the page or worker script, or on the extension's own
// origin, is its own packaged file (`fetch('data/rules.json')`, how extensions load their data;
// Node's fetch knows neither), and a file that is not there fails as the browser's does. An http(s)
// URL goes out through the proxy (network-fetch.ts). Anything else (data:, blob:) is Node's fetch.
import { extensionRelativePath, readExtensionFile } from '../extension-files.js';
import type { NetworkFetch } from './network-fetch.js';

export interface ExtensionFetchParts {
  network: NetworkFetch;
  /** The URL relative URLs resolve against: the page's or the worker script's. */
  here: () => string | undefined;
  /** The extension's origin (chrome-extension://id) and real folder, once the worker knows them. */
  origin: () => string | undefined;
  folder: () => string | undefined;
  /** Firefox's fetch answers a missing file of its own differently. */
  inFirefox: () => boolean;
}

export function makeExtensionFetch(parts: ExtensionFetchParts): (input: unknown, init?: unknown) => Promise<Response> {
  return async function fetch(input: unknown, init?: unknown): Promise<Response> {
    const given = typeof input === 'object' && input !== null && typeof (input as { url?: unknown }).url === 'string' ? (input as { url: string }).url : String(input);
    const origin = parts.origin();
    const folder = parts.folder();
    const here = parts.here() ?? (origin === undefined ? undefined : `${origin}/`);
    let url: URL | undefined;
    try {
      url = new URL(given, here);
    } catch {
      url = undefined;
    }
    const nodeFetch = () => globalThis.fetch((url && typeof input === 'string' ? url.href : input) as Parameters<typeof globalThis.fetch>[0], init as Parameters<typeof globalThis.fetch>[1]);
    if (url && (url.protocol === 'http:' || url.protocol === 'https:')) return parts.network.fetch(url, input, init as RequestInit | undefined, nodeFetch);
    if (!url || origin === undefined || folder === undefined || `${url.protocol}//${url.host}` !== origin) return nodeFetch();
    // Whatever the method: Chromium 156 answers a POST, and a HEAD with the body too.
    const relative = extensionRelativePath(url);
    const file = relative === undefined ? undefined : await readExtensionFile(folder, relative);
    if (!file) {
      if (!parts.inFirefox()) throw new TypeError('Failed to fetch');
      // Firefox ESR 153.7 answers 200, and reading the body fails (test/personas/firefox-identity.test.ts).
      const aborted = new ReadableStream({ start: (controller) => controller.error(new DOMException('The operation was aborted. ', 'AbortError')) });
      return new Response(aborted, { status: 200 });
    }
    const response = new Response(file.bytes, { status: 200, headers: { 'Content-Type': file.type, 'Content-Length': String(file.bytes.byteLength) } });
    // A Response made here has no URL of its own; the extension's says where it came from.
    Object.defineProperty(response, 'url', { value: url.href.replace(/#.*$/, ''), enumerable: true });
    return response;
  };
}
