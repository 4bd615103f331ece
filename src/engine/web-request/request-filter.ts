// RequestFilter (§2.6): validated once at addListener, then matched against every request.
import { MatchPatternSet } from '../match-pattern.js';
import { RESOURCE_TYPES, type RequestFilter, type ResourceType } from '../types.js';

/** What a request shows a filter: its URL, type and where it comes from. */
export interface FilterableRequest {
  url: URL;
  type: ResourceType;
  tabId: number;
  windowId: number;
}

export interface CompiledRequestFilter {
  readonly filter: RequestFilter;
  matches(request: FilterableRequest): boolean;
}

const RESOURCE_TYPE_SET: ReadonlySet<string> = new Set(RESOURCE_TYPES);

/** Validates a RequestFilter the way Chrome does at addListener; throws a TypeError saying what is wrong. */
export function compileRequestFilter(filter: unknown): CompiledRequestFilter {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    throw new TypeError('Invalid filter: expected an object like { urls: ["<all_urls>"] }.');
  }
  const { urls, types, tabId, windowId, ...unknown } = filter as Record<string, unknown>;
  const extra = Object.keys(unknown);
  if (extra.length > 0) throw new TypeError(`Invalid filter: unexpected property "${extra[0]}".`);
  if (!Array.isArray(urls)) throw new TypeError('Invalid filter: "urls" is required and must be an array of URL patterns.');
  if (urls.length === 0) throw new TypeError('Invalid filter: "urls" must name at least one URL pattern.');
  const badUrl = urls.find((url) => typeof url !== 'string');
  if (badUrl !== undefined) throw new TypeError(`Invalid filter: "urls" entries must be strings, got ${JSON.stringify(badUrl)}.`);
  let patterns: MatchPatternSet;
  try {
    patterns = new MatchPatternSet(urls as string[]);
  } catch (error) {
    throw new TypeError(`Invalid filter: ${(error as Error).message}`);
  }

  let typeSet: ReadonlySet<string> | undefined;
  if (types !== undefined) {
    if (!Array.isArray(types)) throw new TypeError('Invalid filter: "types" must be an array of resource types.');
    const badType = types.find((type) => !RESOURCE_TYPE_SET.has(type as string));
    if (badType !== undefined) {
      throw new TypeError(`Invalid filter: ${JSON.stringify(badType)} is not a ResourceType (one of ${RESOURCE_TYPES.join(', ')}).`);
    }
    typeSet = new Set(types as string[]);
  }
  for (const [key, value] of [['tabId', tabId], ['windowId', windowId]] as const) {
    if (value !== undefined && !Number.isInteger(value)) throw new TypeError(`Invalid filter: "${key}" must be an integer.`);
  }

  const normalized: RequestFilter = { urls: [...(urls as string[])] };
  if (typeSet) normalized.types = [...typeSet] as ResourceType[];
  if (tabId !== undefined) normalized.tabId = tabId as number;
  if (windowId !== undefined) normalized.windowId = windowId as number;

  return {
    filter: normalized,
    matches(request) {
      if (typeSet && !typeSet.has(request.type)) return false;
      if (tabId !== undefined && request.tabId !== tabId) return false;
      if (windowId !== undefined && request.windowId !== windowId) return false;
      return patterns.matches(request.url);
    },
  };
}
