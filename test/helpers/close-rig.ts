// The teardown of the tests that load extensions through a real proxy: the host (its workers)
// first, then the proxy, then the origin, then the temporary folder they worked in.
import { rm } from 'node:fs/promises';

interface Closable {
  close(): Promise<unknown>;
}

export async function closeRig(rig: { host?: Closable | undefined; harness?: Closable | undefined; origin?: Closable | undefined; folder?: string | undefined }): Promise<void> {
  await rig.host?.close();
  await rig.harness?.close();
  await rig.origin?.close();
  if (rig.folder) await rm(rig.folder, { recursive: true, force: true });
}
