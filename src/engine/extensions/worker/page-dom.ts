// What the host and the extension's realm agree on for a background page's DOM (page-document.ts):
// the global that hands over its maker, what it is given and gives back, and which of linkedom's
// exports a page sees as globals.

import type { CanvasKit } from './canvas-kit.js';

/** The global the DOM script leaves its maker on (taken and deleted at once). */
export const PAGE_DOCUMENT_GLOBAL = '__wrtuiPageDocument';

/** What a background page's worker is given, beside its scripts (WorkerBoot.page). */
export interface PageBoot {
  /** The page's HTML: background.page's file, or the page Chromium generates for background.scripts. */
  html: string;
  /** The DOM implementation (linkedom) as one script for the extension's realm, run on first use. */
  domSource: string;
  /** The globals it gives a page (touching any of them is its first use). */
  globals: string[];
  /** The globals it uses, captured before the page's scripts run (captured-globals.ts). */
  captured: string[];
}

export interface PageDocumentOptions {
  html: string;
  /** self.location, which document.location is too. */
  location: { href: string };
  /** The page's global (document.defaultView). */
  window: unknown;
  /** loading while the scripts run, interactive at DOMContentLoaded, complete at load. */
  readyState: () => 'loading' | 'interactive' | 'complete';
  /** document.currentScript: the position, among the page's script elements with a src, of the classic script running now. */
  currentScript: () => number | undefined;
  /** The 2D canvas a <canvas> element draws with (canvas-kit.ts), loaded on first use. */
  canvas: () => CanvasKit;
}

export interface PageDocument {
  /** Every DOM global the page sees, by name (document among them). */
  globals: Record<string, unknown>;
  /** The document's own events as its state changes: readystatechange, and DOMContentLoaded at interactive. */
  changed(state: 'interactive' | 'complete'): void;
}

/** The names of linkedom's exports a page sees as globals: its interfaces, not its helpers. */
export function domGlobalNames(exported: readonly string[]): string[] {
  const helpers = new Set(['Facades', 'HTMLClasses']);
  return [...exported.filter((name) => /^[A-Z]/.test(name) && !helpers.has(name)), 'document', 'customElements', 'MutationObserver', 'Image', 'XMLSerializer', 'HTMLDocument', 'XMLDocument'];
}
