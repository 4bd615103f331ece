// Which files of the rules folder are rules. A rule is a module directly in the folder; everything
// else there (helpers in sub-folders, `_private.ts`, dotfiles, declaration files, tsconfig.json)
// only matters when a rule imports it.
import { readdir } from 'node:fs/promises';
import path from 'node:path';

export const RULE_EXTENSIONS: readonly string[] = ['.ts', '.mts', '.js', '.mjs'];

/** Whether `file` (a path) is a rule of the folder `dir`. */
export function isRuleFile(dir: string, file: string): boolean {
  if (path.dirname(path.resolve(file)) !== path.resolve(dir)) return false;
  const base = path.basename(file);
  if (base.startsWith('_') || base.startsWith('.')) return false;
  if (/\.d\.m?ts$/.test(base)) return false;
  return RULE_EXTENSIONS.includes(path.extname(base));
}

/** The rule files in `dir`, as absolute paths, sorted by file name. */
export async function listRuleFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && isRuleFile(dir, path.join(dir, entry.name)))
    .map((entry) => path.resolve(dir, entry.name))
    .sort(compareRuleFiles);
}

/** File name order (code points, so the same on every machine and locale). */
export function compareRuleFiles(a: string, b: string): number {
  const x = path.basename(a);
  const y = path.basename(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Paths inside `dir` the watcher never needs to see: dependencies, and dot-files and dot-folders
 * (editors' swap and backup files, .git).
 */
export function isIgnoredPath(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  if (relative === '' || relative.startsWith('..')) return false;
  return relative.split(path.sep).some((part) => part === 'node_modules' || part.startsWith('.'));
}
