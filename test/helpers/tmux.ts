// A tmux server of a test's own (its socket in the test's folder), to run the real `wrtui` in a
// real terminal and read the screen back with capture-pane.
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const WRTUI_BIN = join(process.cwd(), 'bin/wrtui.js');

export function tmuxAvailable(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * `wrtui <args>` as a user starts it in a shell, then what the terminal shows after it left: its
 * exit status. CI sets CI=true, which makes Ink stop drawing frames as it goes: the pane runs
 * wrtui without it, as a user's terminal would.
 */
export function wrtuiCommand(args: readonly string[], env: Record<string, string> = {}): string {
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  return ['env -u CI -u CONTINUOUS_INTEGRATION', ...assignments, JSON.stringify(process.execPath), JSON.stringify(WRTUI_BIN), ...args.map((arg) => JSON.stringify(arg)), '; echo WRTUI_EXIT=$?; sleep 60'].join(' ');
}

export class Tmux {
  readonly #socket: string;

  /** The server's socket lives in `dir`. */
  constructor(dir: string) {
    this.#socket = join(dir, 'tmux.sock');
  }

  async command(...args: string[]): Promise<string> {
    const { stdout } = await run('tmux', ['-S', this.#socket, '-f', '/dev/null', ...args]);
    return stdout;
  }

  /** A detached session of `columns`×`rows` running `shellCommand` in `cwd`. */
  async start(session: string, columns: number, rows: number, cwd: string, shellCommand: string): Promise<void> {
    await this.command('new-session', '-d', '-s', session, '-x', String(columns), '-y', String(rows), '-c', cwd, shellCommand);
  }

  screen(session: string): Promise<string> {
    return this.command('capture-pane', '-p', '-t', session);
  }

  /** Polls the screen until `test` holds; fails with the screen when it never does. */
  async waitForScreen(session: string, test: (text: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      last = await this.screen(session).catch((error: Error) => `(capture failed: ${error.message})`);
      if (test(last)) return last;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`timed out waiting for ${what}; the screen:\n${last}`);
  }

  /** One key at a time: several in one write would reach the app as a single paste. */
  async press(session: string, ...keys: string[]): Promise<void> {
    for (const key of keys) {
      await this.command('send-keys', '-t', session, key);
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
  }

  async type(session: string, text: string): Promise<void> {
    await this.command('send-keys', '-t', session, '-l', text);
    await new Promise((resolve) => setTimeout(resolve, 60));
  }

  async close(): Promise<void> {
    await this.command('kill-server').catch(() => {});
  }
}
