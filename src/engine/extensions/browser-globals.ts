// A browser global wrtui's realms do not have (no DOM, no web storage, no XMLHttpRequest, no
// IndexedDB) fails as it would anywhere else: "ReferenceError: document is not defined". That
// reads like a bug in the extension; the hint says it is what wrtui leaves out.
const ABSENT = new Set([
  'document', 'localStorage', 'sessionStorage', 'XMLHttpRequest', 'DOMParser', 'indexedDB', 'IDBKeyRange', 'caches',
  'Image', 'Audio', 'Notification', 'FileReader', 'alert', 'confirm', 'prompt', 'HTMLElement', 'MutationObserver', 'matchMedia',
]);

/** `message` with a hint when it says a browser global wrtui leaves out is not defined. */
export function withBrowserGlobalHint(message: string): string {
  const name = /ReferenceError: (\w+) is not defined/.exec(message)?.[1] ?? /\bwindow\.(\w+) is not a function/.exec(message)?.[1];
  if (name === undefined || !ABSENT.has(name)) return message;
  return `${message} (wrtui runs backgrounds without a DOM, web storage, XMLHttpRequest or IndexedDB: README, "What the code sees")`;
}
