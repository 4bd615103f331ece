// The Web platform globals Node's workers have, as a browser's scope has them, for a new realm's
// global object (the extension's, and each dedicated Worker's): taken from Node's global when the
// realm first touches them, a few replaced by the browser's own (fetch of the extension's files and
// through the proxy, BroadcastChannel within the extension's origin, abort() in the browser's
// words). Runs on the worker's Node side.

export const WEB_GLOBALS = [
  'URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'atob', 'btoa', 'fetch', 'Request', 'Response', 'Headers', 'FormData',
  'AbortController', 'AbortSignal', 'Event', 'EventTarget', 'MessageChannel', 'MessagePort', 'MessageEvent', 'BroadcastChannel', 'Blob', 'File',
  'DOMException', 'structuredClone', 'crypto', 'Crypto', 'CryptoKey', 'SubtleCrypto', 'performance', 'queueMicrotask', 'ReadableStream', 'WritableStream',
  'TransformStream', 'TextEncoderStream', 'TextDecoderStream', 'CompressionStream', 'DecompressionStream', 'WebAssembly',
] as const;

export interface WebGlobalsOptions {
  /** The realm's fetch. */
  fetch: (input: unknown, init?: unknown) => Promise<Response>;
  /** The extension's origin, once known: its BroadcastChannels reach it alone. */
  origin: () => string | undefined;
  /** Whether the persona is Firefox's (abort()'s words). */
  inFirefox: () => boolean;
}

/** A realm's global object holding the Web globals, each made on first use (writable, as a browser's are). */
export function webGlobalsSandbox(options: WebGlobalsOptions): Record<string, unknown> {
  /** The Web globals whose Node versions an extension must not get as they are: its own instead. */
  const own: Partial<Record<(typeof WEB_GLOBALS)[number], () => unknown>> = {
    BroadcastChannel: () => originBroadcastChannel(options.origin),
    fetch: () => options.fetch,
    AbortController: () => browserAbortController(options.inFirefox),
    AbortSignal: () => browserAbortSignal(options.inFirefox),
  };
  const sandbox: Record<string, unknown> = {};
  for (const name of WEB_GLOBALS) {
    // Node makes most of these on first use (fetch loads undici; CompressionStream, zlib): each is
    // taken from Node's global only when the realm first touches it, so a realm that never does
    // starts without them.
    if (!(name in globalThis)) continue;
    const settle = (value: unknown) => Object.defineProperty(sandbox, name, { value, writable: true, configurable: true, enumerable: true });
    let made = false;
    let value: unknown;
    const get = () => {
      if (!made) {
        value = name in own ? own[name]!() : (globalThis as Record<string, unknown>)[name];
        made = true;
      }
      // wrtui's own scripts may ask later (captured-globals.ts): what the realm put there meanwhile stays.
      if (Object.getOwnPropertyDescriptor(sandbox, name)?.get === get) settle(value);
      return value;
    };
    Object.defineProperty(sandbox, name, { get, set: settle, configurable: true, enumerable: true });
  }
  return sandbox;
}

/**
 * The AbortError an abort() without a reason gives, in the persona's browser's words (Chromium 156:
 * "signal is aborted without reason"; Firefox ESR 153.7: "The operation was aborted. "; Node: "This
 * operation was aborted"), compared in the extension-network and firefox-network tests.
 */
const defaultAbortReason = (inFirefox: () => boolean) => new DOMException(inFirefox() ? 'The operation was aborted. ' : 'signal is aborted without reason', 'AbortError');

function browserAbortController(inFirefox: () => boolean): typeof AbortController {
  return class AbortController extends globalThis.AbortController {
    override abort(reason?: unknown): void {
      super.abort(reason === undefined ? defaultAbortReason(inFirefox) : reason);
    }
  };
}

function browserAbortSignal(inFirefox: () => boolean): typeof AbortSignal {
  const NodeAbortSignal = globalThis.AbortSignal;
  // Not constructible, as in a browser; `instanceof` and the prototype are Node's signal's.
  const AbortSignal = function AbortSignal() {
    throw new TypeError('Illegal constructor');
  } as unknown as typeof globalThis.AbortSignal;
  Object.defineProperties(AbortSignal, {
    prototype: { value: NodeAbortSignal.prototype },
    abort: { value: (reason?: unknown) => NodeAbortSignal.abort(reason === undefined ? defaultAbortReason(inFirefox) : reason), writable: true, configurable: true },
    timeout: { value: (ms: number) => NodeAbortSignal.timeout(ms), writable: true, configurable: true },
    any: { value: (signals: AbortSignal[]) => NodeAbortSignal.any(signals), writable: true, configurable: true },
  });
  return AbortSignal;
}

/**
 * A browser's BroadcastChannel reaches the pages of one origin; Node's reaches every thread of the
 * process, so every extension's worker. Each extension's channels are its origin's alone.
 */
function originBroadcastChannel(origin: () => string | undefined): typeof BroadcastChannel {
  return class extends BroadcastChannel {
    readonly #name: string;
    constructor(name: string) {
      super(`${origin() ?? 'wrtui:unbooted'} ${String(name)}`);
      this.#name = String(name);
    }
    // @ts-expect-error Node's typings say a property; it is an accessor (as in browsers), and so is this.
    override get name(): string {
      return this.#name;
    }
  };
}
