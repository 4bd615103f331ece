// A browser global wrtui leaves out fails as anywhere else; the message then says it is wrtui's doing.
import { describe, expect, it } from 'vitest';
import { withBrowserGlobalHint } from '../../src/engine/extensions/browser-globals.js';

describe('the hint on a browser global wrtui does not have', () => {
  it('"ReferenceError: caches is not defined" says wrtui has no Cache API', () => {
    expect(withBrowserGlobalHint('the background script threw ReferenceError: caches is not defined')).toBe(
      'the background script threw ReferenceError: caches is not defined (wrtui runs backgrounds without the Cache API or window dialogs: docs/extensions-and-host.md, "What the code sees")',
    );
    expect(withBrowserGlobalHint('TypeError: window.matchMedia is not a function')).toContain('without the Cache API');
  });

  it('IndexedDB is not among what wrtui leaves out: "indexedDB is not defined" gets no hint that would blame wrtui', () => {
    expect(withBrowserGlobalHint('ReferenceError: indexedDB is not defined')).toBe('ReferenceError: indexedDB is not defined');
  });

  it('"ReferenceError: document is not defined" (in a service worker) says a service worker has none, in Chrome neither', () => {
    expect(withBrowserGlobalHint('the background script threw ReferenceError: document is not defined')).toBe(
      'the background script threw ReferenceError: document is not defined (a service worker has no DOM, web storage or XMLHttpRequest, in Chrome neither; a background page has them in wrtui: docs/extensions-and-host.md, "What the code sees")',
    );
  });

  it("leaves the extension's own mistakes as they are", () => {
    expect(withBrowserGlobalHint('ReferenceError: redirectz is not defined')).toBe('ReferenceError: redirectz is not defined');
    expect(withBrowserGlobalHint('TypeError: x.map is not a function')).toBe('TypeError: x.map is not a function');
  });
});
