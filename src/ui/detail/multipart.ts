// A multipart body (RFC 2046 §5.1; form uploads are RFC 7578) split into its parts, each with its
// headers and bytes, so the detail pane can show a form's fields and files rather than a hex dump.
// Pure: bytes in, parts out. A body cut short (--max-body-size) gives the parts read so far.

export interface MultipartPart {
  /** The part's headers, names lower-cased, in order. */
  headers: [string, string][];
  body: Buffer;
  /** False for the last part of a body cut short: its bytes are only its beginning. */
  complete: boolean;
}

export interface Multipart {
  parts: MultipartPart[];
  /** The closing delimiter was found. */
  complete: boolean;
}

/** The boundary a multipart Content-Type names, or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^\s*multipart\//i.test(contentType)) return undefined;
  const match = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  return boundary && boundary.length <= 200 ? boundary : undefined;
}

/** The parts of `bytes` delimited by `boundary` (at most `maxParts`; the rest are counted). */
export function parseMultipart(bytes: Buffer, boundary: string, maxParts = 100): Multipart & { more: number } {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: MultipartPart[] = [];
  let at = bytes.indexOf(delimiter);
  let more = 0;
  while (at !== -1) {
    let start = at + delimiter.length;
    if (bytes[start] === 0x2d && bytes[start + 1] === 0x2d) return { parts, complete: true, more }; // "--": the close
    // The rest of the delimiter line (transport padding), then CRLF.
    const lineEnd = bytes.indexOf('\r\n', start);
    if (lineEnd === -1) break;
    start = lineEnd + 2;
    const next = bytes.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), start);
    const end = next === -1 ? bytes.length : next;
    if (parts.length >= maxParts) more++;
    else parts.push(partOf(bytes.subarray(start, end), next !== -1));
    at = next === -1 ? -1 : next + 2;
  }
  return { parts, complete: false, more };
}

function partOf(raw: Buffer, complete: boolean): MultipartPart {
  const headEnd = raw.indexOf('\r\n\r\n');
  // A part with no headers starts with the blank line itself.
  const [head, body] = raw.subarray(0, 2).toString() === '\r\n' ? ['', raw.subarray(2)] : headEnd === -1 ? [raw.toString('latin1'), Buffer.alloc(0)] : [raw.subarray(0, headEnd).toString('utf8'), raw.subarray(headEnd + 4)];
  const headers: [string, string][] = [];
  for (const headerLine of head.split('\r\n')) {
    const colon = headerLine.indexOf(':');
    if (colon > 0) headers.push([headerLine.slice(0, colon).trim().toLowerCase(), headerLine.slice(colon + 1).trim()]);
  }
  return { headers, body, complete: complete && headEnd !== -1 };
}

/** A Content-Disposition parameter (name, filename), unquoted. */
export function dispositionParam(disposition: string | undefined, param: string): string | undefined {
  if (!disposition) return undefined;
  const match = new RegExp(`;\\s*${param}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(disposition);
  const value = match?.[1] ?? match?.[2];
  return value?.replace(/\\(.)/g, '$1');
}
