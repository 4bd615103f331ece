// Imports a built rule. Each build is written to its own temporary file with its source map
// beside it, imported, and both are deleted at once: Node keeps the evaluated module and reads the
// map while loading it (source maps are on, see rule-host.ts). ES modules are never evicted, so
// every reload keeps its module in memory; bench/reload.ts measures how much. Measured on Node 20:
//   - a temp file costs ~2.4 ms per import of a 14 KB module, a base64 data: URL ~20 ms and ~60 %
//     more memory (the URL, i.e. the whole source again, is the module's key forever), and a data:
//     URL would appear, source and all, in every unmapped stack frame;
//   - the map as a file next to the module instead of inline keeps ~2 KB less per reload of a
//     small rule (8 KB instead of 10 KB of heap): an inline map stays in the module's source text.
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export class RuleModuleLoader {
  #dir: Promise<string> | undefined;
  #builds = 0;
  readonly #parent: string;

  /** `parent`: where the temporary folder is made (the OS's temp folder by default). */
  constructor(parent: string = tmpdir()) {
    this.#parent = parent;
  }

  /** A fresh path for the next build of `ruleFile`; the bundler computes its source map against it. */
  async nextOutFile(ruleFile: string): Promise<string> {
    this.#dir ??= mkdtemp(path.join(this.#parent, 'wrtui-rules-'));
    const base = path.basename(ruleFile).replace(/\.[^.]+$/, '').replace(/[^\w.-]/g, '_');
    return path.join(await this.#dir, `${base}.${++this.#builds}.mjs`);
  }

  /** Writes the module to `outFile` (its map beside it), imports it, removes both; rejects with what the module threw. */
  async import(outFile: string, bundle: { code: string; map: object }): Promise<Record<string, unknown>> {
    const mapFile = `${outFile}.map`;
    await writeFile(mapFile, JSON.stringify(bundle.map));
    await writeFile(outFile, `${bundle.code}//# sourceMappingURL=${path.basename(mapFile)}\n`);
    try {
      return (await import(pathToFileURL(outFile).href)) as Record<string, unknown>;
    } finally {
      await Promise.all([unlink(outFile).catch(() => {}), unlink(mapFile).catch(() => {})]);
    }
  }

  /** Removes the temporary folder. */
  async close(): Promise<void> {
    const dir = this.#dir;
    this.#dir = undefined;
    if (dir) await rm(await dir, { recursive: true, force: true });
  }
}
