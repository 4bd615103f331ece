// Locations of rule errors: frames Node already mapped pass through; a frame that still names the
// temporary bundle (source maps replaced by someone's Error.prepareStackTrace) is mapped by hand.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleRule, type RuleBundle } from '../../src/engine/rules/rule-bundler.js';
import { parseLocation, ruleErrorLocation } from '../../src/engine/rules/source-location.js';

describe('ruleErrorLocation', () => {
  let dir: string;
  let bundle: RuleBundle;
  const outFile = '/tmp/wrtui-rules-x/located.7.mjs';

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wrtui-located-'));
    await writeFile(
      path.join(dir, 'located.ts'),
      "export const manifest = { name: 'located' };\nexport default function background(): void {\n  const n: number = 1;\n  throw new Error(`boom ${n}`);\n}\n",
    );
    bundle = await bundleRule(path.join(dir, 'located.ts'), outFile);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('maps a frame in the bundle to the rule\'s file and line', () => {
    const bundleLine = bundle.code.split('\n').findIndex((line) => line.includes('throw new Error')) + 1;
    const column = bundle.code.split('\n')[bundleLine - 1]!.indexOf('throw') + 1;
    const error = new Error('boom 1');
    error.stack = `Error: boom 1\n    at background (file://${outFile}:${bundleLine}:${column})\n    at node:internal/modules/esm/module_job:1:1`;
    expect(ruleErrorLocation(error, { file: outFile, map: bundle.map })).toBe(`${path.join(dir, 'located.ts')}:4:3`);
  });

  it('leaves frames Node already mapped, and turns file URLs into paths', () => {
    const error = new Error('x');
    error.stack = 'Error: x\n    at run (file:///work/rules/a.ts:3:9)';
    expect(ruleErrorLocation(error, { file: outFile, map: bundle.map })).toBe('/work/rules/a.ts:3:9');
    expect(parseLocation('/a b/c.ts:10:2')).toEqual({ file: '/a b/c.ts', line: 10, column: 2 });
  });

  it('has nothing to say about values without a stack', () => {
    expect(ruleErrorLocation('a string')).toBeUndefined();
  });
});
