// Type errors in a rule are reported as `rule` warnings with file:line, by a separate process,
// after the rule has already been (re)loaded: the rule runs whatever its types say.
import { spawnSync } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RuleTypeChecker, type TypeDiagnostic } from '../../src/engine/rules/rule-type-checker.js';
import { EXAMPLES_DIR } from './example-rules.js';
import { lineOf, listenerUrls, openRuleFolder, ruleAction, type RuleFolder } from './rule-folder.js';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

const typed = (port: string) => `import type { RuleContext, RuleManifest } from 'wrtui/rules';

export const manifest = {
  name: 'typed',
  permissions: ['webRequest'],
  host_permissions: ['<all_urls>'],
} as const satisfies RuleManifest;

const port: number = ${port};

export default function background({ chrome }: RuleContext<typeof manifest>): void {
  chrome.webRequest.onBeforeRequest.addListener(() => {}, { urls: [\`http://typed.example:\${port}/*\`] });
}
`;

describe('type checks of rules', () => {
  it('a type error is a warning with file:line; the rule still runs; fixing it clears the rule\'s typeErrors', { timeout: 60_000 }, async () => {
    const source = typed("'8080'");
    folder = await openRuleFolder({ files: { 'typed.ts': source }, host: { typeCheck: true, typeCheckDelayMs: 50 } });
    expect(folder.host.rule('typed')?.state).toBe('active');
    expect(listenerUrls(folder.host, 'typed')).toEqual(['http://typed.example:8080/*']);

    const warning = await folder.waitForEntry(ruleAction('typed', 'warning'), { since: 0, timeoutMs: 45_000 });
    expect(warning).toMatchObject({
      file: folder.path('typed.ts'),
      message: "type error TS2322: Type 'string' is not assignable to type 'number'.",
      location: `${folder.path('typed.ts')}:${lineOf(source, 'const port')}:7`,
    });
    expect(folder.host.rule('typed')).toMatchObject({ state: 'active', typeErrors: [expect.objectContaining({ code: 2322 })] });

    const since = folder.mark();
    await folder.write('typed.ts', typed('8080'));
    await folder.waitForEntry(ruleAction('typed', 'reloaded'), { since });
    await expect.poll(() => folder!.host.rule('typed')?.typeErrors, { timeout: 20_000, interval: 50 }).toEqual([]);
  });

  it('the shipped example rules type-check clean with examples/rules/tsconfig.json', { timeout: 60_000 }, async () => {
    const results = new Map<string, TypeDiagnostic[]>();
    const checker = new RuleTypeChecker({
      rulesDir: EXAMPLES_DIR,
      onResult: (file, diagnostics) => results.set(file, diagnostics),
      onUnavailable: (reason) => {
        throw new Error(reason);
      },
    });
    try {
      const rules = (await readdir(EXAMPLES_DIR)).filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
      expect(rules.length).toBe(7);
      for (const rule of rules) {
        const file = path.join(EXAMPLES_DIR, rule);
        await checker.check(file, [file, path.join(EXAMPLES_DIR, 'lib', 'headers.ts')]);
        expect({ rule, diagnostics: results.get(file) }).toEqual({ rule, diagnostics: [] });
      }
    } finally {
      await checker.close();
    }
  });

  it('a rule that uses a permission it did not declare gets a type error, as at run time', { timeout: 60_000 }, async () => {
    const source = `import type { RuleContext, RuleManifest } from 'wrtui/rules';
export const manifest = { name: 'undeclared', permissions: ['webRequest'], host_permissions: ['<all_urls>'] } as const satisfies RuleManifest;
export default function background({ chrome }: RuleContext<typeof manifest>): void {
  chrome.cookies.onChanged.addListener(() => {});
}
`;
    const results: TypeDiagnostic[][] = [];
    folder = await openRuleFolder({ files: { 'undeclared.ts': source } });
    const checker = new RuleTypeChecker({ rulesDir: folder.dir, onResult: (_file, diagnostics) => results.push(diagnostics), onUnavailable: () => {} });
    try {
      await checker.check(folder.path('undeclared.ts'), [folder.path('undeclared.ts')]);
    } finally {
      await checker.close();
    }
    expect(results[0]).toEqual([expect.objectContaining({ line: 4, code: 18048, message: "'chrome.cookies' is possibly 'undefined'." })]);
    // …and at run time the namespace is indeed missing: the background throws.
    expect(folder.host.rule('undeclared')?.error?.message).toMatch(/^the background threw TypeError: Cannot read properties of undefined \(reading 'onChanged'\)/);
  });
});

describe('types from the package, for a rules folder or extension anywhere on disk', () => {
  /** A folder in the temp dir with wrtui "installed" in its node_modules (a link to this package, built). */
  async function outsideFolder(): Promise<string> {
    const { mkdtemp, mkdir, symlink } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(path.join(tmpdir(), 'wrtui-types-'));
    await mkdir(path.join(dir, 'node_modules'));
    await symlink(path.resolve(EXAMPLES_DIR, '..', '..'), path.join(dir, 'node_modules', 'wrtui'), 'dir');
    return dir;
  }

  function tsc(project: string): { status: number | null; output: string } {
    const result = spawnSync(process.execPath, [path.resolve(EXAMPLES_DIR, '../../node_modules/typescript/bin/tsc'), '-p', project], { encoding: 'utf8' });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  }

  it('the example rules copied elsewhere type-check with `wrtui/rules` resolved through package.json exports (no path mapping)', { timeout: 60_000 }, async () => {
    const { cp, readFile, rm } = await import('node:fs/promises');
    const dir = await outsideFolder();
    try {
      await cp(EXAMPLES_DIR, path.join(dir, 'rules'), { recursive: true });
      expect(await readFile(path.join(dir, 'rules', 'tsconfig.json'), 'utf8')).not.toContain('paths');
      const result = tsc(path.join(dir, 'rules', 'tsconfig.json'));
      expect(result.output).toBe('');
      expect(result.status).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('an extension written in TypeScript gets the global chrome and browser from `wrtui/extension`, and type errors are caught', { timeout: 60_000 }, async () => {
    const { rm, writeFile } = await import('node:fs/promises');
    const dir = await outsideFolder();
    try {
      await writeFile(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2022', lib: ['ES2023', 'DOM'], module: 'ESNext', moduleResolution: 'Bundler', types: ['wrtui/extension'] }, include: ['*.ts'] }),
      );
      await writeFile(
        path.join(dir, 'background.ts'),
        "chrome.webRequest.onBeforeRequest.addListener((details) => ({ cancel: details.url.includes('ads') }), { urls: ['<all_urls>'] }, ['blocking']);\n" +
          "chrome.storage.local.get('x').then((items) => console.log(items.x));\nbrowser.cookies.getAll({}).then((cookies) => cookies.map((c) => c.name));\n",
      );
      expect(tsc(path.join(dir, 'tsconfig.json'))).toEqual({ status: 0, output: '' });
      await writeFile(path.join(dir, 'broken.ts'), "chrome.webRequest.onBeforeRequest.addListener((details) => ({ cancel: details.nope }), { urls: ['<all_urls>'] });\n");
      const broken = tsc(path.join(dir, 'tsconfig.json'));
      expect(broken.status).not.toBe(0);
      expect(broken.output).toContain("Property 'nope' does not exist");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
