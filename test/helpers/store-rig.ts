// The TUI's store fed by a real proxy: a proxy harness and an origin, with a TrafficStore attached
// to the engine's journal as the TUI attaches it. `record(url)` sends a request with curl, waits
// for its end and gives its record, ready for the detail tabs' line functions.
import type { CaptureProxyOptions } from '../../src/engine/capture/capture-proxy.js';
import type { RequestRecord } from '../../src/ui/store/request-record.js';
import { TrafficStore } from '../../src/ui/store/traffic-store.js';
import { startOrigin, type Origin } from './origin.js';
import { finished, requestIdOf, startProxyHarness, type ProxyHarness } from './proxy-harness.js';

export interface StoreRig {
  h: ProxyHarness;
  origin: Origin;
  store: TrafficStore;
  /** curl `args` then the URL (`origin.url` + path) through the proxy; the request's record once it ended. */
  record(path: string, args?: string[]): Promise<RequestRecord>;
  close(): Promise<void>;
}

export async function startStoreRig(handler: Parameters<typeof startOrigin>[0], proxy: Partial<CaptureProxyOptions> = {}): Promise<StoreRig> {
  const origin = await startOrigin(handler);
  const h = await startProxyHarness({ proxy });
  const store = new TrafficStore({ maxRequests: 100, flushIntervalMs: 0 });
  store.attach(h.engine.journal);
  return {
    h,
    origin,
    store,
    async record(path, args = ['-s', '-o', '/dev/null']) {
      const url = `${origin.url}${path}`;
      await h.curl([...args, url]);
      await finished(h, requestIdOf(h, url));
      store.flush();
      const found = store.all().find((candidate) => candidate.firstUrl === url);
      if (!found) throw new Error(`no record for ${url}`);
      return found;
    },
    async close() {
      store.close();
      await h.close();
      await origin.close();
    },
  };
}
