// Files wrtui writes that hold cookies and headers, against what may already be there. Exports
// (`replay --export-har`, `--export-journal`, the TUI's `S` and `y`) and quick rules (`w`) are made
// 0600 by one helper (src/engine/private-file.ts): never through a symbolic link, never over a file
// (refused in one line, or replaced with --force, the new file 0600 whatever the old one was). A
// state dir others can read is tightened to 0700 and said so. Security settings fail safe: an
// unreadable settings.json keeps recordings redacted, and the journal says what is in effect.
import { spawn } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ProxyAgent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveExport, writeNewRule } from '../../src/ui/session-backend.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { WRTUI_BIN } from '../helpers/tmux.js';
import { writeSyntheticRecording } from '../session/synthetic-recording.js';

let workDir: string;
let recording: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'wrtui-exports-'));
  await mkdir(join(workDir, 'no-rules'));
  recording = await writeSyntheticRecording(join(workDir, 'synthetic.ndjson'), 8);
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

function wrtui(args: string[], cwd = workDir): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [WRTUI_BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe.each([
  { option: '--export-har', check: (text: string) => expect(JSON.parse(text)).toMatchObject({ log: { version: '1.2' } }) },
  { option: '--export-journal', check: (text: string) => expect(text.trim().split('\n')).toHaveLength(8 * 7) },
])('replay $option', ({ option, check }) => {
  it('over an existing file: refused in one line, the file untouched; with --force replaced by a new 0600 file', async () => {
    const out = join(workDir, `existing${option}.out`);
    await writeFile(out, 'the user\u2019s own file\n', { mode: 0o644 });
    await chmod(out, 0o644);
    const refused = await wrtui(['replay', recording, option, out]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`wrtui: existing${option}.out exists: not overwritten (--force replaces it)\n`);
    expect(await readFile(out, 'utf8')).toBe('the user\u2019s own file\n');

    const forced = await wrtui(['replay', recording, option, out, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    check(await readFile(out, 'utf8'));
    expect(await mode(out)).toBe(0o600);
  });

  it('at a symbolic link: never written through; with --force the link itself is replaced and its target left alone', async () => {
    const target = join(workDir, `target${option}.txt`);
    const link = join(workDir, `link${option}.out`);
    await writeFile(target, 'not wrtui\u2019s\n', { mode: 0o644 });
    await symlink(target, link);
    expect((await wrtui(['replay', recording, option, link])).code).toBe(2);
    expect(await readlink(link)).toBe(target);

    expect((await wrtui(['replay', recording, option, link, '--force'])).code).toBe(0);
    expect((await lstat(link)).isSymbolicLink()).toBe(false);
    check(await readFile(link, 'utf8'));
    expect(await mode(link)).toBe(0o600);
    expect(await readFile(target, 'utf8')).toBe('not wrtui\u2019s\n');
  });
});

describe("the TUI's exports (S: the session as HAR, y: a request as curl)", () => {
  it('never over an existing file or through a link at its name: the next free name, 0600, in a 0700 folder', async () => {
    const state = join(workDir, 'tui-state');
    await mkdir(join(state, 'exports'), { recursive: true, mode: 0o755 });
    await chmod(join(state, 'exports'), 0o755); // made by hand, or by an older wrtui
    const target = join(workDir, 'tui-target.txt');
    await writeFile(target, 'not an export\n');
    await symlink(target, join(state, 'exports', 'curl-7.sh'));
    await writeFile(join(state, 'exports', 'curl-7-2.sh'), 'an earlier export\n', { mode: 0o600 });

    const path = await saveExport(state, 'curl-7.sh', '#!/bin/sh\ncurl -H "Cookie: sid=secret" http://x.test/\n');
    expect(path).toBe(join(state, 'exports', 'curl-7-3.sh'));
    expect(await readFile(path, 'utf8')).toContain('sid=secret');
    expect(await mode(path)).toBe(0o600);
    expect(await readFile(target, 'utf8')).toBe('not an export\n');
    expect(await readFile(join(state, 'exports', 'curl-7-2.sh'), 'utf8')).toBe('an earlier export\n');
    expect(await mode(join(state, 'exports'))).toBe(0o700);
  });

  it('a quick rule (w) is a new 0600 file: it quotes a URL, which may carry a token', async () => {
    const rules = join(workDir, 'quick-rules');
    const path = await writeNewRule(rules, 'quick-block-x', 'export const manifest = {};\n// https://x.test/?token=secret\n');
    expect(path).toBe(join(rules, 'quick-block-x.ts'));
    expect(await mode(path)).toBe(0o600);
  });
});

describe('a live session', () => {
  let origin: Origin;
  beforeAll(async () => {
    origin = await startOrigin((_req, res) => res.end('ok'));
  });
  afterAll(async () => {
    await origin.close();
  });

  /** `wrtui headless --json` in `cwd` until `traffic` is done; its journal. */
  async function headless(cwd: string, args: string[], traffic: (proxyUrl: string) => Promise<void>): Promise<{ kind: string; level?: string; message?: string }[]> {
    const child = spawn(process.execPath, [WRTUI_BIN, 'headless', '--json', '--port', '0', '--incognito-port', '0', '--rules', join(workDir, 'no-rules'), ...args], { cwd });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const entries: { kind: string; level?: string; message?: string; url?: string }[] = [];
    const listening = new Promise<string>((resolve) =>
      createInterface({ input: child.stdout }).on('line', (line) => {
        const entry = JSON.parse(line) as { kind: string; url?: string };
        entries.push(entry);
        if (entry.kind === 'listening') resolve(entry.url!);
      }),
    );
    await traffic(await listening);
    child.kill('SIGTERM');
    expect(await exited, stderr).toBe(0);
    return entries;
  }

  it('a state dir others can read (a 0755 .wrtui made by hand) is tightened to 0700, and the journal says so', async () => {
    const cwd = join(workDir, 'loose');
    await mkdir(join(cwd, '.wrtui'), { recursive: true });
    await chmod(join(cwd, '.wrtui'), 0o755);
    const journal = await headless(cwd, [], async () => {});
    expect(await mode(join(cwd, '.wrtui'))).toBe(0o700);
    expect(journal).toContainEqual(expect.objectContaining({ kind: 'log', level: 'warn', message: `${join(cwd, '.wrtui')} was open to other users (mode 0755); changed it to 0700: it holds cookies and the CA key` }));
  });

  it('a corrupt settings.json that said recording.redact: true keeps recordings redacted; the journal says what is in effect', async () => {
    const cwd = join(workDir, 'corrupt-settings');
    await mkdir(join(cwd, '.wrtui'), { recursive: true, mode: 0o700 });
    await writeFile(join(cwd, '.wrtui', 'settings.json'), '{"recording": {"redact": true}, "ruleDryRun": {', { mode: 0o600 });
    const journal = await headless(cwd, ['--record', 'session.ndjson'], async (proxyUrl) => {
      await (await request(`${origin.url}/account`, { headers: { cookie: 'sid=the-secret-value' }, dispatcher: new ProxyAgent({ uri: proxyUrl, proxyTunnel: false }) })).body.text();
    });
    const recorded = await readFile(join(cwd, 'session.ndjson'), 'utf8');
    expect(recorded).toContain('/account');
    expect(recorded).not.toContain('the-secret-value');
    expect(JSON.parse(recorded.split('\n')[0]!)).toMatchObject({ redacted: true });
    const messages = journal.filter((entry) => entry.kind === 'log').map((entry) => entry.message!);
    expect(messages).toContainEqual(expect.stringMatching(/settings\.json could not be used .*recordings are redacted/));
    expect(messages).toContainEqual(`recording to ${join(cwd, 'session.ndjson')}: credentials redacted (Authorization, Cookie, Set-Cookie values) (recording.redact of .wrtui/settings.json)`);
    // The safe value outlasts this run: the fresh settings.json says it.
    expect(JSON.parse(await readFile(join(cwd, '.wrtui', 'settings.json'), 'utf8'))).toEqual({ recording: { redact: true } });
  });
});
