// Renders the TUI's App with ink-testing-library over a real Engine (no proxy): requests are
// driven through the engine's own lifecycle with a scripted origin, so the journal entries are
// the ones a live session produces.
import { render } from 'ink-testing-library';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../../src/engine/engine.js';
import type { RuleStatus } from '../../src/engine/extensions/extension-host.js';
import type { TuiBackend, RulesControl } from '../../src/ui/backend.js';
import { stripAnsi } from '../../src/ui/ansi.js';
import { App } from '../../src/ui/components/App.js';
import { createEngineBackend } from '../../src/ui/session-backend.js';
import { TrafficStore } from '../../src/ui/store/traffic-store.js';
import { createEngineDriver, type EngineDriver, type RequestOptions, type Route } from './engine-driver.js';

export { respond } from './engine-driver.js';

export const KEYS = {
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  enter: '\r',
  escape: '\x1b',
  tab: '\t',
  shiftTab: '\x1b[Z',
  backspace: '\x7f',
  pageUp: '\x1b[5~',
  pageDown: '\x1b[6~',
  home: '\x1b[H',
  end: '\x1b[F',
  ctrlC: '\x03',
  ctrlU: '\x15',
} as const;

export interface Harness {
  engine: Engine;
  driver: EngineDriver;
  store: TrafficStore;
  backend: TuiBackend;
  terminal: ReturnType<typeof render>;
  written: string[];
  quits: number;
  /** Sends a request through the engine's lifecycle; resolves when it ended. */
  request(url: string, options?: RequestOptions): Promise<void>;
  /** The last frame without colours. */
  frame(): string;
  /** Types keys, one chunk each, letting Ink and React settle after each. */
  press(...keys: string[]): Promise<void>;
  /** Flushes the store and waits for the redraw. */
  settle(): Promise<void>;
  /** Polls until `test` holds. */
  waitUntil(test: () => boolean, timeoutMs?: number): Promise<void>;
  /** Polls until the frame contains `text` (or the predicate holds). */
  waitFor(test: string | ((frame: string) => boolean), timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  size?: { columns: number; rows: number };
  maxRequests?: number;
  /** The store's clock tick (ms), as run-tui's 1 s; off by default. */
  tickMs?: number;
  rules?: RuleStatus[];
  rulesControl?: RulesControl;
  route?: Route;
  stateDir?: string;
  /** --upstream-proxy as the status bar shows it. */
  upstreamProxy?: string;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const driver = await createEngineDriver(options.route);
  const { engine } = driver;
  const store = new TrafficStore({ maxRequests: options.maxRequests ?? 1000, flushIntervalMs: 0, ...(options.tickMs !== undefined && { tickMs: options.tickMs }) });
  store.attach(engine.journal);
  const written: string[] = [];
  const rulesControl: RulesControl | undefined =
    options.rulesControl ?? (options.rules ? { list: () => options.rules!, onChange: () => () => {}, reload: async (name) => options.rules!.find((rule) => rule.name === name)!, setDryRun: (name) => options.rules!.find((rule) => rule.name === name)! } : undefined);
  const backend = createEngineBackend({
    engine,
    rules: rulesControl,
    proxyUrl: 'http://127.0.0.1:8080',
    incognitoProxyUrl: 'http://127.0.0.1:8081',
    ...(options.upstreamProxy !== undefined && { upstreamProxy: options.upstreamProxy }),
    ca: { certPath: '/tmp/wrtui-test/ca.pem', created: false, warnings: [] },
    stateDir: options.stateDir ?? join(tmpdir(), 'wrtui-ui-test'),
    mode: 'live',
    writeToTerminal: (data) => written.push(data),
  });
  const harness: Harness = {
    engine,
    driver,
    store,
    backend,
    written,
    quits: 0,
    terminal: undefined as unknown as ReturnType<typeof render>,
    async request(url, requestOptions) {
      await driver.request(url, requestOptions);
    },
    frame: () => stripAnsi(harness.terminal.lastFrame() ?? ''),
    async press(...keys) {
      for (const key of keys) {
        harness.terminal.stdin.write(key);
        await tick();
      }
      await harness.settle();
    },
    async settle() {
      store.flush();
      await tick();
      await tick();
    },
    async waitUntil(test, timeoutMs = 3000) {
      await harness.waitFor(() => test(), timeoutMs);
    },
    async waitFor(test, timeoutMs = 3000) {
      const check = typeof test === 'string' ? (frame: string) => frame.includes(test) : test;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await harness.settle();
        const frame = harness.frame();
        if (check(frame)) return frame;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(test)}; the frame:\n${frame}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      harness.terminal.unmount();
      store.close();
      await driver.close();
    },
  };
  harness.terminal = render(<App store={store} backend={backend} onQuit={() => harness.quits++} size={options.size ?? { columns: 100, rows: 30 }} noticeMs={60_000} />);
  // Ink subscribes to stdin in an effect: wait a tick before the first key.
  await tick();
  await harness.settle();
  return harness;
}

export function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
