// What an image body is, read from its first bytes: the format and its dimensions (PNG, GIF,
// JPEG, WebP). A terminal cannot show the picture; the type, size and bytes are what one checks.

export interface ImageInfo {
  format: 'PNG' | 'GIF' | 'JPEG' | 'WebP';
  width: number;
  height: number;
}

export function imageInfo(bytes: Uint8Array): ImageInfo | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.length >= 24 && view.readUInt32BE(0) === 0x89504e47 && view.toString('latin1', 12, 16) === 'IHDR') {
    return { format: 'PNG', width: view.readUInt32BE(16), height: view.readUInt32BE(20) };
  }
  if (view.length >= 10 && view.toString('latin1', 0, 4) === 'GIF8') return { format: 'GIF', width: view.readUInt16LE(6), height: view.readUInt16LE(8) };
  if (view.length >= 4 && view[0] === 0xff && view[1] === 0xd8) return jpeg(view);
  if (view.length >= 30 && view.toString('latin1', 0, 4) === 'RIFF' && view.toString('latin1', 8, 12) === 'WEBP') return webp(view);
  return undefined;
}

/** The first start-of-frame segment holds the dimensions. */
function jpeg(view: Buffer): ImageInfo | undefined {
  let offset = 2;
  while (offset + 9 < view.length) {
    if (view[offset] !== 0xff) return undefined;
    const marker = view[offset + 1]!;
    const length = view.readUInt16BE(offset + 2);
    const startOfFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (startOfFrame) return { format: 'JPEG', height: view.readUInt16BE(offset + 5), width: view.readUInt16BE(offset + 7) };
    offset += 2 + length;
  }
  return undefined;
}

function webp(view: Buffer): ImageInfo | undefined {
  const chunk = view.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { format: 'WebP', width: 1 + view.readUIntLE(24, 3), height: 1 + view.readUIntLE(27, 3) };
  if (chunk === 'VP8 ') return { format: 'WebP', width: view.readUInt16LE(26) & 0x3fff, height: view.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = view.readUInt32LE(21);
    return { format: 'WebP', width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  return undefined;
}
