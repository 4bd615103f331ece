#!/usr/bin/env node
// Runs the whole suite with vitest and fails loudly when it ran zero tests (a suite that silently
// runs nothing is the classic way a green CI lies). Ends with a plain "N passed, N failed" line.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

// The end-to-end tests run the built bin/wrtui.js: build first, so they never test a stale dist/.
// The fast part alone (`--project fast`: unit and in-process tests, scripts/test-parts.ts) imports
// src/ directly and needs no build.
const args = process.argv.slice(2);
const projects = args.flatMap((arg, index) => (arg === '--project' ? [args[index + 1]] : arg.startsWith('--project=') ? [arg.slice('--project='.length)] : []));
const fastOnly = projects.length > 0 && projects.every((name) => name === 'fast');
if (!fastOnly) {
  const built = spawnSync(process.execPath, ['scripts/build.js'], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const report = '.test-results.json';
rmSync(report, { force: true });
const result = spawnSync(
  'npx',
  ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...args],
  { stdio: 'inherit' },
);

let summary;
try {
  summary = JSON.parse(readFileSync(report, 'utf8'));
} catch {
  console.error('tests: no report was written; the runner failed before running any test');
  process.exit(result.status || 1);
}
const { numPassedTests: passed, numFailedTests: failed, numPendingTests: skipped, numTotalTests: total } = summary;
// A test file that fails to load (a missing fixture, a syntax error) counts no failed test, yet
// fails the run: name such files, so that the closing line never reads "0 failed" beside exit 1.
const broken = (summary.testResults ?? []).filter((file) => file.status === 'failed' && (file.assertionResults ?? []).every((test) => test.status !== 'failed'));
const brokenNote = broken.length > 0 ? `, ${broken.length} file${broken.length === 1 ? '' : 's'} failed to load` : '';
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped${brokenNote}`);
for (const file of broken) console.error(`tests: ${file.name} failed to load: ${String(file.message ?? '').split('\n')[0]}`);
if (total === 0 || passed === 0) {
  console.error('tests: zero tests ran; failing on purpose');
  process.exit(1);
}
if (result.status !== 0 && failed === 0 && broken.length === 0) console.error(`tests: the runner exited with ${result.status} although every test passed; see its output above`);
process.exit(result.status ?? 1);
