// A gzipped HAR cannot be read at an offset, so its large bodies could not be read again from it
// when used (har-import.ts) and were all held. Instead, its decompressed text is written as it is
// read to a private file (0600, in a 0700 folder of its own under the system's temporary folder),
// and bodies are read again from there. The folder goes when wrtui exits.
import { rmSync } from 'node:fs';
import { mkdtemp, open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Every folder made this run: removed on exit, whatever ended wrtui short of a kill. */
const folders = new Set<string>();
let removedOnExit = false;

export function removeHarSpills(): void {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  folders.clear();
}

export class HarSpill {
  readonly file: string;
  readonly #handle: FileHandle;

  private constructor(file: string, handle: FileHandle) {
    this.file = file;
    this.#handle = handle;
  }

  static async create(): Promise<HarSpill> {
    const folder = await mkdtemp(join(tmpdir(), 'wrtui-har-')); // mkdtemp makes it 0700
    if (!removedOnExit) process.once('exit', removeHarSpills);
    removedOnExit = true;
    folders.add(folder);
    const file = join(folder, 'decompressed.har');
    return new HarSpill(file, await open(file, 'wx', 0o600));
  }

  /** The chunks as they come, each written to the file first. */
  async *through(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    for await (const chunk of chunks) {
      await this.#handle.write(chunk);
      yield chunk;
    }
  }

  /** Closes the file; resolves with its size and modification time (a later change is refused). */
  async close(): Promise<{ size: number; mtimeMs: number }> {
    const { size, mtimeMs } = await this.#handle.stat();
    await this.#handle.close();
    return { size, mtimeMs };
  }

  /** Closes and removes it (the HAR could not be read). */
  async discard(): Promise<void> {
    await this.#handle.close().catch(() => undefined);
    const folder = join(this.file, '..');
    rmSync(folder, { recursive: true, force: true });
    folders.delete(folder);
  }
}
