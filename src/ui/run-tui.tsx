// `wrtui` (the default command): the capture session, the rules, and the Ink TUI on the
// alternate screen. The journal feeds a TrafficStore that notifies the UI at most ~30 times a
// second; console and stderr output go to the log view; quitting (q, Ctrl-C, SIGTERM, SIGINT,
// SIGHUP) restores the terminal, stops the rules and the proxy, and writes the cookie store.
import { render } from 'ink';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchBrowser, type BrowserOptions, type LaunchedBrowser } from '../app/browser-launch.js';
import { announceListening, startCaptureSession, type SessionOptions } from '../app/capture-session.js';
import { App } from './components/App.js';
import { PERF_LOG_ENV, startPerfProbe, type PerfProbe } from './perf-probe.js';
import { createSessionBackend } from './session-backend.js';
import { captureStderr } from './stderr-capture.js';
import { DEFAULT_MAX_REQUESTS, TrafficStore } from './store/traffic-store.js';
import { enterFullScreen } from './terminal-screen.js';

export interface TuiOptions extends SessionOptions {
  /** Requests kept in memory (--max-requests); the oldest are dropped. */
  maxRequests?: number;
  /** Body bytes the TUI holds (--body-memory); the oldest bodies are let go past it. */
  maxBodyBytes?: number;
  /** `wrtui browser`: a Chromium of the session's own, closed with it. */
  browser?: Pick<BrowserOptions, 'url' | 'executable' | 'headless'>;
}

export class TuiUnavailableError extends Error {}

