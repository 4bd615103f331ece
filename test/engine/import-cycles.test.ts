// The engine's modules form no import cycle (type-only imports included): each concept stands on
// the ones below it, and a feature that subscribes to the journal is never something the journal
// itself depends on (issue: journal.ts imported the replay's diff entry from session/).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ENGINE = fileURLToPath(new URL('../../src/engine/', import.meta.url));

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Each module's relative imports, resolved to source files. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourcesUnder(ENGINE)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/\bfrom\s+'(\.{1,2}\/[^']+)'/g)].map((match) => path.resolve(path.dirname(file), match[1]!.replace(/\.js$/, '.ts')));
    graph.set(file, targets.filter((target) => target.startsWith(ENGINE)));
  }
  return graph;
}

/** Every cycle found by a depth-first walk, each as the list of files round it. */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].map((f) => path.relative(ENGINE, f)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

describe('the engine modules', () => {
  it('import one another without a cycle', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(50);
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('finds a cycle when there is one (the walk itself)', () => {
    expect(cyclesOf(new Map([['/a', ['/b']], ['/b', ['/a']]]))).toEqual([['/a', '/b', '/a'].map((file) => path.relative(ENGINE, file))]);
  });
});
