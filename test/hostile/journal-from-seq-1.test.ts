// `wrtui headless --json` on a corrupt cookie file: the notice that the user's cookies were set
// aside is seq 1, emitted before anyone subscribed; it must still reach stdout (after the
// "listening" line, which comes first by contract), and so must every entry from seq 1.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';

it('headless --json prints every journal entry from seq 1, the set-aside cookie file first among them', { timeout: 30_000 }, async () => {
  const work = await mkdtemp(join(tmpdir(), 'wrtui-seq1-'));
  try {
    await mkdir(join(work, 'state'), { mode: 0o700 });
    await writeFile(join(work, 'state', 'cookies.json'), '{"stores": [truncated', { mode: 0o600 });
    const child = spawn(process.execPath, [join(process.cwd(), 'bin/wrtui.js'), 'headless', '--json', '--port', '0', '--incognito-port', '0', '--state-dir', join(work, 'state'), '--rules', join(work, 'rules')], { cwd: work });
    const lines: { kind: string; seq: number; message?: string }[] = [];
    const reader = createInterface({ input: child.stdout });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no output: ${JSON.stringify(lines)}`)), 20_000);
      reader.on('line', (line) => {
        lines.push(JSON.parse(line));
        const listening = lines.find((entry) => entry.kind === 'listening');
        if (listening && lines.length >= listening.seq) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    child.kill('SIGINT');
    await new Promise((resolve) => child.on('exit', resolve));
    expect(lines[0]!.kind).toBe('listening');
    const listeningSeq = lines[0]!.seq;
    // Every seq from 1 to the listening line's, nothing missing: the listening line first, then the rest in order.
    expect(lines.slice(0, listeningSeq).map((entry) => entry.seq)).toEqual([listeningSeq, ...Array.from({ length: listeningSeq - 1 }, (_, i) => i + 1)]);
    expect(lines[1]).toMatchObject({ seq: 1, kind: 'log', message: expect.stringMatching(/cookies\.json.*corrupt/) });
    expect((await readdir(join(work, 'state'))).some((file) => file.startsWith('cookies.json.corrupt-'))).toBe(true);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});
