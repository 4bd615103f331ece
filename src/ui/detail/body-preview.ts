// A body as lines for the detail pane: decoded (gzip, deflate, br), then pretty JSON, text, or a
// hex dump, always capped: a 50 MB response must not become 50 MB of React elements.
import { brotliDecompressSync, gunzipSync, inflateSync, inflateRawSync } from 'node:zlib';
import { imageInfo } from './image-info.js';
import { foldedJson } from './json-fold.js';
import { line, type StyledLine } from './styled-line.js';

export const MAX_PREVIEW_LINES = 500;
const SOURCE_TYPES = /^(text\/(html|xml|css|javascript)|application\/(javascript|ecmascript|xml|xhtml\+xml)|image\/svg\+xml)$|\+xml$/;
const MAX_DECODED_BYTES = 256 * 1024;
const HEX_DUMP_BYTES = 512;

export interface BodyPreviewInput {
  bytes: Uint8Array;
  contentType?: string | undefined;
  contentEncoding?: string | undefined;
  /** False when the bytes are not the whole body. */
  complete: boolean;
  /** Show long JSON arrays and strings whole (z in the detail pane). */
  unfold?: boolean;
}

export function bodyPreviewLines(input: BodyPreviewInput): StyledLine[] {
  const lines: StyledLine[] = [];
  let bytes = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
  const encoding = input.contentEncoding?.trim().toLowerCase();
  if (encoding && encoding !== 'identity' && bytes.length > 0) {
    const decoded = decode(bytes, encoding);
    if (decoded.ok) {
      lines.push(line({ text: `${encoding}: ${bytes.length} bytes on the wire, ${decoded.bytes.length}${decoded.bytes.length >= MAX_DECODED_BYTES ? '+' : ''} decoded`, dim: true }));
      bytes = decoded.bytes;
    } else lines.push(line({ text: `(${encoding} body could not be decoded${input.complete ? '' : ': the preview is cut'}; raw bytes below)`, color: 'yellow' }));
  }
  if (bytes.length === 0) return [...lines, line({ text: '(empty)', dim: true })];
  const image = imageInfo(bytes);
  const text = image ? undefined : asText(bytes);
  const type = input.contentType?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  if (image) {
    lines.push(line({ text: `${image.format} image, ${image.width}×${image.height}, ${bytes.length} bytes`, bold: true }));
    lines.push(...hexDump(bytes.subarray(0, 64)));
  } else if (text === undefined) {
    lines.push(line({ text: `binary, ${bytes.length} bytes; the first ${Math.min(bytes.length, HEX_DUMP_BYTES)}:`, dim: true }));
    lines.push(...hexDump(bytes.subarray(0, HEX_DUMP_BYTES)));
  } else if (type === 'application/x-www-form-urlencoded') {
    const fields = [...new URLSearchParams(text)];
    lines.push(line({ text: `form data, ${fields.length} field${fields.length === 1 ? '' : 's'}`, dim: true }));
    const room = MAX_PREVIEW_LINES - lines.length;
    for (const [name, value] of fields.slice(0, room)) lines.push(line({ text: name, color: 'cyan' }, ' = ', value));
    if (fields.length > room) lines.push(line({ text: `… ${fields.length - room} more lines`, dim: true }));
  } else if (looksLikeJson(input.contentType, text)) {
    const pretty = foldedJson(text, input.unfold ?? false);
    const { shown, total } = firstLines(pretty ?? text, MAX_PREVIEW_LINES - lines.length);
    for (const textLine of shown) lines.push(line(textLine));
    if (total > shown.length) lines.push(line({ text: `… ${total - shown.length} more lines`, dim: true }));
    if (pretty === undefined && !input.complete) lines.push(line({ text: '(JSON cut short: shown as text)', dim: true }));
  } else if (SOURCE_TYPES.test(type)) {
    // Markup, scripts and styles: with line numbers, to talk about line 412 of a bundle.
    const { shown, total } = firstLines(text, MAX_PREVIEW_LINES - lines.length);
    const width = String(total).length;
    for (const [index, textLine] of shown.entries()) lines.push(line({ text: `${String(index + 1).padStart(width)} │ `, dim: true }, textLine));
    if (total > shown.length) lines.push(line({ text: `… ${total - shown.length} more lines`, dim: true }));
  } else {
    const { shown, total } = firstLines(text, MAX_PREVIEW_LINES - lines.length);
    for (const textLine of shown) lines.push(line(textLine));
    if (total > shown.length) lines.push(line({ text: `… ${total - shown.length} more lines`, dim: true }));
  }
  if (!input.complete) lines.push(line({ text: '… (the body is longer than what wrtui kept)', dim: true }));
  return lines;
}

