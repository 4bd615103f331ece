// What one worker runs, prepared on the proxy thread before the worker starts: a rule file
// bundled (rule-bundler.ts), or an unpacked extension's background read from its manifest (its
// classic scripts are read by the worker itself; module scripts are bundled here, since the
// extension's realm has no module loader). Nothing here runs user code.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { build, type BuildFailure, type Plugin } from 'esbuild';
import { bundleRule } from '../rules/rule-bundler.js';
import { readExtensionManifest, MANIFEST_FILE, type ExtensionManifest } from './extension-manifest.js';
import { extensionIdFromPath } from './extension-id.js';
import { extensionIdentity, ExtensionIdentityError, type ExtensionIdentity } from './extension-identity.js';
import { choosePersona, type PersonaName } from '../personas/index.js';
import type { ScriptUnit, WorkerBoot } from './protocol.js';
import type { StaticRuleset } from '../dnr/dnr-engine.js';

/** A worker's boot data, less what depends on the load (why it loads). */
export type PreparedBoot = Omit<WorkerBoot, 'installReason' | 'previousVersion' | 'backgroundTimeoutMs' | 'persona'>;

export interface PreparedPackage {
  boot: PreparedBoot;
  /** Extensions: their manifest. Rules report theirs from their module. */
  manifest: ExtensionManifest | undefined;
  /** Local files it was built from (a change to any of them reloads it). */
  inputs: string[];
  /** Extensions: the static rulesets `declarative_net_request.rule_resources` names, read. */
  dnrRulesets?: StaticRuleset[];
  /** Extensions: the browser it sees (`--persona`, else its manifest's choice). Rules learn theirs from their module. */
  persona?: PersonaName;
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

/**
 * An unpacked extension folder, as Chrome's "Load unpacked" reads it, or Firefox's temporary
 * add-on when the persona is Firefox's (`personaFlag` is `--persona`).
 */
export async function prepareExtension(dir: string, personaFlag?: PersonaName): Promise<PreparedPackage> {
  const manifest = await readExtensionManifest(dir);
  const persona = choosePersona({ ...(personaFlag && { flag: personaFlag }), manifest: manifest.raw });
  let identity: ExtensionIdentity;
  try {
    identity = extensionIdentity(manifest, persona);
  } catch (error) {
    if (error instanceof ExtensionIdentityError) throw new PackageError(error.message, path.join(dir, MANIFEST_FILE));
    throw error;
  }
  const { scripts, pageHtml } = await backgroundScripts(manifest);
  const dnrRulesets = await staticRulesets(manifest);
  return {
    dnrRulesets,
    persona,
    boot: {
      extensionId: identity.id,
      name: manifest.name,
      kind: 'extension',
      manifest: manifest.raw,
      messages: manifest.messages,
      permissions: manifest.permissions,
      hostPermissions: manifest.hostPermissions,
      rootDir: dir,
      baseUrl: identity.baseUrl,
      scripts,
      rule: undefined,
      ...(pageHtml !== undefined && { pageHtml }),
    },
    manifest,
    inputs: [path.join(dir, MANIFEST_FILE), ...scripts.map((unit) => unit.source ?? unit.file), ...dnrRulesets.map((ruleset) => path.join(dir, ruleset.path))],
  };
}

/**
 * `declarative_net_request.rule_resources`: each ruleset's id, enabled flag and JSON file. A
 * malformed entry or an unreadable file fails the load, as Chrome refuses to load the extension;
 * invalid rules inside a file only skip those rules (the DNR engine names each).
 */
export async function staticRulesets(manifest: ExtensionManifest): Promise<StaticRuleset[]> {
  const file = path.join(manifest.dir, MANIFEST_FILE);
  const key = manifest.raw.declarative_net_request;
  if (key === undefined) return [];
  const resources = (key as { rule_resources?: unknown } | null)?.rule_resources;
  if (!Array.isArray(resources)) throw new PackageError('"declarative_net_request.rule_resources" must be a list of { id, enabled, path }', file);
  const seen = new Set<string>();
  const out: StaticRuleset[] = [];
  for (const [index, resource] of resources.entries()) {
    const where = `declarative_net_request.rule_resources[${index}]`;
    const { id, enabled, path: relative } = (resource ?? {}) as { id?: unknown; enabled?: unknown; path?: unknown };
    if (typeof id !== 'string' || id === '' || id.startsWith('_')) throw new PackageError(`${where}.id must be a non-empty string not starting with '_' (reserved for _dynamic and _session)`, file);
    if (seen.has(id)) throw new PackageError(`${where}.id ${JSON.stringify(id)} is used twice`, file);
    seen.add(id);
    if (typeof enabled !== 'boolean') throw new PackageError(`${where}.enabled must be true or false`, file);
    if (typeof relative !== 'string' || relative === '') throw new PackageError(`${where}.path must name a JSON file in the extension`, file);
    const rulesFile = path.resolve(manifest.dir, relative.replace(/^\/+/, ''));
    if (path.relative(manifest.dir, rulesFile).startsWith('..')) throw new PackageError(`${where}.path ${relative} is outside the extension's folder`, file);
    let text: string;
    try {
      text = await readFile(rulesFile, 'utf8');
    } catch {
      throw new PackageError(`could not read the ruleset ${JSON.stringify(id)}: ${relative} is missing`, file);
    }
    let rules: unknown;
    try {
      rules = JSON.parse(text);
    } catch (error) {
      throw new PackageError(`the ruleset ${JSON.stringify(id)} is not valid JSON: ${(error as Error).message}`, rulesFile);
    }
    out.push({ id, path: relative, enabled, rules });
  }
  return out;
}

/**
 * The background's scripts, in order, and for a background page its HTML (background.scripts get
 * the page Chromium generates for them: an empty body with one script element each).
 */
async function backgroundScripts(manifest: ExtensionManifest): Promise<{ scripts: ScriptUnit[]; pageHtml?: string }> {
  const { background, dir } = manifest;
  const inside = (relative: string) => {
    const file = path.resolve(dir, relative.replace(/^\/+/, ''));
    if (path.relative(dir, file).startsWith('..')) throw new PackageError(`the background script ${relative} is outside the extension's folder`, path.join(dir, MANIFEST_FILE));
    return file;
  };
  switch (background.kind) {
    case 'none':
      return { scripts: [] };
    case 'service_worker':
      return { scripts: [background.module ? await bundleModule(inside(background.file), dir) : { file: inside(background.file) }] };
    case 'scripts': {
      const scripts = await Promise.all(background.files.map((file) => (background.module ? bundleModule(inside(file), dir) : { file: inside(file) })));
      const elements = background.files.map((file) => `<script${background.module ? ' type="module"' : ''} src="${file.replace(/["<>&]/g, '')}"></script>`);
      return { scripts, pageHtml: `<!DOCTYPE html>\n<html><head></head><body>\n${elements.join('\n')}\n</body></html>\n` };
    }
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
        units.push(/\btype\s*=\s*["']?module/i.test(attributes) ? await bundleModule(inside(path.relative(dir, file)), dir) : { file: inside(path.relative(dir, file)) });
      }
      return { scripts: units, pageHtml: html };
    }
  }
}

/**
 * In a browser every file a module imports is a module: top-level `this` is undefined and there
 * is no `module`, `exports` or `require`, so a vendored UMD library (react-dom) takes its browser
 * path and sets a global. esbuild takes a file that uses top-level `this` or `exports` for
 * CommonJS and wraps it so that they exist (then `require('react')` fails the load); an empty
 * export marks each file as a module (appended, so lines keep their numbers).
 */
const EVERY_FILE_A_MODULE: Plugin = {
  name: 'wrtui-every-file-a-module',
  setup(build) {
    build.onLoad({ filter: /\.m?js$/ }, async (args) => ({ contents: `${await readFile(args.path, 'utf8')}\nexport {};\n`, loader: 'js' }));
  },
};

/**
 * A dynamic import of a package name (`import('jsdom')` in a branch only Node takes) fails in a
 * browser when it runs, not when the module loads: it is left as it is, to fail then. A static one
 * still fails the load, as the browser fails the module graph.
 */
const LATE_BARE_IMPORTS: Plugin = {
  name: 'wrtui-late-bare-imports',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined));
  },
};

