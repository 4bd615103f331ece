// An extension's web accessible resources, as a redirect to its URL is answered: LocalCDN and
// Decentraleyes redirect a CDN's script to their own copy, uBlock Origin Lite's DNR rules to a
// neutered script (`redirect.extensionPath`). The browser serves such a file itself when the
// manifest lists it (MV2: a list of paths; MV3: objects whose `resources` list them), `*` matching
// any run of characters; anything else fails with net::ERR_BLOCKED_BY_CLIENT (Chromium 156).
// wrtui does not check MV3's `matches` (the pages allowed to load it): a proxy knows the page only
// from the request's Referer. The file is read asynchronously, and only a regular file: the lookup
// runs on the proxy thread, where a large file or a FIFO read synchronously would stall every request.
import { extensionRelativePath, readExtensionFile, type ExtensionFile } from './extension-files.js';

/** The manifest's web_accessible_resources as patterns over paths relative to the extension's folder. */
export function webAccessiblePatterns(manifest: Record<string, unknown>): RegExp[] {
  const entries = Array.isArray(manifest.web_accessible_resources) ? manifest.web_accessible_resources : [];
  const paths = entries.flatMap((entry: unknown) =>
    typeof entry === 'string' ? [entry] : typeof entry === 'object' && entry !== null && Array.isArray((entry as { resources?: unknown }).resources) ? (entry as { resources: unknown[] }).resources.filter((item): item is string => typeof item === 'string') : [],
  );
  return paths.map((glob) => new RegExp(`^${glob.replace(/^\/+/, '').split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`));
}

/** The file `url` names in the extension at `folder`, when it is web accessible there; undefined otherwise. */
export async function webAccessibleResource(folder: string, patterns: readonly RegExp[], url: URL): Promise<ExtensionFile | undefined> {
  const relative = extensionRelativePath(url);
  if (relative === undefined || !patterns.some((pattern) => pattern.test(relative))) return undefined;
  return readExtensionFile(folder, relative);
}
