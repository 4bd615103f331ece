// A browser global wrtui's realms do not have fails as it would anywhere else: "ReferenceError:
// caches is not defined". That reads like a bug in the extension; the hint says it is what wrtui
// leaves out (the Cache API, a window's dialogs), or, for the DOM, web storage and XMLHttpRequest,
// that a service worker has none (in Chrome neither) while a background page has them here.
const ABSENT = new Set(['caches', 'Audio', 'Notification', 'alert', 'confirm', 'prompt', 'matchMedia']);
const PAGE_ONLY = new Set(['document', 'DOMParser', 'Image', 'HTMLElement', 'MutationObserver', 'localStorage', 'sessionStorage', 'XMLHttpRequest']);

/** `message` with a hint when it says a browser global wrtui leaves out is not defined. */
export function withBrowserGlobalHint(message: string): string {
  const name = /ReferenceError: (\w+) is not defined/.exec(message)?.[1] ?? /\bwindow\.(\w+) is not a function/.exec(message)?.[1];
  if (name !== undefined && PAGE_ONLY.has(name)) return `${message} (a service worker has no DOM, web storage or XMLHttpRequest, in Chrome neither; a background page has them in wrtui: docs/extensions-and-host.md, "What the code sees")`;
  if (name === undefined || !ABSENT.has(name)) return message;
  return `${message} (wrtui runs backgrounds without the Cache API or window dialogs: docs/extensions-and-host.md, "What the code sees")`;
}