/** `import '/js/x.js'` names the extension's root, as a browser resolves it against the extension's origin (uBlock Origin's dynamic imports). */
function originRelativeImports(root: string): Plugin {
  return {
    name: 'wrtui-origin-relative-imports',
    setup(build) {
      // Go's regular expressions have no lookahead: `//host/x` (a scheme-relative URL) is left alone here.
      build.onResolve({ filter: /^\/[^/]/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const file = path.join(root, args.path);
        return path.relative(root, file).startsWith('..') ? undefined : { path: file };
      });
    },
  };
}

/**
 * A module Worker's script (`new Worker(url, { type: 'module' })`), asked for by the extension's
 * worker while it runs: bundled as a module background is. `file` must be in the extension's folder.
 */
export async function bundleWorkerModule(root: string, file: unknown): Promise<ScriptUnit> {
  const resolved = path.resolve(root, String(file));
  if (typeof file !== 'string' || path.relative(path.resolve(root), resolved).startsWith('..')) throw new PackageError(`${String(file)} is outside the extension's folder`, undefined);
  return bundleModule(resolved, root);
}

/** A module script and what it imports from the extension's folder, as one classic script. */
async function bundleModule(file: string, root: string): Promise<ScriptUnit> {
  const bundleFile = `${file}.wrtui-bundle.js`;
  try {
    const result = await build({
      entryPoints: [file],
      outfile: bundleFile,
      // Locations in errors are relative to this folder (resolved below).
      absWorkingDir: path.dirname(file),
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      // Every file a module imports is a module, as in a browser: no CommonJS (see EVERY_FILE_A_MODULE).
      define: { require: 'undefined', module: 'undefined', exports: 'undefined' },
      plugins: [EVERY_FILE_A_MODULE, LATE_BARE_IMPORTS, originRelativeImports(root)],
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
