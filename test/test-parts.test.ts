// `npm run test:fast` runs what needs no build, terminal or browser; `npm run test:e2e` the rest.
// The split is read from each test's source (scripts/test-parts.ts): these files pin it down.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { endToEndTestFiles, isEndToEnd } from '../scripts/test-parts.js';

const ROOT = resolve(import.meta.dirname, '..');
const source = (file: string) => readFileSync(resolve(ROOT, file), 'utf8');

describe('the fast part and the end-to-end part of the suite', () => {
  it('a test that drives the TUI in tmux, the built CLI or a browser is end-to-end', () => {
    for (const file of ['test/ui/tui-e2e.test.ts', 'test/app/headless.test.ts', 'test/e2e/browser.test.ts', 'test/personas/firefox-differential.test.ts', 'test/real-extensions/ublock-origin.test.ts']) {
      expect(isEndToEnd(source(file)), file).toBe(true);
    }
  });

  it('a unit or in-process test is fast', () => {
    for (const file of ['test/match-pattern.test.ts', 'test/journal.test.ts', 'test/capture/forwarding.test.ts', 'test/ui/app.test.tsx', 'test/differential-message.test.ts', 'test/test-parts.test.ts']) {
      expect(isEndToEnd(source(file)), file).toBe(false);
    }
  });

  it('every test that uses the tmux helper is found among the end-to-end files', () => {
    const endToEnd = endToEndTestFiles(ROOT);
    expect(endToEnd).toContain('test/ui/tui-e2e.test.ts');
    expect(endToEnd).not.toContain('test/match-pattern.test.ts');
    expect(endToEnd.every((file) => file.startsWith('test/') && /\.test\.tsx?$/.test(file))).toBe(true);
  });
});
