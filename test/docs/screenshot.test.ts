// The README's picture can be made again from the real TUI: scripts/screenshot.ts starts wrtui in
// tmux, sends traffic through it and renders the screen to SVG (here to a temporary file).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmuxAvailable } from '../helpers/tmux.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
let dir: string;

beforeAll(async () => {
  if (!tmuxAvailable()) throw new Error('tmux is needed to make the screenshot: apt-get install -y tmux (.ci/run installs it)');
  dir = await mkdtemp(join(tmpdir(), 'wrtui-screenshot-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the screenshot script', () => {
  it('renders the real TUI, with traffic and a request open, to an SVG of the terminal size', { timeout: 120_000 }, async () => {
    const out = join(dir, 'screen.svg');
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/screenshot.ts', '--out', out, '--columns', '100', '--rows', '30'], { cwd: ROOT, timeout: 110_000 });
    expect(stdout).toContain(`screenshot: ${out} (100x30)`);
    const svg = await readFile(out, 'utf8');
    expect(svg).toMatch(/^<svg [^>]*width="864.0" height="534"/);
    const text = [...svg.matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((match) => (match[1] as string).replace(/\u00a0/g, ' ')).join('\n');
    expect(text).toContain('LIVE');
    expect(text).toContain('api.example.com');
    expect(text).toContain('onBeforeRequest');
    expect(text).toContain('would redirect'); // the example rules' dry-run verdicts
    expect(svg).toMatch(/fill="#[0-9a-f]{6}"/); // colours kept
  });
});
