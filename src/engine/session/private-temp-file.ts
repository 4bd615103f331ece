// A temporary file only this process can reach, for what a replay keeps on disk rather than in
// memory (a gzipped HAR's decompressed text, a HAR's replay without rules). Created 0600 in a 0700
// folder of its own under the system's temporary folder, and removed by name at once, kept open:
// nothing is left on disk however wrtui ends (even kill -9), and no other process can open it.
// Where an open file cannot be removed (Windows), it goes when wrtui exits.
import { openSync, rmSync, unlinkSync } from 'node:fs';
import { mkdtemp, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Folders that could not be removed while their file was open: removed on exit. */
const leftForExit = new Set<string>();
let removedOnExit = false;

/** Opens a new private file for reading and writing; its descriptor is all there is of it. */
export async function openPrivateTempFile(prefix: string, name: string): Promise<number> {
  const folder = await mkdtemp(join(tmpdir(), prefix)); // mkdtemp makes it 0700
  const file = join(folder, name);
  const fd = openSync(file, 'wx+', 0o600);
  try {
    unlinkSync(file);
    await rmdir(folder);
  } catch {
    if (!removedOnExit) process.once('exit', () => leftForExit.forEach((left) => rmSync(left, { recursive: true, force: true })));
    removedOnExit = true;
    leftForExit.add(folder);
  }
  return fd;
}
