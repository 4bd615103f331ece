// RequestFilter (§2.6): validated once at addListener, then matched against every request.
import { MatchPatternSet } from '../match-pattern.js';
import { specPersona, type Persona } from '../personas/index.js';
import type { RequestContext } from '../personas/request-context.js';
import type { RequestFilter, ResourceType } from '../types.js';

/** What a request shows a filter: its URL, type and where it comes from. */
export interface FilterableRequest {
  url: URL;
  type: ResourceType;
  tabId: number;
  windowId: number;
  /** The cookie store: "1" is incognito (Firefox's filter has `incognito`). */
  storeId?: string;
  /** At an extension's own URL (a redirect to its resource): that extension's id, which alone sees it. */
  extensionHost?: string;
  /** Made by an extension itself (its own fetch): the host of its origin. */
  madeBy?: string;
  /** The version of that extension (its worker) that made it, when known. */
  madeByVersion?: object;
  /** Where it comes from, for the personas' details fields and Chrome's preflight rule. */
  context?: RequestContext;
  /** A persona's details fields for this request, made once per request (personas/). */
  fieldsFor?(persona: Persona): Record<string, unknown>;
  /** The same fields and the persona's `type`, as JSON text, made once per request (for workers' details). */
  fieldsJsonFor?(persona: Persona): string;
}

export interface CompiledRequestFilter {
  readonly filter: RequestFilter;
  matches(request: FilterableRequest): boolean;
}

/**
 * Validates a RequestFilter the way the persona's browser does at addListener; throws a TypeError
 * saying what is wrong, in that browser's words where we know them.
 */
export function compileRequestFilter(filter: unknown, persona: Persona = specPersona, where = 'webRequest.addListener'): CompiledRequestFilter {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    throw new TypeError(`${where}: Invalid filter: expected an object like { urls: ["<all_urls>"] }.`);
  }
  const { urls, types, tabId, windowId, incognito, ...unknown } = filter as Record<string, unknown>;
  const extra = Object.keys(unknown);
  if (incognito !== undefined && !persona.filterKeys.includes('incognito')) extra.unshift('incognito');
  if (extra.length > 0) throw new TypeError(persona.errors.unexpectedFilterKey(where, extra[0]!));
  if (!Array.isArray(urls)) throw new TypeError(`${where}: Invalid filter: "urls" is required and must be an array of URL patterns.`);
  if (urls.length === 0 && !persona.acceptsEmptyUrls) throw new TypeError(`${where}: Invalid filter: "urls" must name at least one URL pattern.`);
  const badUrl = urls.find((url) => typeof url !== 'string');
  if (badUrl !== undefined) throw new TypeError(`${where}: Invalid filter: "urls" entries must be strings, got ${JSON.stringify(badUrl)}.`);
  let patterns: MatchPatternSet;
  try {
    patterns = new MatchPatternSet(urls as string[], { extensionSchemes: true });
  } catch (error) {
    throw new TypeError(`${where}: Invalid filter: ${(error as Error).message}`);
  }

  const allUrls = (urls as string[]).includes('<all_urls>');

  let typeSet: ReadonlySet<string> | undefined;
  if (types !== undefined) {
    if (!Array.isArray(types)) throw new TypeError(`${where}: Invalid filter: "types" must be an array of resource types.`);
    const badIndex = types.findIndex((type) => !persona.resourceTypes.includes(type as string));
    if (badIndex !== -1) throw new TypeError(persona.errors.badType(where, types[badIndex], badIndex, persona.resourceTypes));
    typeSet = new Set(types as string[]);
  }
  if (incognito !== undefined && typeof incognito !== 'boolean') throw new TypeError(`${where}: Invalid filter: "incognito" must be a boolean.`);
  for (const [key, value] of [['tabId', tabId], ['windowId', windowId]] as const) {
    if (value !== undefined && !Number.isInteger(value)) throw new TypeError(`${where}: Invalid filter: "${key}" must be an integer.`);
  }

  const normalized: RequestFilter = { urls: [...(urls as string[])] };
  if (typeSet) normalized.types = [...typeSet] as ResourceType[];
  if (tabId !== undefined) normalized.tabId = tabId as number;
  if (windowId !== undefined) normalized.windowId = windowId as number;
  if (incognito !== undefined) (normalized as RequestFilter & { incognito?: boolean }).incognito = incognito as boolean;

  return {
    filter: normalized,
    matches(request) {
      if (typeSet && !typeSet.has(persona.typeOf(request.type))) return false;
      if (incognito !== undefined && (request.storeId === '1') !== incognito) return false;
      if (tabId !== undefined && request.tabId !== tabId) return false;
      if (windowId !== undefined && request.windowId !== windowId) return false;
      // An extension's own URL (a redirect to its resource): <all_urls> names it (Chromium 156), or a
      // chrome-extension:// pattern.
      if (request.extensionHost !== undefined) return allUrls || patterns.matches(request.url);
      return patterns.matches(request.url);
    },
  };
}
