// Where in a rule something went wrong, as `/path/to/rule.ts:line:col`. The host turns Node's
// source-map support on (process.setSourceMapsEnabled), so stacks already name the .ts file and
// line through each bundle's inline map; when something replaced that support (a library setting
// Error.prepareStackTrace), the frame still names the temporary bundle and is mapped here by hand.
import { SourceMap, type SourceMapPayload as NodeSourceMapPayload } from 'node:module';
import { fileURLToPath } from 'node:url';
import { locationOf } from '../web-request/dispatch.js';
import type { SourceMapPayload } from './rule-bundler.js';

export interface LoadedBundle {
  /** The path the bundle was imported from. */
  file: string;
  map: SourceMapPayload;
}

/** The first stack frame of `error` in user code, mapped to the rule's sources when it is in `bundle`. */
export function ruleErrorLocation(error: unknown, bundle?: LoadedBundle): string | undefined {
  const location = locationOf(error);
  if (location === undefined) return undefined;
  const frame = parseLocation(location);
  if (!frame) return location;
  if (bundle && frame.file === bundle.file) return mapToSource(bundle.map, frame.line, frame.column) ?? `${frame.file}:${frame.line}:${frame.column}`;
  return `${frame.file}:${frame.line}:${frame.column}`;
}

interface Frame {
  file: string;
  line: number;
  column: number;
}

/** `file:///a/b.ts:3:7` or `/a/b.ts:3:7` → path, line and column (1-based). */
export function parseLocation(location: string): Frame | undefined {
  const match = /^(.*):(\d+):(\d+)$/.exec(location);
  if (!match) return undefined;
  const [, where, line, column] = match as unknown as [string, string, string, string];
  let file = where;
  if (where.startsWith('file:')) {
    try {
      file = fileURLToPath(where);
    } catch {
      return undefined;
    }
  }
  return { file, line: Number(line), column: Number(column) };
}

function mapToSource(payload: SourceMapPayload, line: number, column: number): string | undefined {
  const map = new SourceMap(payload as unknown as NodeSourceMapPayload);
  const entry = map.findEntry(line - 1, column - 1);
  if (!('originalSource' in entry)) return undefined;
  const source = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : entry.originalSource;
  return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
}
