// Where the 2D canvas library is (worker/canvas-kit.ts): resolved here, beside wrtui's own
// modules, because an extension worker runs from source text (`eval: true`) and would resolve a
// package against the user's working folder instead.
import { createRequire } from 'node:module';

let resolved: string | null | undefined;

/** The path of @napi-rs/canvas's entry, or null where it is not installed (a canvas then throws when used). */
export function canvasModulePath(): string | null {
  if (resolved === undefined) {
    try {
      resolved = createRequire(import.meta.url).resolve('@napi-rs/canvas');
    } catch {
      resolved = null;
    }
  }
  return resolved;
}
