// The id Chrome gives an extension (runtime.id, chrome-extension://<id>/): the first 128 bits of
// the SHA-256 of its public key, written with the letters a–p for the hex digits 0–f. An unpacked
// extension without a `key` in its manifest gets the same digest of its folder's absolute path,
// so the id is stable for a folder and a `key` pins it anywhere (FACTS.md uses that to give the
// oracle Chromium a known id).
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import path from 'node:path';

export function extensionIdFromKey(base64Key: string): string {
  return idOfBytes(Buffer.from(base64Key.replace(/\s+/g, ''), 'base64'));
}

/** Chrome's GenerateIdForPath: the absolute path with symbolic links resolved. */
export function extensionIdFromPath(folder: string): string {
  let absolute = path.resolve(folder);
  try {
    absolute = realpathSync(absolute);
  } catch {
    // A folder that is gone keeps the id of its path.
  }
  return idOfBytes(Buffer.from(absolute, 'utf8'));
}

function idOfBytes(bytes: Buffer): string {
  const hex = createHash('sha256').update(bytes).digest('hex').slice(0, 32);
  return hex.replace(/[0-9a-f]/g, (digit) => String.fromCharCode('a'.charCodeAt(0) + Number.parseInt(digit, 16)));
}
