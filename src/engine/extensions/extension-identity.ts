// The name an extension goes by (runtime.id) and the origin of its own files (runtime.getURL,
// self.location), as the persona's browser gives them. Checked against Firefox ESR 153.7
// (test/personas/firefox-identity.test.ts) and Chromium 156 (test/extensions/chromium-extension.test.ts).
//
// Chrome (and the spec persona): one id for both, chrome-extension://<id>/ (extension-id.ts).
// Firefox: runtime.id is the manifest's gecko id, or for an add-on without one, loaded as a
// temporary add-on, 40 hex digits and "@temporary-addon"; its files live at
// moz-extension://<uuid>/, a random UUID Firefox keeps per profile, which i18n's @@extension_id
// also gives. wrtui derives both from the folder and the id, so they are stable for a folder (a
// temporary add-on's id in Firefox changes with each browser session).
import { createHash } from 'node:crypto';
import type { PersonaName } from '../personas/index.js';
import type { ExtensionManifest } from './extension-manifest.js';

export interface ExtensionIdentity {
  /** runtime.id */
  id: string;
  /** The origin of its files, with a trailing slash: chrome-extension://<id>/ or moz-extension://<uuid>/. */
  baseUrl: string;
}

/** Firefox's own message for a gecko id it refuses, and its two patterns. */
const GECKO_ID_PATTERNS = [/^\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}$/i, /^[a-z0-9-._]*@[a-z0-9-._]+$/i];

export class ExtensionIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExtensionIdentityError';
  }
}

export function extensionIdentity(manifest: ExtensionManifest, persona: PersonaName): ExtensionIdentity {
  if (persona !== 'firefox') return { id: manifest.id, baseUrl: `chrome-extension://${manifest.id}/` };
  const id = geckoId(manifest) ?? `${createHash('sha1').update(manifest.dir).digest('hex')}@temporary-addon`;
  return { id, baseUrl: `moz-extension://${internalUuid(id)}/` };
}

/**
 * browser_specific_settings.gecko.id (MV2 also reads the older `applications` key); undefined
 * when there is none. Throws Firefox's error for an id it would refuse to load.
 */
function geckoId(manifest: ExtensionManifest): string | undefined {
  const raw = manifest.raw;
  const settings = raw.browser_specific_settings ?? (manifest.manifestVersion === 2 ? raw.applications : undefined);
  const id = (settings as { gecko?: { id?: unknown } } | undefined)?.gecko?.id;
  if (id === undefined || id === null) return undefined;
  const where = raw.browser_specific_settings !== undefined ? 'browser_specific_settings' : 'applications';
  if (typeof id !== 'string' || !GECKO_ID_PATTERNS.some((pattern) => pattern.test(id))) {
    throw new ExtensionIdentityError(
      `Error processing ${where}.gecko.id: Value ${JSON.stringify(id)} must either: match the pattern ${String(GECKO_ID_PATTERNS[0])}, or match the pattern ${String(GECKO_ID_PATTERNS[1])}`,
    );
  }
  return id;
}

/** A version 4 UUID drawn from the id rather than at random, so that it is the same on every run. */
function internalUuid(id: string): string {
  const bytes = createHash('sha256').update(`moz-extension:${id}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
