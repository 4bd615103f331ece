// Builds one rule with esbuild into a single CommonJS script that runs in the rule's worker, in
// the rule's own realm (extensions/worker/worker-main.ts): the rule, its local helpers and the npm
// packages it imports, all bundled, as an extension's build would; Node's built-in modules stay
// `require` calls, which only a rule whose manifest says `node: true` may use. The source map has
// absolute source paths, so locations name the rule's .ts file and line.
import path from 'node:path';
import { build, type BuildFailure, type Message, type Plugin } from 'esbuild';

export interface RuleBundle {
  /** The CommonJS script, without a sourceMappingURL comment (the map travels beside it). */
  code: string;
  /** The source map; sources are absolute paths. */
  map: SourceMapPayload;
  /** Absolute paths of the files bundled: the rule, every helper and package file it imports. */
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
      format: 'cjs',
      target: 'node20',
      write: false,
      metafile: true,
      sourcemap: 'external',
      sourcesContent: false,
      logLevel: 'silent',
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
  map.sourcesContent = map.sources.map(() => null);
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

/** `wrtui/rules` holds types only: a value import of it finds an empty module. */
const ruleImports: Plugin = {
  name: 'wrtui-rule-imports',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^wrtui\/rules$/ }, () => ({ path: 'author-types', namespace: NAMESPACE }));
    pluginBuild.onLoad({ filter: /.*/, namespace: NAMESPACE }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};
