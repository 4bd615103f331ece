// How a path is written for a person: short, as they would type it, and as a POSIX shell word
// they can paste (`wrtui ca`'s commands, the replay command a recording's last line gives).
import { isAbsolute, relative } from 'node:path';

/** A path as the user typed it, short: relative to the working directory when it lies under it. */
export function shortPath(path: string): string {
  const relativePath = relative(process.cwd(), path);
  return relativePath.startsWith('..') || relativePath === '' || isAbsolute(relativePath) ? path : relativePath;
}

/** A path as a POSIX shell word: left alone when safe, single-quoted otherwise. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
