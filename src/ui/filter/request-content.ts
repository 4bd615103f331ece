// What `header:` and `body:` filters look at: a request's headers (as sent, and the response's)
// and its bodies (a StreamFilter's rewrite too) as text, decoded once and remembered (a filter runs on every record it shows).
import type { HttpHeaders } from '../../engine/types.js';
import { searchableText } from '../detail/body-preview.js';
import { bodyEncoding } from '../store/request-record.js';

/** Bodies are searched up to this many decoded bytes (a gzip body can inflate a hundredfold). */
const MAX_SEARCHED_BYTES = 16 * 1024 * 1024;

export interface RequestContent {
  sentHeaders?: HttpHeaders | undefined;
  requestHeaders?: HttpHeaders | undefined;
  responseHeaders?: HttpHeaders | undefined;
  requestBytes?: { bytes: Uint8Array; decoded?: boolean } | undefined;
  responseBytes?: { bytes: Uint8Array; decoded?: boolean } | undefined;
  /** The response as the client got it, when StreamFilters rewrote it. */
  deliveredBytes?: { bytes: Uint8Array; decoded?: boolean } | undefined;
}

const texts = new WeakMap<Uint8Array, string | null>();

/** Lower-cased text of the request's and the response's bodies (what is known of them). */
export function bodyTexts(request: RequestContent): string[] {
  const out: string[] = [];
  const add = (body: { bytes: Uint8Array; decoded?: boolean } | undefined, headers: HttpHeaders | undefined) => {
    const bytes = body?.bytes;
    if (!bytes || bytes.length === 0) return;
    let text = texts.get(bytes);
    if (text === undefined) {
      text = searchableText(bytes, bodyEncoding(body, headers), MAX_SEARCHED_BYTES)?.toLowerCase() ?? null;
      texts.set(bytes, text);
    }
    if (text !== null) out.push(text);
  };
  add(request.requestBytes, request.sentHeaders ?? request.requestHeaders);
  add(request.responseBytes, request.responseHeaders);
  add(request.deliveredBytes, request.responseHeaders);
  return out;
}

/** Every header of the request (as sent) and of the response. */
export function allHeaders(request: RequestContent): HttpHeaders {
  return [...(request.sentHeaders ?? request.requestHeaders ?? []), ...(request.responseHeaders ?? [])];
}