/**
 * The first `max` lines of `text` (split at \n or \r\n) and how many it has in all. Only those
 * lines are cut out: a 10 MB log has two million, and making each a string (then a styled line)
 * to show 500 of them froze the TUI for over a second.
 */
export function firstLines(text: string, max: number): { shown: string[]; total: number } {
  const shown: string[] = [];
  let start = 0;
  while (shown.length < max) {
    const end = text.indexOf('\n', start);
    if (end === -1) {
      shown.push(text.slice(start));
      return { shown, total: shown.length };
    }
    shown.push(text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end));
    start = end + 1;
  }
  let total = shown.length + 1; // the line that starts at `start`
  for (let at = text.indexOf('\n', start); at !== -1; at = text.indexOf('\n', at + 1)) total++;
  return { shown, total };
}

/**
 * A body as text for searching: decoded (gzip, deflate, br) up to `maxDecoded` bytes, or undefined
 * when it is binary or cannot be decoded.
 */
export function searchableText(bytes: Uint8Array, contentEncoding: string | undefined, maxDecoded: number): string | undefined {
  let buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const encoding = contentEncoding?.trim().toLowerCase();
  if (encoding && encoding !== 'identity' && buffer.length > 0) {
    const decoded = decode(buffer, encoding, maxDecoded);
    if (!decoded.ok) return undefined;
    buffer = decoded.bytes;
  }
  return asText(buffer);
}

function decode(bytes: Buffer, encoding: string, maxDecoded = MAX_DECODED_BYTES): { ok: true; bytes: Buffer } | { ok: false } {
  const options = { maxOutputLength: maxDecoded, finishFlush: 2 /* Z_SYNC_FLUSH: tolerate a cut stream */ };
  try {
    switch (encoding) {
      case 'gzip':
      case 'x-gzip':
        return { ok: true, bytes: gunzipSync(bytes, options) };
      case 'deflate':
        try {
          return { ok: true, bytes: inflateSync(bytes, options) };
        } catch {
          return { ok: true, bytes: inflateRawSync(bytes, options) };
        }
      case 'br':
        return { ok: true, bytes: brotliDecompressSync(bytes, { maxOutputLength: maxDecoded }) };
      default:
        return { ok: false };
    }
  } catch {
    return { ok: false };
  }
}

/** UTF-8 text, or undefined when the bytes look binary. */
function asText(bytes: Buffer): string | undefined {
  const sample = bytes.subarray(0, 4096);
  let control = 0;
  for (const byte of sample) if (byte === 0 || (byte < 0x09) || (byte > 0x0d && byte < 0x20 && byte !== 0x1b)) control++;
  if (control > sample.length / 100 + 1) return undefined;
  const text = bytes.toString('utf8');
  const replaced = (text.match(/\uFFFD/g) ?? []).length;
  return replaced > text.length / 50 + 2 ? undefined : text;
}

function looksLikeJson(contentType: string | undefined, text: string): boolean {
  if (contentType && /[/+]json\b/i.test(contentType)) return true;
  const start = text.trimStart()[0];
  return start === '{' || start === '[';
}


function hexDump(bytes: Buffer): StyledLine[] {
  const lines: StyledLine[] = [];
  for (let offset = 0; offset < bytes.length; offset += 16) {
    const chunk = bytes.subarray(offset, offset + 16);
    const hex = [...chunk].map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
    const ascii = [...chunk].map((byte) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '.')).join('');
    lines.push(line({ text: offset.toString(16).padStart(6, '0'), dim: true }, `  ${hex.padEnd(48)}  ${ascii}`));
  }
  return lines;
}
