// What one worker runs, prepared on the proxy thread before the worker starts: a rule file
// bundled (rule-bundler.ts), or an unpacked extension's background read from its manifest (its
// classic scripts are read by the worker itself; module scripts are bundled here, since the
// extension's realm has no module loader). Nothing here runs user code.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { build, type BuildFailure } from 'esbuild';
import { bundleRule } from '../rules/rule-bundler.js';
import { readExtensionManifest, MANIFEST_FILE, type ExtensionManifest } from './extension-manifest.js';
import { extensionIdFromPath } from './extension-id.js';
import type { ScriptUnit, WorkerBoot } from './protocol.js';

/** A worker's boot data, less what depends on the load (why it loads). */
export type PreparedBoot = Omit<WorkerBoot, 'installReason' | 'previousVersion' | 'backgroundTimeoutMs' | 'persona'>;

export interface PreparedPackage {
  boot: PreparedBoot;
  /** Extensions: their manifest. Rules report theirs from their module. */
  manifest: ExtensionManifest | undefined;
  /** Local files it was built from (a change to any of them reloads it). */
  inputs: string[];
}

export class PackageError extends Error {
  readonly location: string | undefined;
  constructor(message: string, location: string | undefined) {
    super(message);
    this.name = 'PackageError';
    this.location = location;
  }
}

/** A rule file: bundled into one CommonJS script whose default export is the background. */
export async function prepareRule(file: string): Promise<PreparedPackage> {
  // Where the bundle "lives": never written, but its source map is computed against it.
  const bundleFile = path.join(path.dirname(file), `.${path.basename(file)}.wrtui-bundle.js`);
  const bundle = await bundleRule(file, bundleFile);
  const id = extensionIdFromPath(file);
  return {
    boot: {
      extensionId: id,
      name: path.basename(file).replace(/\.[^.]+$/, ''),
      kind: 'rule',
      manifest: undefined,
      permissions: [],
      hostPermissions: [],
      rootDir: path.dirname(file),
      baseUrl: `chrome-extension://${id}/`,
      scripts: [],
      rule: { file: bundleFile, code: bundle.code, map: bundle.map, source: file },
    },
    manifest: undefined,
    inputs: bundle.inputs,
  };
}

/** An unpacked extension folder, as Chrome's "Load unpacked" reads it. */
export async function prepareExtension(dir: string): Promise<PreparedPackage> {
  const manifest = await readExtensionManifest(dir);
  const scripts = await backgroundScripts(manifest);
  return {
    boot: {
      extensionId: manifest.id,
      name: manifest.name,
      kind: 'extension',
      manifest: manifest.raw,
      permissions: manifest.permissions,
      hostPermissions: manifest.hostPermissions,
      rootDir: dir,
      baseUrl: `chrome-extension://${manifest.id}/`,
      scripts,
      rule: undefined,
    },
    manifest,
    inputs: [path.join(dir, MANIFEST_FILE), ...scripts.map((unit) => unit.source ?? unit.file)],
  };
}

async function backgroundScripts(manifest: ExtensionManifest): Promise<ScriptUnit[]> {
  const { background, dir } = manifest;
  const inside = (relative: string) => {
    const file = path.resolve(dir, relative.replace(/^\/+/, ''));
    if (path.relative(dir, file).startsWith('..')) throw new PackageError(`the background script ${relative} is outside the extension's folder`, path.join(dir, MANIFEST_FILE));
    return file;
  };
  switch (background.kind) {
    case 'none':
      return [];
    case 'service_worker':
      return [background.module ? await bundleModule(inside(background.file)) : { file: inside(background.file) }];
    case 'scripts':
      return Promise.all(background.files.map((file) => (background.module ? bundleModule(inside(file)) : { file: inside(file) })));
    case 'page': {
      const page = inside(background.file);
      let html: string;
      try {
        html = await readFile(page, 'utf8');
      } catch {
        throw new PackageError(`cannot read the background page ${background.file}`, path.join(dir, MANIFEST_FILE));
      }
      // The scripts the page loads, in order; an extension page runs no inline script (its CSP forbids it).
      const units: ScriptUnit[] = [];
      for (const match of html.matchAll(/<script\b([^>]*)>/gi)) {
        const attributes = match[1]!;
        const src = /\bsrc\s*=\s*["']?([^"'\s>]+)/i.exec(attributes)?.[1];
        if (!src) continue;
        const file = path.resolve(path.dirname(page), src);
        units.push(/\btype\s*=\s*["']?module/i.test(attributes) ? await bundleModule(inside(path.relative(dir, file))) : { file: inside(path.relative(dir, file)) });
      }
      return units;
    }
  }
}

/** A module script and what it imports from the extension's folder, as one classic script. */
async function bundleModule(file: string): Promise<ScriptUnit> {
  const bundleFile = `${file}.wrtui-bundle.js`;
  try {
    const result = await build({
      entryPoints: [file],
      outfile: bundleFile,
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      sourcemap: 'external',
      sourcesContent: false,
      logLevel: 'silent',
    });
    const code = result.outputFiles.find((output) => !output.path.endsWith('.map'))!.text.replace(/\/\/# sourceMappingURL=\S+\s*$/, '');
    const map = JSON.parse(result.outputFiles.find((output) => output.path.endsWith('.map'))!.text) as { sources: string[] };
    map.sources = map.sources.map((source) => path.resolve(path.dirname(bundleFile), source));
    return { file: bundleFile, code, map, source: file };
  } catch (error) {
    const first = (error as BuildFailure).errors?.[0];
    if (!first) throw error;
    const where = first.location ? `${path.resolve(path.dirname(file), first.location.file)}:${first.location.line}:${first.location.column + 1}` : file;
    throw new PackageError(`${where}: ${first.text}`, where);
  }
}
