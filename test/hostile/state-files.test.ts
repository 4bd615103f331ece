// State on disk under faults. Every file wrtui keeps in its state dir, when corrupt, truncated,
// empty or of the wrong shape, is never overwritten without a kept copy (`<file>.corrupt-<time>`,
// byte for byte), the problem is said in words naming both files (a journal warning: the TUI's log
// and headless output show it), and wrtui goes on with a fresh file. The CA pair is the exception:
// clients may trust it, so a broken pair is refused, never replaced. A `kill -9` in the middle of a
// storm of cookie writes never leaves an unreadable cookie file. Files are 0600, folders 0700.
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadOrCreateCertificateAuthority } from '../../src/engine/capture/certificate-authority.js';
import { Engine } from '../../src/engine/engine.js';
import { StorageAreas, storageFileOf } from '../../src/engine/extensions/storage-areas.js';
import { SessionIndex } from '../../src/engine/session/session-index.js';
import { SettingsFile } from '../../src/engine/session/settings.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function stateDir(): Promise<string> {
  dir = await mkdtemp(path.join(tmpdir(), 'wrtui-state-'));
  await chmod(dir, 0o700);
  return dir;
}

/** One kind of state file: where it lives, a wrong shape for it, and how wrtui opens it (returning the problems it reported). */
interface StateFile {
  name: string;
  file: (state: string) => string;
  wrongShape: string;
  open: (state: string) => Promise<string[]>;
  /** Makes wrtui write the file afresh, then returns its text. */
  rewrite: (state: string) => Promise<string>;
}

const EXTENSION_ID = 'abcdefghijklmnopabcdefghijklmnop';

const STATE_FILES: StateFile[] = [
  {
    name: 'cookies.json',
    file: (state) => path.join(state, 'cookies.json'),
    wrongShape: '{"format": "something else", "cookies": 42}',
    async open(state) {
      const engine = await Engine.open({ stateDir: state });
      const problems: string[] = [];
      // Problems found while opening are in the journal from seq 1 (every output replays them).
      engine.journal.subscribe((entry) => entry.kind === 'log' && entry.level === 'warn' && problems.push(entry.message), { fromStart: true });
      await engine.close();
      return problems;
    },
    async rewrite(state) {
      const engine = await Engine.open({ stateDir: state });
      engine.cookies.setFromResponse('https://fresh.example/', ['fresh=1; Max-Age=600'], '0');
      await engine.close();
      return readFile(path.join(state, 'cookies.json'), 'utf8');
    },
  },
  {
    name: 'sessions.json',
    file: (state) => path.join(state, 'sessions.json'),
    wrongShape: '{"format": "not-wrtui", "sessions": {}}',
    async open(state) {
      const problems: string[] = [];
      await SessionIndex.forStateDir(state, (message) => problems.push(message)).list();
      return problems;
    },
    async rewrite(state) {
      await SessionIndex.forStateDir(state).add({ file: '/tmp/x.ndjson', started: new Date().toISOString(), ended: null, requests: 0, redacted: false });
      return readFile(path.join(state, 'sessions.json'), 'utf8');
    },
  },
  {
    name: 'settings.json',
    file: (state) => path.join(state, 'settings.json'),
    wrongShape: '[1, 2, 3]',
    async open(state) {
      const problems: string[] = [];
      await SettingsFile.forStateDir(state, (message) => problems.push(message)).read();
      return problems;
    },
    async rewrite(state) {
      await SettingsFile.forStateDir(state).updateRecording({ redact: true });
      return readFile(path.join(state, 'settings.json'), 'utf8');
    },
  },
  {
    name: "an extension's storage.json",
    file: (state) => storageFileOf(state, EXTENSION_ID),
    wrongShape: '"a string, not items"',
    async open(state) {
      const problems: string[] = [];
      await StorageAreas.open(state, EXTENSION_ID, (message) => problems.push(message));
      return problems;
    },
    async rewrite(state) {
      const areas = await StorageAreas.open(state, EXTENSION_ID, () => {});
      areas.handle('set', 'local', [{ fresh: true }]);
      await areas.flush();
      return readFile(storageFileOf(state, EXTENSION_ID), 'utf8');
    },
  },
];

const FAULTS: { name: string; content: (file: StateFile) => string }[] = [
  { name: 'corrupt', content: () => '{"this is": not json at all' },
  { name: 'truncated', content: (file) => file.wrongShape.slice(0, Math.ceil(file.wrongShape.length / 2)) },
  { name: 'empty', content: () => '' },
  { name: 'of the wrong shape', content: (file) => file.wrongShape },
];

