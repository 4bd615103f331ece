// What a redirect to a URL webRequest never sees is answered with, when wrtui answers it itself:
// a data: URL's content (RFC 2397, decoded as the Fetch standard's "data: URL processor" does) or
// about:blank's empty document. Nothing here touches the network: wrtui makes no request of its
// own, so any other URL has no content here.

export interface LocalContent {
  /** The Content-Type to answer with. */
  mediaType: string;
  body: Uint8Array;
}

/** RFC 2397's default media type, also the one a type that does not parse becomes. */
const DEFAULT_MEDIA_TYPE = 'text/plain;charset=US-ASCII';

/** The content of a data: URL or about:blank; undefined for anything else, or a data: URL that does not decode. */
export function localContent(url: string): LocalContent | undefined {
  if (url === 'about:blank') return { mediaType: 'text/html;charset=utf-8', body: new Uint8Array() };
  return decodeDataUrl(url);
}

/** A data: URL's media type and bytes (base64 or percent-encoded); undefined when it is not one or does not decode. */
export function decodeDataUrl(url: string): LocalContent | undefined {
  let href: string;
  try {
    href = new URL(url).href;
  } catch {
    return undefined;
  }
  if (!href.startsWith('data:')) return undefined;
  // The fragment is not part of the data (the first '#' of a serialized URL starts it).
  const hash = href.indexOf('#');
  const input = href.slice('data:'.length, hash === -1 ? undefined : hash);
  const comma = input.indexOf(',');
  if (comma === -1) return undefined;
  let mediaType = trimAsciiWhitespace(input.slice(0, comma));
  let body = percentDecode(input.slice(comma + 1));
  const base64 = /;[ ]*base64$/i.exec(mediaType);
  if (base64) {
    const decoded = forgivingBase64(Buffer.from(body).toString('latin1'));
    if (!decoded) return undefined;
    body = decoded;
    mediaType = mediaType.slice(0, base64.index);
  }
  if (mediaType.startsWith(';')) mediaType = `text/plain${mediaType}`;
  return { mediaType: normalizeMediaType(mediaType) ?? DEFAULT_MEDIA_TYPE, body };
}

function trimAsciiWhitespace(text: string): string {
  return text.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '');
}

/** %XX sequences become their byte; anything else is its UTF-8 bytes (a lone % stays). */
function percentDecode(text: string): Uint8Array {
  const bytes = Buffer.from(text, 'utf8');
  const out = Buffer.alloc(bytes.length);
  let length = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === 0x25 && i + 2 < bytes.length && isHexDigit(bytes[i + 1]!) && isHexDigit(bytes[i + 2]!)) {
      out[length++] = parseInt(String.fromCharCode(bytes[i + 1]!, bytes[i + 2]!), 16);
      i += 2;
    } else out[length++] = byte;
  }
  return new Uint8Array(out.buffer, out.byteOffset, length);
}

function isHexDigit(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

/** The Infra standard's forgiving-base64 decode: whitespace ignored, padding optional, anything else invalid. */
function forgivingBase64(text: string): Uint8Array | undefined {
  let data = text.replace(/[\t\n\f\r ]+/g, '');
  if (data.length % 4 === 0) data = data.replace(/={1,2}$/, '');
  if (data.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/.test(data)) return undefined;
  return new Uint8Array(Buffer.from(data, 'base64'));
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * A media type as the MIME Sniffing standard parses and serializes it: type and subtype lowercased,
 * parameter names lowercased, the first of a repeated name kept, invalid parameters dropped, values
 * quoted only when they must be. Undefined when there is no valid type/subtype.
 */
function normalizeMediaType(text: string): string | undefined {
  const trimmed = text.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  const slash = trimmed.indexOf('/');
  if (slash === -1) return undefined;
  const type = trimmed.slice(0, slash);
  const semicolon = trimmed.indexOf(';', slash);
  const subtype = trimmed.slice(slash + 1, semicolon === -1 ? undefined : semicolon).replace(/[\t\n\r ]+$/, '');
  if (!TOKEN.test(type) || !TOKEN.test(subtype)) return undefined;
  let serialized = `${type.toLowerCase()}/${subtype.toLowerCase()}`;
  const seen = new Set<string>();
  let rest = semicolon === -1 ? '' : trimmed.slice(semicolon + 1);
  while (rest.length > 0) {
    rest = rest.replace(/^[\t\n\r ]+/, '');
    const end = rest.search(/[;=]/);
    const name = (end === -1 ? rest : rest.slice(0, end)).toLowerCase();
    if (end === -1) break;
    if (rest[end] === ';') {
      rest = rest.slice(end + 1);
      continue;
    }
    rest = rest.slice(end + 1);
    let value: string;
    if (rest.startsWith('"')) {
      // A quoted string: backslash escapes the next character; whatever follows the closing quote up to ';' is dropped.
      let i = 1;
      value = '';
      while (i < rest.length && rest[i] !== '"') {
        if (rest[i] === '\\' && i + 1 < rest.length) i++;
        value += rest[i];
        i++;
      }
      const next = rest.indexOf(';', i);
      rest = next === -1 ? '' : rest.slice(next + 1);
    } else {
      const next = rest.indexOf(';');
      value = (next === -1 ? rest : rest.slice(0, next)).replace(/[\t\n\r ]+$/, '');
      rest = next === -1 ? '' : rest.slice(next + 1);
      if (value === '') continue;
    }
    if (name === '' || !TOKEN.test(name) || seen.has(name) || !/^[\t\x20-\x7e\x80-\xff]*$/.test(value)) continue;
    seen.add(name);
    serialized += `;${name}=${value !== '' && TOKEN.test(value) ? value : `"${value.replace(/["\\]/g, '\\$&')}"`}`;
  }
  return serialized;
}
