// `wrtui` (the default command): the capture session, the rules, and the Ink TUI on the
// alternate screen. The journal feeds a TrafficStore that notifies the UI at most ~30 times a
// second; console and stderr output go to the log view; quitting (q, Ctrl-C, SIGTERM, SIGINT,
// SIGHUP, the terminal closing) restores the terminal, stops the rules and the proxy, and writes
// the cookie store and the recording.
import { resolve } from 'node:path';
import { launchBrowser, type BrowserOptions, type LaunchedBrowser } from '../app/browser-launch.js';
import { attachOptions } from '../app/browser-attach-session.js';
import { launchFirefox } from '../app/firefox-launch.js';
import { announceListening, startCaptureSession, type SessionOptions } from '../app/capture-session.js';
import { recordedClause } from '../app/record-session.js';
import { stdoutLines } from '../app/stdout-lines.js';
import { PERF_LOG_ENV, startPerfProbe, type PerfProbe } from './perf-probe.js';
import { createSessionBackend } from './session-backend.js';
import { captureStderr } from './stderr-capture.js';
import { DEFAULT_MAX_REQUESTS, TrafficStore } from './store/traffic-store.js';
import { installFastInkOutput } from './ink-fast-output.js';
import { mouseWanted } from './mouse.js';
import { requireTerminal, startScreenSession } from './screen-session.js';

export { TuiUnavailableError } from './screen-session.js';

export interface TuiOptions extends SessionOptions {
  /** Requests kept in memory (--max-requests); the oldest are dropped. */
  maxRequests?: number;
  /** Body bytes the TUI holds (--body-memory); the oldest bodies are let go past it. */
  maxBodyBytes?: number;
  /** Clicks and the wheel (--no-mouse: off). */
  mouse?: boolean;
  /** `wrtui browser`: a Chromium (or with `firefox`, a Firefox) of the session's own, closed with it. */
  browser?: Pick<BrowserOptions, 'url' | 'executable' | 'headless'> & { firefox?: boolean };
}

export async function runTui(options: TuiOptions): Promise<void> {
  requireTerminal('for pipes and scripts use `wrtui headless` (--json for NDJSON)');

  // Started before the screen changes, so that "port in use" and CA problems print plainly. It
  // loads the rules too (--rules, watched unless --no-watch) before the proxies serve anything.
  const session = await startCaptureSession({ ...options, showBodies: true, ...(options.browser && { attachedBrowser: true }) });
  const { engine } = session;
  const store = new TrafficStore({ maxRequests: options.maxRequests ?? DEFAULT_MAX_REQUESTS, tickMs: 1000, ...(options.maxBodyBytes !== undefined && { maxBodyBytes: options.maxBodyBytes }) });
  store.attach(engine.journal);
  const restoreStderr = captureStderr(engine.journal);
  announceListening(session, options);
  let browser: LaunchedBrowser | undefined;
  if (options.browser) {
    try {
      const { firefox, ...chosen } = options.browser;
      const onExit = (description: string) => engine.journal.append({ kind: 'log', level: 'info', source: 'browser', message: `${description}; wrtui goes on (q quits)` });
      browser = firefox
        ? await launchFirefox({ ...chosen, proxyUrl: session.proxy.url, onExit, attach: attachOptions(session.proxy, engine) })
        : await launchBrowser({ ...chosen, proxyUrl: session.proxy.url, spkiFingerprint: session.ca.spkiFingerprint, onExit, attach: attachOptions(session.proxy, engine) });
      const how = firefox
        ? "accepting the certificates wrtui's proxy shows it (WebDriver BiDi's acceptInsecureCerts: every connection goes through wrtui), attached over WebDriver BiDi on 127.0.0.1"
        : "trusting wrtui's CA by its SPKI pin, attached over its DevTools pipe";
      engine.journal.append({ kind: 'log', level: 'info', source: 'browser', message: `started ${browser.executable} with a fresh profile through ${session.proxy.url}, ${how} (types, frames and tabs come from the browser)` });
    } catch (error) {
      await session.close();
      restoreStderr();
      throw error;
    }
  }

  const perfFile = process.env[PERF_LOG_ENV];
  const probe: PerfProbe | undefined = perfFile
    ? startPerfProbe({ file: resolve(perfFile), label: 'tui', extra: () => ({ requestsSeen: store.seenCount, requestsKept: store.all().length, dropped: store.droppedCount, flushIntervalMs: Math.round(store.flushIntervalMs), frameCostMs: Math.round(store.frameCostMs * 10) / 10 }) })
    : undefined;
  const dropTimings = dropPerformanceEntries();

  await installFastInkOutput(); // Ink's frames, composed with less work (see ink-fast-output.ts)
  const { session: screen, backend } = startScreenSession({
    store,
    mouse: mouseWanted(options.mouse),
    probe,
    onCrash: restoreStderr,
    makeBackend: (editText) => createSessionBackend({ session, stateDir: options.stateDir, writeToTerminal: (data) => process.stdout.write(data), editText }),
  });
  const reason = await screen.stopped;
  try {
    engine.journal.append({ kind: 'log', level: 'info', source: 'wrtui', message: `stopping (${reason})` });
    screen.close();
    store.close();
    probe?.stop();
    clearInterval(dropTimings);
    backend.breakpoints?.close(); // paused requests go on unchanged: nobody is left to answer them
    await browser?.close(); // the browser goes with wrtui, its profile too
    await session.close(); // stops the proxies and the rules, writes the cookie store (and the recording)
  } finally {
    screen.close();
    restoreStderr();
  }
  // Nowhere to show it when the terminal closed (stdoutLines then drops it).
  stdoutLines().write(`wrtui stopped: ${store.seenCount} requests seen; cookie store saved in ${resolve(options.stateDir)}${recordedClause(session.recorder)}`);
}

/**
 * React's development build (what runs unless NODE_ENV=production) records a performance.measure
 * entry per component render, and Node keeps every entry: hundreds of MB an hour at 30 frames a
 * second (facebook/react#35761). wrtui reads no performance entries; drop them as they come.
 */
export function dropPerformanceEntries(): NodeJS.Timeout {
  const timer = setInterval(() => {
    performance.clearMeasures();
    performance.clearMarks();
  }, 1000);
  timer.unref();
  return timer;
}
