// The shipped example rules (rules/*.ts), copied with their helpers into a test's own rules folder,
// so that each test loads exactly the file a user gets, and only that one.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const EXAMPLES_DIR = fileURLToPath(new URL('../../examples/rules/', import.meta.url));

/** `rules/<name>.ts` and `rules/lib/*`, keyed by their path in the rules folder. */
export async function exampleFiles(...names: string[]): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of names) files[`${name}.ts`] = await readFile(path.join(EXAMPLES_DIR, `${name}.ts`), 'utf8');
  for (const helper of await readdir(path.join(EXAMPLES_DIR, 'lib'))) {
    files[`lib/${helper}`] = await readFile(path.join(EXAMPLES_DIR, 'lib', helper), 'utf8');
  }
  return files;
}
