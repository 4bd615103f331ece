// A save through a temp file (sed -i, an editor's atomic save) is reported under the file it
// replaced, never under the temp file's name: the real sed, the real chokidar watcher.
import { execFile } from 'node:child_process';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect, it } from 'vitest';
import { RuleWatcher } from '../../src/engine/rules/rule-watcher.js';

const run = promisify(execFile);
let dir: string | undefined;
let watcher: RuleWatcher | undefined;

afterEach(async () => {
  await watcher?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function until(test: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('sed -i on a rule is reported as that rule, not as sed\'s temp file', async () => {
  dir = await mkdtemp(join(tmpdir(), 'wrtui-watch-temp-'));
  const rule = join(dir, 'strip.ts');
  await writeFile(rule, 'export const a = 1;\n');
  const reports: string[] = [];
  watcher = await RuleWatcher.start(dir, { onChange: (file) => reports.push(file), onError: (error) => reports.push(`error: ${error.message}`) });

  await run('sed', ['-i', 's/a = 1/a = 2/', rule]);
  await until(() => reports.includes(rule), 'the saved rule reported');
  // A later save of another file: its report comes after any report the temp file would have made.
  const sentinel = join(dir, 'later.ts');
  await writeFile(sentinel, 'export const b = 1;\n');
  await until(() => reports.includes(sentinel), 'the sentinel reported');
  expect(reports.filter((file) => file !== rule && file !== sentinel)).toEqual([]);
});

it('an editor\'s atomic save (a temp file written, then renamed over the rule) is reported as the rule, however long the temp file lived', async () => {
  dir = await mkdtemp(join(tmpdir(), 'wrtui-watch-temp-'));
  const rule = join(dir, 'strip.ts');
  await writeFile(rule, 'export const a = 1;\n');
  const reports: string[] = [];
  // A long quiet time: chokidar sees the temp file appear well before the burst is reported.
  watcher = await RuleWatcher.start(dir, { debounceMs: 1500, onChange: (file) => reports.push(file), onError: () => {} });
  const temp = join(dir, 'sedX1b2Q9');
  await writeFile(temp, 'export const a = 3;\n');
  // Lets chokidar notice the temp file (on a loaded machine it may not, and the test only gets weaker).
  await new Promise((resolve) => setTimeout(resolve, 400));
  await rename(temp, rule);
  await until(() => reports.includes(rule), 'the saved rule reported');
  const sentinel = join(dir, 'later.ts');
  await writeFile(sentinel, 'export const b = 1;\n');
  await until(() => reports.includes(sentinel), 'the sentinel reported');
  expect(reports.filter((file) => file !== rule && file !== sentinel)).toEqual([]);
});

it('a rule file created and kept is still reported', async () => {
  dir = await mkdtemp(join(tmpdir(), 'wrtui-watch-temp-'));
  const reports: string[] = [];
  watcher = await RuleWatcher.start(dir, { onChange: (file) => reports.push(file), onError: () => {} });
  const created = join(dir, 'new-rule.ts');
  await writeFile(created, 'export const c = 1;\n');
  await until(() => reports.includes(created), 'the new rule reported');
});
