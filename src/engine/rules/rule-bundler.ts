// Builds one rule with esbuild into a single ES module: the rule and its local helpers bundled
// (so re-importing reloads all of them, not only the entry, FACTS.md), npm packages left as
// imports. Package imports are resolved here, from the importing file's folder, and written as
// absolute file URLs: the bundle can then live in a temporary folder and still load the same
// package files the rules folder would. The source map has absolute source paths, so stack
// traces name the rule's .ts file and line wherever the bundle is loaded from.
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type BuildFailure, type Message, type Plugin } from 'esbuild';
import { RULE_GLOBALS_MODULE } from './rule-globals.js';

export interface RuleBundle {
  /** The ES module, without a sourceMappingURL comment (the loader decides how the map travels). */
  code: string;
  /** The source map; sources are absolute paths. */
  map: SourceMapPayload;
  /** Absolute paths of the local files bundled: the rule and every helper it imports. */
  inputs: string[];
}

export interface SourceMapPayload {
  version: number;
  sources: string[];
  mappings: string;
  names: string[];
  sourcesContent?: (string | null)[];
  file?: string;
  sourceRoot?: string;
}

/** A build error: esbuild's message and where, `file:line:col`. */
export class RuleBuildError extends Error {
  readonly location: string | undefined;
  constructor(message: string, location: string | undefined) {
    super(message);
    this.name = 'RuleBuildError';
    this.location = location;
  }
}

const AUTHOR_TYPES_SPECIFIER = 'wrtui/rules';
const GLOBALS_SPECIFIER = 'wrtui:rule-globals';
const NAMESPACE = 'wrtui';

/**
 * Bundles `file` for loading from `outFile` (the path the code will be written to; the source map
 * is computed against it). Throws a RuleBuildError for syntax errors, unresolved imports, …
 */
export async function bundleRule(file: string, outFile: string): Promise<RuleBundle> {
  const workingDir = path.dirname(file);
  let result;
  try {
    result = await build({
      entryPoints: [file],
      absWorkingDir: workingDir,
      outfile: outFile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      metafile: true,
      sourcemap: 'external',
      sourcesContent: false,
      logLevel: 'silent',
      inject: [GLOBALS_SPECIFIER],
      plugins: [ruleImports],
    });
  } catch (error) {
    const first = (error as BuildFailure).errors?.[0];
    if (!first) throw error;
    throw buildError(first, workingDir, (error as BuildFailure).errors.length);
  }

  const js = result.outputFiles.find((output) => !output.path.endsWith('.map'));
  const mapFile = result.outputFiles.find((output) => output.path.endsWith('.map'));
  if (!js || !mapFile) throw new Error(`esbuild produced no output for ${file}`);
  const map = JSON.parse(mapFile.text) as SourceMapPayload;
  const outDir = path.dirname(outFile);
  // Absolute paths: right wherever the bundle is loaded from, and readable by tools (vite, editors).
  map.sources = map.sources.map((source) => (isVirtual(source) ? source : path.resolve(outDir, source)));
  // Real files are read from disk by whoever needs their text; the virtual module has no file.
  map.sourcesContent = map.sources.map((source) => (source === `${NAMESPACE}:rule-globals` ? RULE_GLOBALS_MODULE : null));
  const code = js.text.replace(/\/\/# sourceMappingURL=\S+\s*$/, '');
  const inputs = Object.keys(result.metafile.inputs)
    .filter((input) => !isVirtual(input))
    .map((input) => path.resolve(workingDir, input));
  return { code, map, inputs };
}

/** `namespace:path` inputs and sources are esbuild's virtual modules, not files. */
function isVirtual(input: string): boolean {
  return /^[a-z][a-z-]*:/.test(input) && !/^[a-zA-Z]:[\\/]/.test(input);
}

function buildError(message: Message, workingDir: string, count: number): RuleBuildError {
  const where = message.location;
  const location = where ? `${path.resolve(workingDir, where.file)}:${where.line}:${where.column + 1}` : undefined;
  const more = count > 1 ? ` (and ${count - 1} more error${count > 2 ? 's' : ''})` : '';
  return new RuleBuildError(`${location ? `${location}: ` : ''}${message.text}${more}`, location);
}

/** Resolves what a rule imports that is not a relative path. */
const ruleImports: Plugin = {
  name: 'wrtui-rule-imports',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === NAMESPACE) return undefined; // our own nested resolve below
      const specifier = args.path;
      if (specifier === GLOBALS_SPECIFIER) return { path: 'rule-globals', namespace: NAMESPACE };
      // Types only; a value import of it under verbatimModuleSyntax finds an empty module.
      if (specifier === AUTHOR_TYPES_SPECIFIER) return { path: 'author-types', namespace: NAMESPACE };
      if (specifier.startsWith('.') || path.isAbsolute(specifier) || specifier.startsWith('file:')) return undefined;
      if (isBuiltin(specifier)) return { path: specifier, external: true };
      // A package: resolved as Node would from the importer's folder ("import" conditions), kept external.
      const resolved = await pluginBuild.resolve(specifier, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: NAMESPACE,
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      if (resolved.external || !path.isAbsolute(resolved.path)) return { path: resolved.path, external: true };
      return { path: pathToFileURL(resolved.path).href, external: true };
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
      contents: args.path === 'rule-globals' ? RULE_GLOBALS_MODULE : 'export {};',
      loader: 'js',
    }));
  },
};
