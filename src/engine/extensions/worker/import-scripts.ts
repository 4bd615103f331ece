// importScripts as a classic worker has it (a service worker's, a dedicated Worker's; runs inside
// the realm that calls it): each URL, relative to the worker's script, is read and run at once, in
// order, in the worker's global scope; one outside the extension's origin or folder, or not there,
// fails with the browser's NetworkError.

export interface ImportScriptsParts {
  /** The worker's script URL, which the URLs are relative to. */
  scriptUrl: string;
  /** The extension's origin (chrome-extension://id). */
  origin: string;
  /** The extension's file a URL on its origin names. */
  fileOf: (url: URL) => string;
  /** Its text; throws when it is not there or outside the folder. */
  readFile: (file: string) => string;
  runScript: (code: string, file: string) => unknown;
}

export function createImportScripts(parts: ImportScriptsParts): (...urls: unknown[]) => void {
  const failed = (url: string) => new DOMException(`Failed to execute 'importScripts' on 'WorkerGlobalScope': The script at '${url}' failed to load.`, 'NetworkError');
  return function importScripts(...urls: unknown[]): void {
    for (const url of urls) {
      const resolved = new URL(String(url), parts.scriptUrl);
      if (`${resolved.protocol}//${resolved.host}` !== parts.origin) throw failed(resolved.href);
      const file = parts.fileOf(resolved);
      let code: string;
      try {
        code = parts.readFile(file);
      } catch {
        throw failed(resolved.href);
      }
      parts.runScript(code, file);
    }
  };
}

/** A module worker's importScripts, which the browser has and refuses. */
export function moduleImportScripts(): never {
  throw new TypeError("Failed to execute 'importScripts' on 'WorkerGlobalScope': Module scripts don't support importScripts().");
}
