// The type-check process: runs TypeScript's language service over rule files, away from the
// process that serves traffic (a first check with @types/node takes a second or two and ~150 MB;
// later ones reuse the service and only re-read changed files). Started and stopped by
// RuleTypeChecker; TypeScript is taken from the rules folder's dependencies, else from wrtui's.
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as TypeScript from 'typescript';
import type { TypeCheckRequest, TypeCheckResponse, TypeDiagnostic } from './type-check-protocol.js';

type Ts = typeof TypeScript;

interface Service {
  ts: Ts;
  service: TypeScript.LanguageService;
  roots: Set<string>;
  configVersion: string;
}

/** Changes whenever the file does (or appears, or goes). */
function versionOf(file: string): string {
  try {
    const stats = statSync(file);
    return `${stats.mtimeMs}:${stats.size}`;
  } catch {
    return 'missing';
  }
}

const services = new Map<string, Service>();

function loadTypeScript(rulesDir: string): Ts {
  for (const base of [path.join(rulesDir, 'package.json'), import.meta.url]) {
    try {
      return createRequire(base)('typescript') as Ts;
    } catch {
      // not installed there; try the next place
    }
  }
  throw new Error('TypeScript is not installed (npm i -D typescript) — rule type checks are off');
}

function compilerOptions(ts: Ts, rulesDir: string, authorTypes: string): TypeScript.CompilerOptions {
  const configFile = path.join(rulesDir, 'tsconfig.json');
  let options: TypeScript.CompilerOptions;
  if (ts.sys.fileExists(configFile)) {
    const parsed = ts.getParsedCommandLineOfConfigFile(configFile, {}, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    });
    options = parsed?.options ?? {};
  } else {
    // Rules are bundled by esbuild, so they are checked as a bundler sees them.
    options = {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      allowImportingTsExtensions: true,
      isolatedModules: true,
      skipLibCheck: true,
      lib: ['lib.es2023.d.ts'],
      ...nodeTypes(rulesDir),
    };
  }
  if (!options.paths?.['wrtui/rules']) options.paths = { ...options.paths, 'wrtui/rules': [authorTypes] };
  return { ...options, noEmit: true };
}

/** Node's globals (console, process, …) for a folder without a tsconfig: its own @types, else wrtui's. */
function nodeTypes(rulesDir: string): TypeScript.CompilerOptions {
  for (const base of [path.join(rulesDir, 'package.json'), import.meta.url]) {
    try {
      const typesNode = path.dirname(createRequire(base).resolve('@types/node/package.json'));
      return { types: ['node'], typeRoots: [path.dirname(typesNode)] };
    } catch {
      // not installed there
    }
  }
  return {};
}

function serviceFor(request: TypeCheckRequest): Service {
  // A changed tsconfig.json means other compiler options: start a new service.
  const configVersion = versionOf(path.join(request.rulesDir, 'tsconfig.json'));
  let entry = services.get(request.rulesDir);
  if (entry && entry.configVersion === configVersion) return entry;
  const ts = loadTypeScript(request.rulesDir);
  const options = compilerOptions(ts, request.rulesDir, request.authorTypes);
  const roots = new Set<string>(entry?.roots);
  const host: TypeScript.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => [...roots],
    getScriptVersion: versionOf,
    getScriptSnapshot: (file) => {
      const text = ts.sys.readFile(file);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => request.rulesDir,
    getDefaultLibFileName: (settings) => ts.getDefaultLibFilePath(settings),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  entry?.service.dispose();
  entry = { ts, service: ts.createLanguageService(host, ts.createDocumentRegistry()), roots, configVersion };
  services.set(request.rulesDir, entry);
  return entry;
}

function check(request: TypeCheckRequest): TypeDiagnostic[] {
  const { ts, service, roots } = serviceFor(request);
  for (const file of request.files) roots.add(file);
  const diagnostics: TypeDiagnostic[] = [];
  for (const file of request.files) {
    if (!/\.[cm]?tsx?$/.test(file)) continue;
    for (const diagnostic of [...service.getSyntacticDiagnostics(file), ...service.getSemanticDiagnostics(file)]) {
      if (diagnostic.category !== ts.DiagnosticCategory.Error) continue;
      const where = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start) : undefined;
      diagnostics.push({
        file: diagnostic.file?.fileName ?? file,
        line: (where?.line ?? 0) + 1,
        column: (where?.character ?? 0) + 1,
        code: diagnostic.code,
        message: ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '),
      });
    }
  }
  return diagnostics;
}

process.on('message', (request: TypeCheckRequest) => {
  let response: TypeCheckResponse;
  try {
    response = { id: request.id, diagnostics: check(request) };
  } catch (error) {
    response = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  process.send?.(response);
});
// The host went away (or closed us): nothing left to do.
process.on('disconnect', () => process.exit(0));
