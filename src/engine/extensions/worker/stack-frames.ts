// Where in the extension's own code an error came from, as `file:line:col`: the first stack frame
// in a file the extension runs (its scripts, or a rule's bundle mapped back to the .ts file and
// line through the bundle's source map). Frames of wrtui's bindings, of Node and of bundled
// packages are passed over when a frame of the user's own code follows.
import type { SourceMap } from 'node:module';

const FRAME = /\(?((?:file:\/\/)?[^()\s]+):(\d+):(\d+)\)?\s*$/;

export function firstUserFrame(error: unknown, userFiles: ReadonlySet<string>, maps: ReadonlyMap<string, SourceMap>): string | undefined {
  const stack = (error as { stack?: unknown } | null)?.stack;
  if (typeof stack !== 'string') return undefined;
  let fallback: string | undefined;
  for (const line of stack.split('\n').slice(1)) {
    const match = FRAME.exec(line.trim());
    if (!match) continue;
    const file = match[1]!.startsWith('file://') ? decodeURIComponent(match[1]!.slice('file://'.length)) : match[1]!;
    if (!userFiles.has(file)) continue;
    const location = mapped(maps.get(file), file, Number(match[2]), Number(match[3]));
    if (!location.includes('/node_modules/')) return location;
    fallback ??= location;
  }
  return fallback ?? syntaxErrorAt(stack, userFiles, maps);
}

/**
 * Where a script that did not compile went wrong: V8 puts no frame of the script in a SyntaxError's
 * stack, but Node heads it with `file:line`, the line's text and a caret under the column. (Node
 * heads an error thrown by a script's top level so too, with the caret under the statement; its
 * frames say where the error was made, which is what a browser reports, so they come first.)
 */
function syntaxErrorAt(stack: string, userFiles: ReadonlySet<string>, maps: ReadonlyMap<string, SourceMap>): string | undefined {
  const [head, , caret] = stack.split('\n');
  const match = /^(.+):(\d+)$/.exec(head ?? '');
  if (!match || !userFiles.has(match[1]!)) return undefined;
  const column = caret !== undefined && /^ *\^/.test(caret) ? caret.indexOf('^') + 1 : 1;
  return mapped(maps.get(match[1]!), match[1]!, Number(match[2]), column);
}

/** `file:line:col` in the source the user wrote, through `map` when the file is a bundle. */
export function mapped(map: SourceMap | undefined, file: string, line: number, column: number): string {
  if (!map) return `${file}:${line}:${column}`;
  const entry = map.findEntry(line - 1, column - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
  if (entry.originalSource === undefined) return `${file}:${line}:${column}`;
  const source = entry.originalSource.startsWith('file://') ? decodeURIComponent(entry.originalSource.slice('file://'.length)) : entry.originalSource;
  return `${source}:${entry.originalLine! + 1}:${entry.originalColumn! + 1}`;
}