export async function runTui(options: TuiOptions): Promise<void> {
  const { stdout, stdin } = process;
  if (!stdout.isTTY || !stdin.isTTY) {
    throw new TuiUnavailableError('the TUI needs a terminal on stdin and stdout; for pipes and scripts use `wrtui headless` (--json for NDJSON)');
  }

  // Started before the screen changes, so that "port in use" and CA problems print plainly. It
  // loads the rules too (--rules, watched unless --no-watch) before the proxies serve anything.
  const session = await startCaptureSession({ ...options, showBodies: true });
  const { engine } = session;
  const store = new TrafficStore({ maxRequests: options.maxRequests ?? DEFAULT_MAX_REQUESTS, tickMs: 1000, ...(options.maxBodyBytes !== undefined && { maxBodyBytes: options.maxBodyBytes }) });
  store.attach(engine.journal);
  const restoreStderr = captureStderr(engine.journal);
  announceListening(session, options);
  let browser: LaunchedBrowser | undefined;
  if (options.browser) {
    try {
      browser = await launchBrowser({
        ...options.browser,
        proxyUrl: session.proxy.url,
        spkiFingerprint: session.ca.spkiFingerprint,
        onExit: (description) => engine.journal.append({ kind: 'log', level: 'info', source: 'browser', message: `${description}; wrtui goes on (q quits)` }),
      });
      engine.journal.append({ kind: 'log', level: 'info', source: 'browser', message: `started ${browser.executable} with a fresh profile through ${session.proxy.url}, trusting wrtui's CA by its SPKI pin` });
    } catch (error) {
      await session.close();
      restoreStderr();
      throw error;
    }
  }

  // Set once the screen is ours: an editor gets the terminal, then the screen comes back.
  let editInTerminal: ((text: string, fileName: string) => Promise<string | undefined>) | undefined;
  const backend = createSessionBackend({
    session,
    stateDir: options.stateDir,
    writeToTerminal: (data) => stdout.write(data),
    editText: (text, fileName) => editInTerminal?.(text, fileName) ?? Promise.resolve(undefined),
  });

  const perfFile = process.env[PERF_LOG_ENV];
  const probe: PerfProbe | undefined = perfFile
    ? startPerfProbe({ file: resolve(perfFile), label: 'tui', extra: () => ({ requestsSeen: store.seenCount, requestsKept: store.all().length, dropped: store.droppedCount, flushIntervalMs: Math.round(store.flushIntervalMs) }) })
    : undefined;

  // React's development build (what runs unless NODE_ENV=production) records a performance.measure
  // entry per component render, and Node keeps every entry: hundreds of MB an hour at 30 frames a
  // second (facebook/react#35761). wrtui reads no performance entries; drop them as they come.
  const dropTimings = setInterval(() => {
    performance.clearMeasures();
    performance.clearMarks();
  }, 1000);
  dropTimings.unref();

  let screen = enterFullScreen(stdout);
  editInTerminal = async (text, fileName) => {
    const editor = process.env.VISUAL || process.env.EDITOR;
    if (!editor) return undefined;
    const dir = await mkdtemp(join(tmpdir(), 'wrtui-edit-'));
    const file = join(dir, fileName);
    await writeFile(file, text, { mode: 0o600 }); // it holds the request's headers: cookies, tokens
    try {
      // The editor gets the terminal as a shell would give it: cooked, main screen; Ink waits.
      screen.restore();
      if (stdin.isTTY) stdin.setRawMode(false);
      const result = spawnSync(editor, [file], { stdio: 'inherit', shell: true });
      if (result.error) throw result.error;
      if (result.status !== 0) throw new Error(`${editor} exited with status ${result.status}`);
      return await readFile(file, 'utf8');
    } finally {
      if (stdin.isTTY) stdin.setRawMode(true);
      screen = enterFullScreen(stdout);
      store.touch(); // redraw everything on the screen we are back on
      await rm(dir, { recursive: true, force: true });
    }
  };
  let stop: (reason: string) => void = () => {};
  const stopped = new Promise<string>((resolveStop) => (stop = resolveStop));
  const onSignal = (signal: NodeJS.Signals) => stop(signal);
  const onCrash = (error: unknown) => {
    // Never leave the user in a raw, alternate screen: restore first, then say what happened.
    screen.restore();
    restoreStderr();
    process.stderr.write(`wrtui crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);

  // A frame's cost is React's render (onCommitted) plus Ink's drawing (onRender); the store paces
  // its notifications by it.
  let reactMs = 0;
  const app = <App store={store} backend={backend} onQuit={() => stop('quit')} onCommitted={(ms) => (reactMs += ms)} />;
  const instance = render(app, {
    stdout,
    stdin,
    exitOnCtrlC: false, // Ctrl-C is the quit command, which cleans up
    patchConsole: false, // console.* already goes to the journal (console-capture.ts)
    maxFps: 30,
    // Not incrementalRendering: Ink 6.8's incremental mode moves the cursor one line short when
    // the frame ends with a newline (as ours does: it is one row shorter than the terminal), and
    // the screen drifts. The standard mode rewrites the frame, inside synchronized output.
    onRender: ({ renderTime }) => {
      store.noteFrameCost(reactMs + renderTime);
      reactMs = 0;
      probe?.countRender();
    },
  });

  // A component that throws ends Ink's render; wrtui must not go on as a proxy behind a dead
  // screen: treat it as a crash (terminal restored, error printed, exit 1).
  instance.waitUntilExit().then(
    () => stop('the screen closed'),
    (error: unknown) => onCrash(error),
  );

  const reason = await stopped;
  try {
    engine.journal.append({ kind: 'log', level: 'info', source: 'wrtui', message: `stopping (${reason})` });
    instance.unmount();
    screen.restore();
    store.close();
    probe?.stop();
    clearInterval(dropTimings);
    backend.breakpoints?.close(); // paused requests go on unchanged: nobody is left to answer them
    await browser?.close(); // the browser goes with wrtui, its profile too
    await session.close(); // stops the proxies and the rules, writes the cookie store (and the recording)
  } finally {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(signal, onSignal);
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    screen.restore();
    restoreStderr();
  }
  process.stdout.write(`wrtui stopped: ${store.seenCount} requests seen; cookie store saved in ${resolve(options.stateDir)}\n`);
}
