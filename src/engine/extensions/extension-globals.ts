// What an extension written in TypeScript gets from `wrtui/extension`: the global `chrome` and
// `browser` as wrtui provides them, with every namespace wrtui has (at run time a namespace is
// there only when the manifest grants its permission, as in a browser).
//
//   // tsconfig.json: { "compilerOptions": { "types": ["wrtui/extension"] } }
//   chrome.webRequest.onBeforeRequest.addListener((details) => { … }, { urls: ['<all_urls>'] }, ['blocking']);
import type { FullBrowserApi, FullChromeApi } from '../rules/author-types.js';

declare global {
  const chrome: FullChromeApi;
  const browser: FullBrowserApi;
  /** Classic service workers: loads more scripts of the extension, synchronously. */
  function importScripts(...urls: string[]): void;
}

export type { FullBrowserApi, FullChromeApi };
