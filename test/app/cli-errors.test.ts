// Mistakes on the command line stop wrtui with one line naming them, exit code 2, never a stack
// trace: an unknown option gets a did-you-mean, a bad value is quoted as typed.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = join(process.cwd(), 'bin/wrtui.js');
let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'wrtui-cli-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function wrtui(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: work, encoding: 'utf8', timeout: 15_000, env: { ...process.env, WRTUI_DEBUG: '' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('a mistake is one line, exit code 2, no stack trace', () => {
  it.each([
    [['headless', '--rule', './x'], 'wrtui: unknown option --rule (did you mean --rules?)'],
    [['headless', '--listner-timeout', '4'], 'wrtui: unknown option --listner-timeout (did you mean --listener-timeout?)'],
    [['headless', '--port', 'abc'], 'wrtui: --port must be a whole number, got "abc"'],
    [['headless', '--port', '1', '--port', '2'], 'wrtui: --port was given twice ("1" and "2"); give it once'],
    [['--port', '70000'], 'wrtui: --port must be at most 65535, got "70000"'],
    [['headless', '--rules'], 'wrtui: --rules needs a value: --rules <dir>'],
    [['headless', '--max-body-size', '-5'], 'wrtui: --max-body-size must be a whole number, got "-5"'],
    [['headless', '--host', '10.9.9.999'], 'wrtui: --host must be an IP address to listen on (127.0.0.1, ::1, 0.0.0.0 for every interface) or localhost, got "10.9.9.999"'],
    [['headless', '--cache=yes'], 'wrtui: --cache is on or off (--cache or --no-cache), got "yes"'],
    [['-p', '3'], "wrtui: unknown option -p: wrtui's options are long ones (--port, --rules, …); see wrtui --help"],
    [['frobnicate'], 'wrtui: unknown command "frobnicate" (the commands are browser, headless, replay and ca; without one, the TUI); see wrtui --help'],
    [['--json'], 'wrtui: --json is an option of wrtui headless and wrtui replay, not of wrtui (the TUI)'],
    [['ca', '--rules', 'x'], 'wrtui: --rules is an option of wrtui, wrtui browser, wrtui headless and wrtui replay, not of wrtui ca'],
    [['browser', '--firefox', '--chromium', '/usr/bin/true'], 'wrtui: --firefox and --chromium name two browsers: give one'],
    [['headless', '--redact'], 'wrtui: --redact applies to a recording: add --record <file> (the journal on screen and in --json is never redacted)'],
    [['replay'], 'wrtui: replay needs a file: wrtui replay <session.ndjson | capture.har> [--rules dir] [--json] [--dry-run] [--fail-on-diff]'],
    [['replay', 'a.ndjson', 'b.ndjson'], 'wrtui: unexpected argument "b.ndjson"; see wrtui replay --help'],
  ])('wrtui %j', (args, message) => {
    const result = wrtui(args);
    expect(result.stderr).toBe(`${message}\n`);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
  });

  it('recording to a file that exists: says so, keeps the file', async () => {
    await writeFile(join(work, 'kept.ndjson'), 'precious\n');
    const result = wrtui(['headless', '--port', '0', '--incognito-port', '0', '--record', 'kept.ndjson', '--state-dir', 'state']);
    expect(result.stderr).toMatch(/^wrtui: .*kept\.ndjson already exists: a recording never overwrites a file; choose a new name for --record\n$/);
    expect(result.status).toBe(2);
  });

  it('a port in use: names it, and mentions the incognito port only when there is one', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      const result = wrtui(['headless', '--port', String(port), '--incognito-port', '0', '--state-dir', 'state']);
      expect(result.stderr).toBe(`wrtui: port ${port} on 127.0.0.1 is in use; choose another with --port\n`);
      expect(result.status).toBe(2);
    } finally {
      blocker.close();
    }
  });
});

describe('--help', () => {
  it.each([[[]], [['headless']], [['replay']], [['ca']]])('wrtui %j --help prints that command\'s options and exits 0', (args) => {
    const result = wrtui([...args, '--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage');
    expect(result.stdout).toContain('--help');
    if (args[0] === 'replay') expect(result.stdout).toContain('--fail-on-diff');
    if (args[0] === 'ca') expect(result.stdout).not.toContain('--rules');
  });
});
