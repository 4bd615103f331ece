// The recorder's file (append-only-file.ts): a slow disk sync never holds back later writes, so a
// kill -9 on a loaded machine loses at most the last flush interval's lines.
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { AppendOnlyFile } from '../../src/engine/session/append-only-file.js';

let restore: (() => void) | undefined;
let work: string | undefined;
afterEach(async () => {
  restore?.();
  restore = undefined;
  if (work) await rm(work, { recursive: true, force: true });
});

it('lines reach the file while an fdatasync has not returned (the sync is beside the writes, not before them)', async () => {
  work = await mkdtemp(join(tmpdir(), 'wrtui-append-'));
  // Every FileHandle's datasync hangs until released: a disk that takes its time under load.
  const probe = await open(join(work, 'probe'), 'w');
  const prototype = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
  await probe.close();
  const original = prototype.datasync;
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let syncs = 0;
  prototype.datasync = async function (this: unknown) {
    syncs++;
    await released;
    return original.call(this);
  };
  restore = () => {
    release();
    prototype.datasync = original;
  };

  const path = join(work, 'session.ndjson');
  const file = await AppendOnlyFile.create(path, { flushIntervalMs: 10, syncIntervalMs: 10 });
  file.appendLine('{"n":1}');
  await expect.poll(() => syncs, { timeout: 5_000 }).toBeGreaterThan(0);
  // A sync is now in progress and does not return; later lines must still reach the file.
  file.appendLine('{"n":2}');
  file.appendLine('{"n":3}');
  await expect.poll(() => readFile(path, 'utf8'), { timeout: 5_000 }).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
  release();
  await file.close();
});
