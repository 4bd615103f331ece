// The TUI on the terminal, whatever feeds it (a live capture session, a replay): the alternate
// screen, Ink rendering the App, quitting on q, Ctrl-C, SIGTERM, SIGINT or SIGHUP, the terminal
// restored on every way out (a crash included), and $EDITOR given the terminal and taken back.
import { render } from 'ink';
import { FrameCost } from './frame-cost.js';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TuiBackend } from './backend.js';
import { App } from './components/App.js';
import type { PerfProbe } from './perf-probe.js';
import type { TrafficStore } from './store/traffic-store.js';
import { enterFullScreen } from './terminal-screen.js';

export class TuiUnavailableError extends Error {}

export interface ScreenSession {
  /** Why the user left: 'quit', a signal's name, 'the screen closed'. */
  readonly stopped: Promise<string>;
  /** Unmounts the App and restores the terminal (idempotent). */
  close(): void;
}

/** Throws TuiUnavailableError unless stdin and stdout are a terminal. */
export function requireTerminal(otherwise: string): void {
  if (!process.stdout.isTTY || !process.stdin.isTTY) throw new TuiUnavailableError(`the TUI needs a terminal on stdin and stdout; ${otherwise}`);
}

/**
 * Shows the App for `store` on the terminal. `makeBackend` gets the editor function (it needs the
 * screen, which needs the backend). `onCrash` runs before the process exits on a crash.
 */
export function startScreenSession(options: {
  store: TrafficStore;
  makeBackend: (editText: NonNullable<TuiBackend['editText']>) => TuiBackend;
  probe?: PerfProbe | undefined;
  onCrash?: () => void;
}): { session: ScreenSession; backend: TuiBackend } {
  const { stdout, stdin } = process;
  const { store } = options;
  let screen = enterFullScreen(stdout);
  const editText = async (text: string, fileName: string): Promise<string | undefined> => {
    const editor = process.env.VISUAL || process.env.EDITOR;
    if (!editor) return undefined;
    const dir = await mkdtemp(join(tmpdir(), 'wrtui-edit-'));
    const file = join(dir, fileName);
    await writeFile(file, text, { mode: 0o600 }); // it holds the request's headers: cookies, tokens
    // The editor gets the terminal as a shell would give it: cooked, the main screen, every key.
    // Not spawnSync: the proxy and the rules go on serving while the user edits. The UI does not
    // draw (the store is held) and does not read the keys (Ink's reader is detached, stdin paused).
    const inkReaders = stdin.listeners('readable') as ((...args: unknown[]) => void)[];
    store.hold(true);
    screen.restore();
    for (const reader of inkReaders) stdin.off('readable', reader);
    stdin.pause();
    if (stdin.isTTY) stdin.setRawMode(false);
    try {
      const code = await new Promise<number | null>((resolveExit, rejectExit) => {
        const child = spawn(editor, [file], { stdio: 'inherit', shell: true });
        child.once('error', rejectExit);
        child.once('exit', (exitCode) => resolveExit(exitCode));
      });
      if (code !== 0) throw new Error(`${editor} exited with status ${code}`);
      return await readFile(file, 'utf8');
    } finally {
      if (stdin.isTTY) stdin.setRawMode(true);
      for (const reader of inkReaders) stdin.on('readable', reader);
      stdin.resume();
      screen = enterFullScreen(stdout);
      store.hold(false); // redraw everything on the screen we are back on
      store.touch();
      await rm(dir, { recursive: true, force: true });
    }
  };
  const backend = options.makeBackend(editText);

  let stop: (reason: string) => void = () => {};
  const stopped = new Promise<string>((resolveStop) => (stop = resolveStop));
  const onSignal = (signal: NodeJS.Signals) => stop(signal);
  const onCrash = (error: unknown) => {
    // Never leave the user in a raw, alternate screen: restore first, then say what happened.
    screen.restore();
    options.onCrash?.();
    process.stderr.write(`wrtui crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);

  // The store paces its notifications by what frames cost (React's render plus Ink's drawing).
  const frameCost = new FrameCost((ms) => store.noteFrameCost(ms));
  const instance = render(<App store={store} backend={backend} onQuit={() => stop('quit')} frameCost={frameCost} />, {
    stdout,
    stdin,
    exitOnCtrlC: false, // Ctrl-C is the quit command, which cleans up
    patchConsole: false, // console.* already goes to the journal (console-capture.ts)
    maxFps: 30,
    // Not incrementalRendering: Ink 6.8's incremental mode moves the cursor one line short when
    // the frame ends with a newline (as ours does: it is one row shorter than the terminal), and
    // the screen drifts. The standard mode rewrites the frame, inside synchronized output.
    onRender: ({ renderTime }) => {
      frameCost.inkDrew(renderTime);
      options.probe?.countRender();
    },
  });
  // A component that throws ends Ink's render; wrtui must not go on behind a dead screen: treat
  // it as a crash (terminal restored, error printed, exit 1).
  instance.waitUntilExit().then(
    () => stop('the screen closed'),
    (error: unknown) => onCrash(error),
  );

  let closed = false;
  const session: ScreenSession = {
    stopped,
    close() {
      if (closed) return;
      closed = true;
      instance.unmount();
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(signal, onSignal);
      process.off('uncaughtException', onCrash);
      process.off('unhandledRejection', onCrash);
      screen.restore();
    },
  };
  return { session, backend };
}
