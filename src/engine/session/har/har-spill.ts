// A gzipped HAR cannot be read at an offset, so its large bodies could not be read again from it
// when used (har-import.ts) and were all held. Instead, its decompressed text is written as it is
// read to a private file, and bodies are read again from there. The file is created 0600 in a
// 0700 folder of its own under the system's temporary folder and removed by name at once, kept
// open: nothing is left on disk however wrtui ends (even kill -9), and no other process can open
// it. Where an open file cannot be removed (Windows), it goes when wrtui exits.
import { closeSync, openSync, rmSync, unlinkSync, write } from 'node:fs';
import { mkdtemp, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const writeAt = promisify(write);

/** Copies that could not be removed while open: removed on exit. */
const leftForExit = new Set<string>();
let removedOnExit = false;

export class HarSpill {
  /** Open for reading and writing while wrtui runs (never closed: the session reads bodies from it). */
  readonly fd: number;
  #written = 0;

  private constructor(fd: number) {
    this.fd = fd;
  }

  static async create(): Promise<HarSpill> {
    const folder = await mkdtemp(join(tmpdir(), 'wrtui-har-')); // mkdtemp makes it 0700
    const file = join(folder, 'decompressed.har');
    const fd = openSync(file, 'wx+', 0o600);
    try {
      unlinkSync(file);
      await rmdir(folder);
    } catch {
      if (!removedOnExit) process.once('exit', () => leftForExit.forEach((left) => rmSync(left, { recursive: true, force: true })));
      removedOnExit = true;
      leftForExit.add(folder);
    }
    return new HarSpill(fd);
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
