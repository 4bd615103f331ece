// Recordings may be gzip-compressed (a file named *.gz): the recorder writes each flush as its own
// gzip member, so whatever reached the disk decodes up to the last whole member after a crash, and
// readers gunzip as they stream (several members decode as one stream). Compression runs on
// libuv's thread pool, off the proxy thread.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { promisify } from 'node:util';
import { createGunzip, gzip } from 'node:zlib';

/** Whether `bytes` start with gzip's magic bytes. */
function isGzipBytes(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

export const gzipMember = promisify(gzip);

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

export interface FileChunksOptions {
  gzipped: boolean;
  /** Told the file's own bytes as they are read (compressed bytes for a gzip file): progress. */
  onRead?: (bytes: number) => void;
  /** A gzip file stops inside its last member (cut off mid-write): what came before was given. */
  onCutOff?: () => void;
}

/**
 * A file's contents as they stream, gunzipped when `gzipped`. Leaving the loop early closes the
 * file. A gzip file cut off mid-member ends the stream there (onCutOff) rather than failing.
 */
export async function* fileChunks(file: string, options: FileChunksOptions): AsyncGenerator<Buffer> {
  const fileStream = createReadStream(file, { highWaterMark: 1024 * 1024 });
  try {
    if (!options.gzipped) {
      for await (const chunk of fileStream as AsyncIterable<Buffer>) {
        options.onRead?.(chunk.length);
        yield chunk;
      }
      return;
    }
    const gunzipStream = createGunzip();
    fileStream.on('data', (chunk: string | Buffer) => options.onRead?.(chunk.length));
    fileStream.on('error', (error) => gunzipStream.destroy(error));
    try {
      for await (const chunk of fileStream.pipe(gunzipStream) as AsyncIterable<Buffer>) yield chunk;
    } catch (error) {
      if (!isTruncatedGzip(error)) throw error;
      options.onCutOff?.();
    } finally {
      gunzipStream.destroy();
    }
  } finally {
    fileStream.destroy();
  }
}
