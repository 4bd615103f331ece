// A request as a curl command that sends it again the way it went upstream: the method, the URL,
// the headers as sent (after rules changed them), and the body. Pure; the caller writes it to a
// file and to the clipboard.
import type { HttpHeaders, WebRequestBody } from '../../engine/types.js';
import { CONNECTION_REQUEST_HEADERS } from '../../engine/headers.js';

export interface CurlSource {
  method: string;
  url: string;
  /** As sent upstream; falls back to what listeners were shown. */
  headers: HttpHeaders | undefined;
  requestBody: WebRequestBody | undefined;
  /** The raw request body when the journal had it (more exact than requestBody). */
  bodyBytes: Uint8Array | undefined;
}

/** Headers curl sets itself or that describe the old connection, not the request. */
const SKIPPED_HEADERS = CONNECTION_REQUEST_HEADERS;

export function curlCommand(source: CurlSource): string {
  const parts = ['curl'];
  const body = bodyOf(source);
  const method = source.method.toUpperCase();
  // curl picks GET, or POST when given data; say the method only when it differs.
  if (!(method === 'GET' && !body) && !(method === 'POST' && body)) parts.push('-X', shellQuote(method));
  parts.push(shellQuote(source.url));
  let compressed = false;
  for (const header of source.headers ?? []) {
    const name = header.name.toLowerCase();
    if (SKIPPED_HEADERS.has(name) || name.startsWith(':')) continue;
    // A new multipart body gets a new boundary: the old Content-Type would not match it.
    if (name === 'content-type' && body?.kind === 'form') continue;
    const value = header.value ?? Buffer.from(header.binaryValue ?? []).toString('latin1');
    if (name === 'accept-encoding' && /\b(gzip|deflate|br|zstd)\b/.test(value)) {
      // curl sends its own Accept-Encoding with --compressed and then decodes what comes back.
      compressed = true;
      continue;
    }
    parts.push('-H', shellQuote(`${header.name}: ${value}`));
  }
  if (compressed) parts.push('--compressed');
  if (body?.kind === 'data') parts.push('--data-binary', shellQuote(body.text));
  if (body?.kind === 'form') for (const field of body.fields) parts.push('-F', shellQuote(field));
  return parts.join(' ');
}

type Body = { kind: 'data'; text: string } | { kind: 'form'; fields: string[] };

function bodyOf(source: CurlSource): Body | undefined {
  const bytes = source.bodyBytes ?? rawBytes(source.requestBody);
  if (bytes && bytes.length > 0) return { kind: 'data', text: Buffer.from(bytes).toString('latin1') };
  const formData = source.requestBody?.formData;
  if (!formData) return undefined;
  const contentType = (source.headers ?? []).find((header) => header.name.toLowerCase() === 'content-type')?.value ?? '';
  if (contentType.includes('multipart/form-data')) {
    // The boundary and file parts are gone from formData: let curl build a new multipart body.
    const fields: string[] = [];
    for (const [name, values] of Object.entries(formData)) for (const value of values) fields.push(`${name}=${value.replace(/^[@<]/, '\\$&')}`);
    return { kind: 'form', fields };
  }
  const params = new URLSearchParams();
  for (const [name, values] of Object.entries(formData)) for (const value of values) params.append(name, value);
  return { kind: 'data', text: params.toString() };
}

function rawBytes(body: WebRequestBody | undefined): Uint8Array | undefined {
  const chunks = (body?.raw ?? []).map((part) => (part.bytes ? new Uint8Array(part.bytes) : undefined)).filter((part) => part !== undefined);
  if (chunks.length === 0) return undefined;
  return Buffer.concat(chunks);
}

/**
 * Quotes a word for POSIX shells: '…' when it is printable, $'…' (bash, zsh) with \xHH escapes
 * when it holds control or non-ASCII bytes, so that a pasted command sends exactly those bytes.
 */
export function shellQuote(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  if (!/[^\x20-\x7e]/.test(word)) return `'${word.replace(/'/g, `'\\''`)}'`;
  let out = "$'";
  // Bodies come as one character per byte (latin1); other text (a header) is UTF-8.
  const bytes = /[^\x00-\xff]/.test(word) ? Buffer.from(word, 'utf8') : Buffer.from(word, 'latin1');
  for (const byte of bytes) {
    if (byte === 0x27) out += "\\'";
    else if (byte === 0x5c) out += '\\\\';
    else if (byte >= 0x20 && byte <= 0x7e) out += String.fromCharCode(byte);
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `${out}'`;
}
