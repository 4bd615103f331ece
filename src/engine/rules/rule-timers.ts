// The timers a rule's code sees. A browser stops an unloaded extension's timers with its page;
// Node cannot unload a module, so each loaded version of a rule gets timers it owns, and unloading
// that version clears them: an old version's setInterval does not keep running after a reload.
export interface RuleTimers {
  setTimeout: typeof globalThis.setTimeout;
  clearTimeout: typeof globalThis.clearTimeout;
  setInterval: typeof globalThis.setInterval;
  clearInterval: typeof globalThis.clearInterval;
  setImmediate: typeof globalThis.setImmediate;
  clearImmediate: typeof globalThis.clearImmediate;
  /** Clears every pending timer; later calls schedule nothing. */
  dispose(): void;
  /** How many timers are pending. */
  readonly pending: number;
}

type Handle = NodeJS.Timeout | NodeJS.Immediate;

export function createRuleTimers(): RuleTimers {
  const timeouts = new Set<NodeJS.Timeout>();
  const immediates = new Set<NodeJS.Immediate>();
  let disposed = false;

  // A cleared handle, for code that calls .unref() or clearTimeout() on what it got back.
  const inert = (): NodeJS.Timeout => {
    const handle = globalThis.setTimeout(() => {}, 0);
    globalThis.clearTimeout(handle);
    return handle;
  };

  const timers = {
    setTimeout: ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      if (disposed) return inert();
      const handle = globalThis.setTimeout(() => {
        timeouts.delete(handle);
        callback(...args);
      }, ms);
      timeouts.add(handle);
      return handle;
    }) as typeof globalThis.setTimeout,
    setInterval: ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      if (disposed) return inert();
      const handle = globalThis.setInterval(callback, ms, ...args);
      timeouts.add(handle);
      return handle;
    }) as typeof globalThis.setInterval,
    setImmediate: ((callback: (...args: unknown[]) => void, ...args: unknown[]) => {
      if (disposed) return globalThis.setImmediate(() => {});
      const handle = globalThis.setImmediate(() => {
        immediates.delete(handle);
        callback(...args);
      });
      immediates.add(handle);
      return handle;
    }) as typeof globalThis.setImmediate,
    clearTimeout: ((handle?: Handle | string | number) => {
      timeouts.delete(handle as NodeJS.Timeout);
      globalThis.clearTimeout(handle as NodeJS.Timeout);
    }) as typeof globalThis.clearTimeout,
    clearInterval: ((handle?: Handle | string | number) => {
      timeouts.delete(handle as NodeJS.Timeout);
      globalThis.clearInterval(handle as NodeJS.Timeout);
    }) as typeof globalThis.clearInterval,
    clearImmediate: ((handle?: NodeJS.Immediate) => {
      if (handle) immediates.delete(handle);
      globalThis.clearImmediate(handle);
    }) as typeof globalThis.clearImmediate,
    dispose() {
      disposed = true;
      for (const handle of timeouts) globalThis.clearTimeout(handle);
      for (const handle of immediates) globalThis.clearImmediate(handle);
      timeouts.clear();
      immediates.clear();
    },
    get pending() {
      return timeouts.size + immediates.size;
    },
  };
  return timers;
}
