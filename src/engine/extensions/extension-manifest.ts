// Reads an unpacked extension's manifest.json as a browser does, into what wrtui needs: its name
// (`__MSG_…__` resolved from _locales), id, permissions and host permissions (MV2 lists host
// patterns among its permissions), and its background (MV3 service_worker, classic or module;
// MV2 scripts or page; Firefox's MV3 background.scripts). What would keep the extension from
// loading is an error (ExtensionManifestError, with the file and line); a malformed host pattern
// is a warning and is dropped, as Chrome drops it.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { validateMatchPattern } from '../match-pattern.js';
import { extensionIdFromKey, extensionIdFromPath } from './extension-id.js';
import { localizedManifestText, predefinedMessages, UI_LOCALE, type LocaleMessages } from './locale-messages.js';

export type Background =
  | { kind: 'service_worker'; file: string; module: boolean }
  | { kind: 'scripts'; files: string[]; module: boolean }
  | { kind: 'page'; file: string }
  | { kind: 'none' };

export interface ExtensionManifest {
  dir: string;
  id: string;
  name: string;
  version: string;
  manifestVersion: 2 | 3;
  /** API permissions (webRequest, cookies, storage, …). */
  permissions: string[];
  hostPermissions: string[];
  background: Background;
  /** browser_specific_settings.gecko (or MV2's `applications.gecko`): written for Firefox. */
  gecko: boolean;
  /** The manifest as written, for runtime.getManifest(). */
  raw: Record<string, unknown>;
  /** _locales messages for chrome.i18n (empty without default_locale). */
  messages: LocaleMessages;
  warnings: string[];
}

export class ExtensionManifestError extends Error {
  readonly location: string;
  constructor(message: string, location: string) {
    super(message);
    this.name = 'ExtensionManifestError';
    this.location = location;
  }
}

export const MANIFEST_FILE = 'manifest.json';

