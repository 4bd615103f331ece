// The TUI's App drawn with ink-testing-library over a real capture session (proxy-harness.ts): the
// journal it folds is exactly what live traffic through wrtui's proxy journals.
import { render } from 'ink-testing-library';
import type { CaptureProxyOptions } from '../../src/engine/capture/capture-proxy.js';
import type { TuiBackend } from '../../src/ui/backend.js';
import { stripAnsi } from '../../src/ui/ansi.js';
import { App } from '../../src/ui/components/App.js';
import { createEngineBackend } from '../../src/ui/session-backend.js';
import { TrafficStore } from '../../src/ui/store/traffic-store.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';
import { tick } from './ui-harness.js';

export interface ProxyScreen {
  h: ProxyHarness;
  store: TrafficStore;
  backend: TuiBackend;
  /** The last frame without colours. */
  frame(): string;
  /** Types keys, one chunk each, letting Ink and React settle after each. */
  press(...keys: string[]): Promise<void>;
  /** Polls until the frame contains `text` (or the predicate holds). */
  waitFor(test: string | ((frame: string) => boolean), timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

export interface ProxyScreenOptions {
  proxy?: Partial<CaptureProxyOptions>;
  /** The session's harness, when the test made it itself (the screen then does not close it). */
  harness?: ProxyHarness;
  /** Changes the backend the App is given (a fault, a replay's). */
  backend?: (live: TuiBackend) => TuiBackend;
  size?: { columns: number; rows: number };
}

export async function startProxyScreen(options: ProxyScreenOptions = {}): Promise<ProxyScreen> {
  const h = options.harness ?? (await startProxyHarness({ proxy: { journalBodies: true, ...options.proxy } }));
  const live = createEngineBackend({
    engine: h.engine,
    rules: undefined,
    proxyUrl: h.proxy.url,
    incognitoProxyUrl: undefined,
    ca: { certPath: h.ca.certPath, created: false, warnings: [] },
    stateDir: h.stateDir,
    mode: 'live',
    writeToTerminal: () => {},
  });
  const backend = options.backend ? options.backend(live) : live;
  const store = new TrafficStore({ maxRequests: 1000, flushIntervalMs: 0 });
  store.attach(backend.journal);
  const terminal = render(<App store={store} backend={backend} onQuit={() => {}} size={options.size ?? { columns: 120, rows: 40 }} noticeMs={60_000} />);
  const settle = async () => {
    store.flush();
    await tick();
    await tick();
  };
  const screen: ProxyScreen = {
    h,
    store,
    backend,
    frame: () => stripAnsi(terminal.lastFrame() ?? ''),
    async press(...keys) {
      for (const key of keys) {
        terminal.stdin.write(key);
        await tick();
      }
      await settle();
    },
    async waitFor(test, timeoutMs = 5000) {
      const check = typeof test === 'string' ? (frame: string) => frame.includes(test) : test;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await settle();
        const frame = screen.frame();
        if (check(frame)) return frame;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(test)}; the frame:\n${frame}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      terminal.unmount();
      store.close();
      live.breakpoints?.close();
      if (!options.harness) await h.close();
    },
  };
  // Ink subscribes to stdin in an effect: wait a tick before the first key.
  await tick();
  await settle();
  return screen;
}
