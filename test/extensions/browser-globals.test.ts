// A browser global wrtui leaves out fails as anywhere else; the message then says it is wrtui's doing.
import { describe, expect, it } from 'vitest';
import { withBrowserGlobalHint } from '../../src/engine/extensions/browser-globals.js';

describe('the hint on a browser global wrtui does not have', () => {
  it('"ReferenceError: document is not defined" (Privacy Badger\'s background page at start-up) says wrtui has no DOM', () => {
    expect(withBrowserGlobalHint('the background script threw ReferenceError: document is not defined')).toBe(
      'the background script threw ReferenceError: document is not defined (wrtui runs backgrounds without a DOM, web storage, XMLHttpRequest or IndexedDB: README, "What the code sees")',
    );
    expect(withBrowserGlobalHint('TypeError: window.matchMedia is not a function')).toContain('without a DOM');
  });

  it("leaves the extension's own mistakes as they are", () => {
    expect(withBrowserGlobalHint('ReferenceError: redirectz is not defined')).toBe('ReferenceError: redirectz is not defined');
    expect(withBrowserGlobalHint('TypeError: x.map is not a function')).toBe('TypeError: x.map is not a function');
  });
});
