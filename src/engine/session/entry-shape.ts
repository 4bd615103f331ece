// What a session line must hold for replay to use it. A recording may have been edited by hand,
// cut or written by something else: a line whose entry lacks what replay reads (a webRequest
// without details.requestId, headers that are not a list) is refused, naming the field, so that
// the reader can name the line instead of replay failing somewhere inside with a TypeError.
// Kinds replay does not read pass as they are.

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Absent, or a list of headers with names (replay reads and sorts them). */
const isHeaderList = (value: unknown): boolean => value === undefined || (Array.isArray(value) && value.every((header) => isObject(header) && typeof header.name === 'string'));

/** Undefined when `entry` can be replayed from; else what is wrong with it. */
export function entryProblem(entry: Json): string | undefined {
  switch (entry.kind) {
    case 'webRequest':
      return webRequestProblem(entry);
    case 'body':
      if (typeof entry.requestId !== 'string') return 'a body entry without a string requestId';
      if (entry.direction !== 'request' && entry.direction !== 'response') return 'a body entry whose direction is neither "request" nor "response"';
      if (entry.bytes !== undefined && !(entry.bytes instanceof Uint8Array)) return 'a body entry whose bytes are not {"base64": …}';
      return undefined;
    case 'cookieChanged': {
      const change = entry.changeInfo;
      if (!isObject(change) || !isObject(change.cookie)) return 'a cookieChanged entry without changeInfo.cookie';
      const cookie = change.cookie;
      for (const field of ['name', 'domain', 'path', 'storeId'] as const) if (typeof cookie[field] !== 'string') return `a cookieChanged entry whose cookie has no string ${field}`;
      return undefined;
    }
    default:
      return undefined;
  }
}

function webRequestProblem(entry: Json): string | undefined {
  if (typeof entry.event !== 'string') return 'a webRequest entry without a string event';
  if (!Array.isArray(entry.outcomes)) return 'a webRequest entry whose outcomes are not a list';
  const details = entry.details;
  if (!isObject(details)) return 'a webRequest entry without details';
  for (const field of ['requestId', 'url', 'method', 'type'] as const) if (typeof details[field] !== 'string') return `a webRequest entry without a string details.${field}`;
  for (const field of ['tabId', 'frameId', 'parentFrameId'] as const) if (typeof details[field] !== 'number') return `a webRequest entry without a number details.${field}`;
  for (const field of ['requestHeaders', 'responseHeaders'] as const) if (!isHeaderList(details[field])) return `a webRequest entry whose details.${field} is not a list of headers`;
  for (const outcome of entry.outcomes) {
    if (!isObject(outcome)) return 'a webRequest entry with an outcome that is not an object';
    const response = outcome.response;
    if (response !== undefined && response !== null && !isObject(response)) return 'a webRequest entry with an outcome whose response is not an object';
    for (const field of ['requestHeaders', 'responseHeaders'] as const) if (isObject(response) && !isHeaderList(response[field])) return `a webRequest entry with an outcome whose ${field} is not a list of headers`;
  }
  return undefined;
}
