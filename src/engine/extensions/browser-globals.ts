// A browser global wrtui's realms do not have fails as it would anywhere else: "ReferenceError:
// localStorage is not defined". That reads like a bug in the extension; the hint says it is what
// wrtui leaves out (web storage, XMLHttpRequest, IndexedDB, a window's dialogs), or, for the DOM,
// that a service worker has none (in Chrome neither) while a background page has one here.
const ABSENT = new Set(['localStorage', 'sessionStorage', 'XMLHttpRequest', 'indexedDB', 'IDBKeyRange', 'caches', 'Audio', 'Notification', 'FileReader', 'alert', 'confirm', 'prompt', 'matchMedia']);
const DOM = new Set(['document', 'DOMParser', 'Image', 'HTMLElement', 'MutationObserver']);

/** `message` with a hint when it says a browser global wrtui leaves out is not defined. */
export function withBrowserGlobalHint(message: string): string {
  const name = /ReferenceError: (\w+) is not defined/.exec(message)?.[1] ?? /\bwindow\.(\w+) is not a function/.exec(message)?.[1];
  if (name !== undefined && DOM.has(name)) return `${message} (a service worker has no DOM, in Chrome neither; a background page has one in wrtui: README, "What the code sees")`;
  if (name === undefined || !ABSENT.has(name)) return message;
  return `${message} (wrtui runs backgrounds without web storage, XMLHttpRequest or IndexedDB: README, "What the code sees")`;
}
