// Which test files are end-to-end: they start something outside the test's own process that a
// contributor may not have, or must build first: the built `wrtui` command (bin/wrtui.js runs
// dist/), a real terminal (tmux), a real browser (Chromium, Firefox ESR), or Debian's packaged
// extensions. Every other test is "fast": unit and in-process tests that import src/ directly and
// need no build. Decided from each file's source, so that a new test is put in its part without
// anyone keeping a list (test/test-parts.test.ts checks the split on known files).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** What an end-to-end test's source says: it runs the CLI, tmux, a browser or a packaged extension. */
export const END_TO_END_MARKERS = /WRTUI_BIN|bin\/wrtui|helpers\/tmux|helpers\/chromium-probe|helpers\/firefox|helpers\/real-extensions|playwright-core|spawn\(FIREFOX|\/usr\/share\/(chromium|mozilla|webext)/;

export function isEndToEnd(source: string): boolean {
  return END_TO_END_MARKERS.test(source);
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return /\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The end-to-end test files under `root`/test, as paths relative to `root` with forward slashes. */
export function endToEndTestFiles(root: string): string[] {
  return testFiles(join(root, 'test'))
    .filter((path) => isEndToEnd(readFileSync(path, 'utf8')))
    .map((path) => relative(root, path).split('\\').join('/'))
    .sort();
}