describe.each(STATE_FILES)('$name', (stateFile) => {
  it.each(FAULTS)('$name: kept aside byte for byte, said in words, and a fresh file written after', async (fault) => {
    const state = await stateDir();
    const file = stateFile.file(state);
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const content = fault.content(stateFile);
    await writeFile(file, content, { mode: 0o600 });

    const problems = await stateFile.open(state);
    const kept = (await readdir(path.dirname(file))).filter((name) => name.startsWith(`${path.basename(file)}.corrupt-`));
    expect(kept).toHaveLength(1);
    expect(await readFile(path.join(path.dirname(file), kept[0]!), 'utf8')).toBe(content);
    expect(problems).toEqual([expect.stringContaining(path.join(path.dirname(file), kept[0]!))]);
    expect(problems[0]).toContain(file);

    const fresh = await stateFile.rewrite(state);
    expect(() => JSON.parse(fresh)).not.toThrow();
    // The kept copy is still there, untouched.
    expect(await readFile(path.join(path.dirname(file), kept[0]!), 'utf8')).toBe(content);
  });
});

describe('the CA pair: refused when broken, never replaced (clients may trust it)', () => {
  it.each([
    ['a corrupt certificate', 'ca.pem', 'not a certificate', /ca\.pem is not a PEM certificate/],
    ['an empty key', 'ca.key', '', /ca\.key is not a PEM private key/],
  ])('%s', async (_name, broken, content, message) => {
    const state = await stateDir();
    await loadOrCreateCertificateAuthority(state);
    await writeFile(path.join(state, broken), content);
    const before = await Promise.all(['ca.pem', 'ca.key'].map((name) => readFile(path.join(state, name), 'utf8')));
    await expect(loadOrCreateCertificateAuthority(state)).rejects.toThrow(message);
    expect(await Promise.all(['ca.pem', 'ca.key'].map((name) => readFile(path.join(state, name), 'utf8')))).toEqual(before);
  });
});

describe('kill -9 during a storm of cookie writes', () => {
  it('never leaves an unreadable cookie file; the next start reads it (or starts clean) and removes the leftovers', { timeout: 60_000 }, async () => {
    const state = await stateDir();
    const script = `
      import { Engine } from ${JSON.stringify(path.resolve('src/engine/engine.ts'))};
      const engine = await Engine.open({ stateDir: ${JSON.stringify(state)} });
      let n = 0;
      const storm = () => {
        for (let i = 0; i < 50; i++) engine.cookies.setFromResponse('https://storm.example/', ['c' + (n++ % 500) + '=' + 'v'.repeat(100) + '; Max-Age=3600'], '0');
        setImmediate(storm);
      };
      process.send?.('storming');
      storm();
    `;
    for (let round = 0; round < 5; round++) {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
      await new Promise<void>((resolve, reject) => {
        child.once('message', () => resolve());
        child.once('exit', (code) => reject(new Error(`the storm ended early (${code})`)));
      });
      // Let a few writes (50 ms quiet, at most 1 s apart) happen, then cut it off mid-whatever.
      await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 900));
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      const text = await readFile(path.join(state, 'cookies.json'), 'utf8').catch(() => undefined);
      if (text !== undefined) expect(() => JSON.parse(text), `round ${round}: cookies.json is valid JSON`).not.toThrow();
      const engine = await Engine.open({ stateDir: state });
      const problems: string[] = [];
      engine.journal.subscribe((entry) => entry.kind === 'log' && entry.level === 'warn' && problems.push(entry.message), { fromStart: true });
      expect(problems, `round ${round}`).toEqual([]);
      await engine.close();
      expect((await readdir(state)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    }
  });
});

describe('permissions', () => {
  it('the CA key, cookies, recordings, settings, the index and extension storage are 0600; their folders 0700', { timeout: 30_000 }, async () => {
    const state = path.join(await stateDir(), 'state');
    await loadOrCreateCertificateAuthority(state);
    const engine = await Engine.open({ stateDir: state });
    engine.cookies.setFromResponse('https://perm.example/', ['kept=1; Max-Age=600'], '0');
    await engine.close();
    await SettingsFile.forStateDir(state).updateRecording({ redact: false });
    await SessionIndex.forStateDir(state).add({ file: '/tmp/y.ndjson', started: new Date().toISOString(), ended: null, requests: 0, redacted: false });
    const areas = await StorageAreas.open(state, EXTENSION_ID, () => {});
    areas.handle('set', 'local', [{ a: 1 }]);
    await areas.flush();
    const { SessionRecorder } = await import('../../src/engine/session/session-recorder.js');
    const recordingEngine = await Engine.open();
    const recorder = await SessionRecorder.start(recordingEngine, { file: path.join(state, '..', 'recording.ndjson'), redact: false, maxBodySize: 1024, stateDir: state });
    await recorder.close();
    await recordingEngine.close();

    const mode = async (file: string) => ((await stat(file)).mode & 0o777).toString(8);
    expect(await mode(state)).toBe('700');
    expect(await mode(path.join(state, 'extensions'))).toBe('700');
    expect(await mode(path.dirname(storageFileOf(state, EXTENSION_ID)))).toBe('700');
    for (const file of ['ca.key', 'cookies.json', 'settings.json', 'sessions.json', storageFileOf(state, EXTENSION_ID), path.join(state, '..', 'recording.ndjson')]) {
      expect([file, await mode(path.isAbsolute(file) ? file : path.join(state, file))]).toEqual([file, '600']);
    }
    // The certificate is meant to be copied to clients.
    expect(await mode(path.join(state, 'ca.pem'))).toBe('644');
  });
});
