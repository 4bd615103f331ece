// The TUI on the terminal, whatever feeds it (a live capture session, a replay): the alternate
// screen, Ink rendering the App, quitting on q, Ctrl-C, SIGTERM, SIGINT or SIGHUP (stop-signals.ts)
// or when the terminal goes away (its window closed: EIO or the end of input), the terminal
// restored on every way out (a crash included), and $EDITOR given the terminal and taken back.
import { render } from 'ink';
import { FrameCost } from './frame-cost.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stdoutLines } from '../app/stdout-lines.js';
import { noteTerminalGone, onStopSignal } from '../app/stop-signals.js';
import type { TuiBackend } from './backend.js';
import { App } from './components/App.js';
import type { PerfProbe } from './perf-probe.js';
import type { TrafficStore } from './store/traffic-store.js';
import { enterFullScreen } from './terminal-screen.js';

export class TuiUnavailableError extends Error {}

export interface ScreenSession {
  /** Why the user left: 'quit', a signal's name, 'the screen closed', 'the terminal closed'. */
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
  /** Ask the terminal for mouse reports (clicks, the wheel). */
  mouse?: boolean;
  makeBackend: (editText: NonNullable<TuiBackend['editText']>) => TuiBackend;
  probe?: PerfProbe | undefined;
  onCrash?: () => void;
}): { session: ScreenSession; backend: TuiBackend } {
  const { stdout, stdin } = process;
  const { store } = options;
  let screen = enterFullScreen(stdout, { mouse: options.mouse ?? false });
  // The editor open now, if any: wrtui stopping (a signal, a crash) ends it and removes its file
  // at once, since the process may exit before the edit's own clean-up runs.
  let editing: { child?: ChildProcess; dir: string; ended?: true } | undefined;
  const endEditing = () => {
    if (!editing) return;
    editing.ended = true;
    editing.child?.kill('SIGTERM');
    rmSync(editing.dir, { recursive: true, force: true });
    editing = undefined;
  };
  const editText = async (text: string, fileName: string): Promise<string | undefined> => {
    const editor = process.env.VISUAL || process.env.EDITOR;
    if (!editor) return undefined;
    const dir = await mkdtemp(join(tmpdir(), 'wrtui-edit-'));
    const mine: NonNullable<typeof editing> = { dir };
    editing = mine;
    const file = join(dir, fileName);
    await writeFile(file, text, { mode: 0o600 }); // it holds the request's headers: cookies, tokens
    // The editor gets the terminal as a shell would give it: cooked, the main screen, every key.
    // Not spawnSync: the proxy and the rules go on serving while the user edits. The UI does not
    // draw (the store is held) and does not read the keys (Ink's reader is detached, stdin paused).
    store.hold(true);
    screen.restore();
    const input = lendTerminalInput(stdin);
    try {
      const code = await new Promise<number | null>((resolveExit, rejectExit) => {
        const child = spawn(editor, [file], { stdio: 'inherit', shell: true });
        mine.child = child;
        child.once('error', rejectExit);
        child.once('exit', (exitCode) => resolveExit(exitCode));
      });
      if (code !== 0) throw new Error(`${editor} exited with status ${code}`);
      return await readFile(file, 'utf8');
    } finally {
      // Ended because wrtui is stopping: the terminal is already restored for good.
      if (!mine.ended) {
        input.takeBack();
        screen = enterFullScreen(stdout, { mouse: options.mouse ?? false });
        store.hold(false); // redraw everything on the screen we are back on
        store.touch();
      }
      if (editing === mine) editing = undefined;
      await rm(dir, { recursive: true, force: true });
    }
  };
  const backend = options.makeBackend(editText);

  let stop: (reason: string) => void = () => {};
  const stopped = new Promise<string>((resolveStop) => (stop = resolveStop));
  // A terminal that closed cannot be drawn on or read: stop as on SIGHUP (which may come just
  // before or after). The listeners stay: writes and raw-mode changes during the stop fail too.
  const terminalClosed = () => {
    noteTerminalGone();
    stop('the terminal closed');
  };
  stdin.once('end', terminalClosed);
  stdin.on('error', terminalClosed);
  stdoutLines().onGone(terminalClosed);
  const onCrash = (error: unknown) => {
    // Never leave the user in a raw, alternate screen: restore first, then say what happened.
    endEditing();
    screen.restore();
    options.onCrash?.();
    process.stderr.write(`wrtui crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  };
  const noStopSignal = onStopSignal((signal) => stop(signal));
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
      endEditing();
      instance.unmount();
      // A signal from now on finds the stop under way; a second one kills (stop-signals.ts).
      noStopSignal();
      process.off('uncaughtException', onCrash);
      process.off('unhandledRejection', onCrash);
      screen.restore();
    },
  };
  return { session, backend };
}

type Reader = (...args: unknown[]) => void;

/**
 * Lends the terminal's input to a child (the editor): cooked mode, and nothing of ours reading. Ink may
 * ask for raw mode or attach its reader again meanwhile (a component that re-renders, a notice
 * that expires: seen once in CI, the editor's Enter went unread); such requests are noted and
 * applied only when the input is taken back.
 */
function lendTerminalInput(stdin: NodeJS.ReadStream): { takeBack(): void } {
  const readers = new Set(stdin.listeners('readable') as Reader[]);
  for (const reader of readers) stdin.off('readable', reader);
  stdin.pause();
  // pause() does not stop a TTY stream's handle from reading: it would go on draining the terminal
  // and take the keys (the editor's Enter) the child is waiting for. Stop it as net.Socket's own
  // pause() does for its onread mode, and start it again when the input comes back (the stream's
  // own bookkeeping still counts a read in flight and would not).
  const handle = (stdin as unknown as { _handle?: { reading?: boolean; readStop?: () => number; readStart?: () => number } })._handle;
  const stopped = handle?.reading === true && typeof handle.readStop === 'function' && typeof handle.readStart === 'function';
  if (stopped) {
    handle.reading = false;
    handle.readStop!();
  }
  const setRawMode = stdin.setRawMode;
  const on = stdin.on;
  const addListener = stdin.addListener;
  if (stdin.isTTY) setRawMode.call(stdin, false);
  let raw = true;
  stdin.setRawMode = (mode: boolean) => ((raw = mode), stdin);
  const noteListener = (original: typeof stdin.on) =>
    function (this: NodeJS.ReadStream, event: string | symbol, listener: Reader) {
      if (event === 'readable') {
        readers.add(listener);
        return stdin;
      }
      return (original as (event: string | symbol, listener: Reader) => NodeJS.ReadStream).call(this, event, listener);
    } as typeof stdin.on;
  stdin.on = noteListener(on);
  stdin.addListener = noteListener(addListener);
  return {
    takeBack() {
      stdin.setRawMode = setRawMode;
      stdin.on = on;
      stdin.addListener = addListener;
      if (stdin.isTTY) setRawMode.call(stdin, raw);
      if (stopped && !handle.reading) {
        handle.reading = true;
        handle.readStart!();
      }
      for (const reader of readers) if (!stdin.listeners('readable').includes(reader)) stdin.on('readable', reader);
      stdin.resume();
    },
  };
}
