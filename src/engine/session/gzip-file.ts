// Recordings may be gzip-compressed (a file named *.gz): the recorder writes each flush as its own
// gzip member, so whatever reached the disk decodes up to the last whole member after a crash, and
// readers gunzip as they stream (several members decode as one stream). Compression runs on
// libuv's thread pool, off the proxy thread.
import { open } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';

/** Whether `bytes` start with gzip's magic bytes. */
export function isGzipBytes(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

export const gzipMember = promisify(gzip);
export const gunzipAll = promisify(gunzip);

/** Whether a recording should be written compressed: by its name, as gzip and zcat would decide. */
export function wantsGzip(file: string): boolean {
  return file.endsWith('.gz');
}

/** Whether the file starts with gzip's magic bytes. */
export async function isGzipFile(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return isGzipBytes(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** zlib's words for a stream that stops inside a member: the recording was cut off mid-write. */
export function isTruncatedGzip(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'Z_BUF_ERROR';
}
