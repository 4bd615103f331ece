// The TUI's body memory: 5,000 responses of 1 MiB (the default --max-body-size) folded into the
// TUI's store, as the proxy journals them, with the default --body-memory (256 MiB) and, side by
// side, with no bound. Prints RSS and the bytes held; the bound must hold whatever the traffic.
//   node --import tsx bench/tui-bodies.ts [requests]
import { Journal } from '../src/engine/journal.js';
import { TrafficStore } from '../src/ui/store/traffic-store.js';

const REQUESTS = Number(process.argv[2] ?? 5000);
const BODY = 1024 * 1024;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

function run(label: string, maxBodyBytes: number, requests: number): void {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  const journal = new Journal({ keep: 100 });
  const store = new TrafficStore({ flushIntervalMs: 0, maxRequests: 5000, maxBodyBytes });
  store.attach(journal);
  const started = performance.now();
  let peak = before;
  for (let index = 0; index < requests; index++) {
    const requestId = String(index);
    const body = new Uint8Array(BODY).fill(120); // each response its own buffer, as the proxy makes them
    journal.append({
      kind: 'webRequest',
      event: 'onBeforeRequest',
      details: { requestId, url: `http://bench.test/${index}`, method: 'GET', frameId: 0, parentFrameId: -1, tabId: -1, type: 'xmlhttprequest', timeStamp: Date.now() },
      outcomes: [],
    } as never);
    journal.append({ kind: 'body', requestId, direction: 'response', url: `http://bench.test/${index}`, bytes: body, complete: true, size: BODY });
    if (index % 100 === 0) {
      store.flush();
      peak = Math.max(peak, process.memoryUsage().rss);
    }
  }
  store.flush();
  const ms = performance.now() - started;
  peak = Math.max(peak, process.memoryUsage().rss);
  const budget = store.bodyBudget;
  process.stdout.write(
    `${label.padEnd(22)} ${String(requests).padStart(5)} × 1 MiB  held ${mb(budget.bytes).padStart(7)}  dropped ${String(budget.dropped).padStart(5)}  RSS ${mb(before)} → peak ${mb(peak)} (+${mb(peak - before)})  ${(ms / requests).toFixed(3)} ms/body\n`,
  );
  store.close();
}

run('--body-memory 256', 256 * 1024 * 1024, REQUESTS);
// Unbounded only as far as this machine comfortably goes: the point is the slope.
run('no bound (for contrast)', Number.POSITIVE_INFINITY, Math.min(REQUESTS, 1000));
