// What `header:` and `body:` filters look at: a request's headers (as sent, and the response's)
// and its bodies as text, decoded once and remembered (a filter runs on every record it shows).
import type { HttpHeaders } from '../../engine/types.js';
import { searchableText } from '../detail/body-preview.js';
import { headerValue } from '../store/request-record.js';

/** Bodies are searched up to this many decoded bytes (a gzip body can inflate a hundredfold). */
const MAX_SEARCHED_BYTES = 16 * 1024 * 1024;

export interface RequestContent {
  sentHeaders?: HttpHeaders | undefined;
  requestHeaders?: HttpHeaders | undefined;
  responseHeaders?: HttpHeaders | undefined;
  requestBytes?: { bytes: Uint8Array } | undefined;
  responseBytes?: { bytes: Uint8Array } | undefined;
}

const texts = new WeakMap<Uint8Array, string | null>();

/** Lower-cased text of the request's and the response's bodies (what is known of them). */
export function bodyTexts(request: RequestContent): string[] {
  const out: string[] = [];
  const add = (bytes: Uint8Array | undefined, headers: HttpHeaders | undefined) => {
    if (!bytes || bytes.length === 0) return;
    let text = texts.get(bytes);
    if (text === undefined) {
      text = searchableText(bytes, headerValue(headers, 'content-encoding'), MAX_SEARCHED_BYTES)?.toLowerCase() ?? null;
      texts.set(bytes, text);
    }
    if (text !== null) out.push(text);
  };
  add(request.requestBytes?.bytes, request.sentHeaders ?? request.requestHeaders);
  add(request.responseBytes?.bytes, request.responseHeaders);
  return out;
}

/** Every header of the request (as sent) and of the response. */
export function allHeaders(request: RequestContent): HttpHeaders {
  return [...(request.sentHeaders ?? request.requestHeaders ?? []), ...(request.responseHeaders ?? [])];
}
