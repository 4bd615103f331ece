// onBeforeRequest's requestBody (§6.2): formData for UTF-8 urlencoded or multipart POST bodies,
// raw bytes otherwise, `error` when the body could not be had (too large for the cap).

import type { WebRequestBody } from '../types.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface RequestBodyInput {
  method: string;
  contentType: string | undefined;
  /** The whole body, or undefined when there is none. */
  bytes: Uint8Array | undefined;
  /** Set when the body was larger than the proxy keeps: only `error` is reported, as Chrome does for huge uploads. */
  truncated?: boolean;
}

/** Builds the requestBody object; undefined when the request has no body (GET, empty POST). */
export function parseRequestBody({ method, contentType, bytes, truncated }: RequestBodyInput): WebRequestBody | undefined {
  if (truncated) return { error: 'Request body is larger than the size wrtui keeps (see --max-body-size).' };
  if (!bytes || bytes.length === 0) return undefined;
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (method.toUpperCase() === 'POST') {
    const formData =
      mediaType === 'application/x-www-form-urlencoded'
        ? parseUrlEncoded(bytes)
        : mediaType === 'multipart/form-data'
          ? parseMultipart(bytes, boundaryOf(contentType!))
          : undefined;
    if (formData) return { formData };
  }
  // A copy of exactly these bytes, so a listener holding on to it never sees the proxy reuse the
  // buffer. (Not `bytes.slice().buffer`: a Node Buffer's slice is a view, and a small Buffer's
  // .buffer is Node's shared pool, other requests' bytes included.)
  return { raw: [{ bytes: new Uint8Array(bytes).buffer }] };
}

function parseUrlEncoded(bytes: Uint8Array): Record<string, string[]> | undefined {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return undefined;
  }
  const form: Record<string, string[]> = {};
  for (const [key, value] of new URLSearchParams(text)) (form[key] ??= []).push(value);
  return form;
}

function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/**
 * The fields of a multipart/form-data body. A file field contributes its filename, as Chrome
 * reports it. Malformed data gives undefined, so the caller falls back to raw bytes.
 */
function parseMultipart(bytes: Uint8Array, boundary: string | undefined): Record<string, string[]> | undefined {
  if (!boundary) return undefined;
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const delimiter = Buffer.from(`--${boundary}`);
  const form: Record<string, string[]> = {};
  let position = body.indexOf(delimiter);
  if (position === -1) return undefined;
  for (;;) {
    position += delimiter.length;
    if (body.subarray(position, position + 2).toString('latin1') === '--') return form; // closing delimiter
    const headersStart = body.indexOf('\r\n', position) + 2;
    const headersEnd = body.indexOf('\r\n\r\n', headersStart);
    const next = body.indexOf(delimiter, headersEnd);
    if (headersStart < 2 || headersEnd === -1 || next === -1) return undefined;
    const partHeaders = body.subarray(headersStart, headersEnd).toString('utf8');
    const disposition = /content-disposition:\s*form-data([^\r\n]*)/i.exec(partHeaders)?.[1];
    const name = disposition && /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined || name === null || name === '') return undefined;
    const filename = disposition && /;\s*filename="([^"]*)"/i.exec(disposition)?.[1];
    // The part's content ends with the CRLF that precedes the next delimiter.
    const content = body.subarray(headersEnd + 4, next - 2);
    let value: string;
    if (filename !== undefined && filename !== null) value = filename;
    else {
      try {
        value = utf8.decode(content);
      } catch {
        return undefined;
      }
    }
    (form[name] ??= []).push(value);
    position = next;
  }
}
