// A body as lines for the detail pane: decoded (gzip, deflate, br), then pretty JSON, text, or a
// hex dump, always capped: a 50 MB response must not become 50 MB of React elements.
import { brotliDecompressSync, gunzipSync, inflateSync, inflateRawSync } from 'node:zlib';
import { imageInfo } from './image-info.js';
import { foldedJson } from './json-fold.js';
import { dispositionParam, multipartBoundary, parseMultipart } from './multipart.js';
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
  const boundary = multipartBoundary(input.contentType);
  const parts = boundary === undefined ? undefined : multipartLines(bytes, boundary, input);
  if (parts) return capCharacters([...lines, ...parts], MAX_PREVIEW_CHARS);
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
  return capCharacters(lines, MAX_PREVIEW_CHARS);
}

/**
 * Characters a preview shows in all. 500 lines are few, but one line may be a whole minified
 * bundle: 16 MiB on one line wrapped to ~115,000 rows of the pane.
 */
const MAX_PREVIEW_CHARS = 256 * 1024;

/** `lines` up to `max` characters, the line that passes it cut, and a line saying how much more there is. */
export function capCharacters(lines: StyledLine[], max: number): StyledLine[] {
  let used = 0;
  for (const [index, styled] of lines.entries()) {
    const length = styled.reduce((sum, segment) => sum + segment.text.length, 0);
    if (used + length <= max) {
      used += length;
      continue;
    }
    const cut: StyledLine = [];
    let room = max - used;
    for (const segment of styled) {
      if (room <= 0) break;
      cut.push(segment.text.length <= room ? segment : { ...segment, text: segment.text.slice(0, room) });
      room -= segment.text.length;
    }
    const rest = lines.slice(index).reduce((sum, other) => sum + other.reduce((count, segment) => count + segment.text.length, 0), 0) - (max - used);
    return [...lines.slice(0, index), cut, line({ text: `… ${rest} more characters not shown here (/ searches the whole body)`, dim: true })];
  }
  return lines;
}

/** Parts shown of a multipart body, and lines shown of each. */
const MAX_PARTS = 50;
const PART_LINES = 12;

/**
 * A multipart body (a form upload, multipart/mixed) part by part: its name, file name, type and
 * size, then the start of its content as its own type shows it. Undefined when no part is found
 * (not multipart after all: shown as any other body).
 */
function multipartLines(bytes: Buffer, boundary: string, input: BodyPreviewInput): StyledLine[] | undefined {
  const parsed = parseMultipart(bytes, boundary, MAX_PARTS);
  if (parsed.parts.length === 0) return undefined;
  const type = input.contentType?.split(';', 1)[0]?.trim().toLowerCase() ?? 'multipart';
  const count = parsed.parts.length + parsed.more;
  const lines: StyledLine[] = [line({ text: `${type}, ${count} part${count === 1 ? '' : 's'}${parsed.complete || !input.complete ? '' : ', no closing boundary'}`, dim: true })];
  for (const [index, part] of parsed.parts.entries()) {
    const header = (name: string) => part.headers.find(([key]) => key === name)?.[1];
    const disposition = header('content-disposition');
    const name = dispositionParam(disposition, 'name');
    const filename = dispositionParam(disposition, 'filename');
    const partType = header('content-type');
    lines.push(
      line(
        { text: `part ${index + 1}`, bold: true },
        name !== undefined && '  name=',
        name !== undefined && { text: JSON.stringify(name), color: 'cyan' },
        filename !== undefined && `  filename=${JSON.stringify(filename)}`,
        partType !== undefined && { text: `  ${partType}`, dim: true },
        { text: `  ${part.body.length} bytes${part.complete ? '' : ' (cut)'}`, dim: true },
      ),
    );
    // A part cut short says so in its own line above; the body's cut is said once, at the end.
    const content = bodyPreviewLines({ bytes: part.body, contentType: partType, contentEncoding: header('content-encoding'), complete: true, unfold: input.unfold ?? false });
    for (const contentLine of content.slice(0, PART_LINES)) lines.push([{ text: '   ' }, ...contentLine]);
    if (content.length > PART_LINES) lines.push(line({ text: '   … the rest of this part', dim: true }));
  }
  if (parsed.more > 0) lines.push(line({ text: `… ${parsed.more} more parts`, dim: true }));
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
