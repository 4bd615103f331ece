// A gzipped HAR cannot be read at an offset, so its large bodies could not be read again from it
// when used (har-import.ts) and were all held. Instead, its decompressed text is written as it is
// read to a private temporary file (private-temp-file.ts), and bodies are read again from there.
import { closeSync, write } from 'node:fs';
import { promisify } from 'node:util';
import { openPrivateTempFile } from '../private-temp-file.js';

const writeAt = promisify(write);

export class HarSpill {
  /** Open for reading and writing while wrtui runs (never closed: the session reads bodies from it). */
  readonly fd: number;
  #written = 0;

  private constructor(fd: number) {
    this.fd = fd;
  }

  static async create(): Promise<HarSpill> {
    return new HarSpill(await openPrivateTempFile('wrtui-har-', 'decompressed.har'));
  }

  /** The chunks as they come, each written to the copy first. */
  async *through(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    for await (const chunk of chunks) {
      await writeAt(this.fd, chunk, 0, chunk.length, this.#written);
      this.#written += chunk.length;
      yield chunk;
    }
  }

  /** The HAR could not be read: the copy goes now. */
  discard(): void {
    closeSync(this.fd);
  }
}