export async function readExtensionManifest(dir: string): Promise<ExtensionManifest> {
  const file = path.join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ExtensionManifestError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, file);
  }
  let raw: unknown;
  try {
    // Chrome accepts comments in manifest.json; so does wrtui (outside strings).
    raw = JSON.parse(stripJsonComments(text.replace(/^\uFEFF/, '')));
  } catch (error) {
    throw new ExtensionManifestError(`manifest.json is not valid JSON: ${(error as Error).message}`, `${file}${lineOfJsonError(text, error)}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ExtensionManifestError('manifest.json must hold an object', file);
  const manifest = raw as Record<string, unknown>;
  const warnings: string[] = [];

  const version = manifest.manifest_version;
  if (version !== 2 && version !== 3) throw new ExtensionManifestError(`"manifest_version" must be 2 or 3, got ${JSON.stringify(version)}`, file);
  if (typeof manifest.name !== 'string' || manifest.name.trim() === '') throw new ExtensionManifestError('"name" is required', file);
  if (typeof manifest.version !== 'string') throw new ExtensionManifestError('"version" is required (a string such as "1.0")', file);
  const messages = await readLocaleMessages(dir, typeof manifest.default_locale === 'string' ? manifest.default_locale : undefined, warnings);

  const listed = stringList(manifest.permissions, 'permissions', file);
  const hostListed = version === 3 ? stringList(manifest.host_permissions, 'host_permissions', file) : [];
  const permissions: string[] = [];
  const hostPermissions: string[] = [];
  for (const entry of version === 2 ? listed : [...listed, ...hostListed]) {
    // MV2 puts host patterns among its permissions; in MV3 they belong in host_permissions.
    const looksLikeHost = entry === '<all_urls>' || entry.includes('://');
    if (!looksLikeHost) {
      permissions.push(entry);
      continue;
    }
    if (version === 3 && !hostListed.includes(entry)) warnings.push(`"${entry}" belongs in "host_permissions" in Manifest V3; it is used as one`);
    const problem = validateMatchPattern(entry);
    if (problem) warnings.push(`Permission '${entry}' is unknown or URL pattern is malformed (${problem}); it is ignored`);
    else hostPermissions.push(entry);
  }

  const background = readBackground(manifest.background, version, file);
  const gecko = isObject(manifest.browser_specific_settings) && 'gecko' in manifest.browser_specific_settings || (isObject(manifest.applications) && 'gecko' in manifest.applications);
  const id = typeof manifest.key === 'string' && manifest.key.trim() !== '' ? extensionIdFromKey(manifest.key) : extensionIdFromPath(dir);
  const name = localizedManifestText(messages, predefinedMessages(id), manifest.name);
  return { dir, id, name, version: manifest.version, manifestVersion: version, permissions, hostPermissions, background, gecko, raw: manifest, messages, warnings };
}

function readBackground(value: unknown, version: 2 | 3, file: string): Background {
  if (value === undefined) return { kind: 'none' };
  if (!isObject(value)) throw new ExtensionManifestError('"background" must be an object', file);
  const module = value.type === 'module';
  if (typeof value.service_worker === 'string') {
    if (version === 2) throw new ExtensionManifestError('"background.service_worker" needs "manifest_version": 3', file);
    return { kind: 'service_worker', file: value.service_worker, module };
  }
  if (value.scripts !== undefined) return { kind: 'scripts', files: stringList(value.scripts, 'background.scripts', file), module };
  if (typeof value.page === 'string') return { kind: 'page', file: value.page };
  throw new ExtensionManifestError('"background" needs "service_worker" (MV3), "scripts" or "page"', file);
}

/**
 * Reads the messages of `defaultLocale` and the UI locale. A file that is missing is skipped; one
 * that is not valid JSON is named in `warnings` (Chrome refuses such an extension; wrtui loads it
 * without those messages and says so).
 */
async function readLocaleMessages(dir: string, defaultLocale: string | undefined, warnings: string[] = []): Promise<LocaleMessages> {
  if (defaultLocale === undefined) return {};
  const locales = [...new Set([UI_LOCALE, UI_LOCALE.split('_')[0]!, defaultLocale])];
  const merged: LocaleMessages = {};
  for (const locale of locales.reverse()) {
    const file = path.join(dir, '_locales', locale, 'messages.json');
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (error) {
      warnings.push(`${file} is not valid JSON (${(error as Error).message}); its messages are left out`);
      continue;
    }
    if (typeof parsed !== 'object' || parsed === null) continue;
    for (const [name, entry] of Object.entries(parsed as Record<string, unknown>)) {
      const message = (entry as { message?: unknown } | null)?.message;
      if (typeof message !== 'string') continue;
      const placeholders: Record<string, string> = {};
      for (const [key, value] of Object.entries((entry as { placeholders?: Record<string, { content?: unknown }> }).placeholders ?? {})) {
        if (typeof value?.content === 'string') placeholders[key.toLowerCase()] = value.content;
      }
      merged[name.toLowerCase()] = Object.keys(placeholders).length > 0 ? { message, placeholders } : { message };
    }
  }
  return merged;
}

function stringList(value: unknown, key: string, file: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw new ExtensionManifestError(`"${key}" must be a list of strings`, file);
  return value as string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Removes // and /* *\/ comments outside strings, keeping line breaks (so error lines stay right). */
function stripJsonComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      i += 2;
      while (i < text.length && !(text[i] === '*' && text[i + 1] === '/')) {
        if (text[i] === '\n') out += '\n';
        i++;
      }
      i++;
    } else out += c;
  }
  return out;
}

/** `:line:col` of a JSON.parse error, from the position V8 names. */
function lineOfJsonError(text: string, error: unknown): string {
  const position = /position (\d+)/.exec((error as Error).message)?.[1];
  if (position === undefined) return '';
  const before = text.slice(0, Number(position));
  const line = before.split('\n').length;
  return `:${line}:${Number(position) - before.lastIndexOf('\n')}`;
}
