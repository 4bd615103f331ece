// The engine: one journal, one listener registry, one request lifecycle, the cookie stores, the
// handlerBehaviorChanged quota. Capture, replay and rules plug into it; it knows nothing of a UI.
import { CookieJars, CookiePersistence, createCookiesNamespace, hasCookiesPermission } from './cookies/index.js';
import type { BrowserCookiesNamespace, ChromeCookiesNamespace, CookieLimits } from './cookies/index.js';
import { Journal } from './journal.js';
import type { Owner } from './owner.js';
import { RuntimeState, type Runtime } from './runtime.js';
import { HandlerBehaviorChangedQuota, type QuotaState } from './web-request/handler-behavior-changed.js';
import { RequestLifecycle, type CookieMode } from './web-request/lifecycle.js';
import { DnrEngine } from './dnr/dnr-engine.js';
import { ListenerRegistry } from './web-request/listener-registry.js';
import { createWebRequestNamespace, handlerBehaviorChanged, type WebRequestNamespace } from './web-request/web-request-namespace.js';

export interface EngineOptions {
  /** Where cookie stores persist (lowdb). Without it nothing is written to disk. */
  stateDir?: string;
  now?: () => number;
  /** How long a blocking listener may take before the request goes on without it (ms). */
  listenerTimeoutMs?: number;
  dryRun?: boolean;
  cookieLimits?: Partial<CookieLimits>;
  /** 'observe': the jar learns and serves the cookies API but adds nothing to requests (--cookies observe). */
  cookieMode?: CookieMode;
}

/** What one owner (rule) sees, as an extension would: `chrome` with callbacks, `browser` with Promises. */
export interface ExtensionApi {
  chrome: { webRequest?: WebRequestNamespace; cookies?: ChromeCookiesNamespace; runtime: Runtime };
  browser: { webRequest?: WebRequestNamespace; cookies?: BrowserCookiesNamespace; runtime: Runtime };
  /** Unloads the owner: removes every listener it registered, webRequest and cookies.onChanged. */
  dispose(): void;
}

export class Engine {
  readonly journal: Journal;
  readonly registry: ListenerRegistry;
  readonly quota: HandlerBehaviorChangedQuota;
  readonly lifecycle: RequestLifecycle;
  readonly cookies: CookieJars;
  /** Extensions' declarativeNetRequest rules (the extension host fills it). */
  readonly dnr: DnrEngine;
  readonly #flushHooks = new Set<() => void>();
  readonly #unsubscribeCookies: () => void;

  private constructor(options: EngineOptions, persistence: CookiePersistence | undefined) {
    this.journal = new Journal(options.now ? { now: options.now } : {});
    this.registry = new ListenerRegistry();
    this.quota = new HandlerBehaviorChangedQuota(options.now ? { now: options.now } : {});
    this.cookies = new CookieJars({
      ...(options.now && { now: options.now }),
      ...(options.cookieLimits && { limits: options.cookieLimits }),
      ...(persistence && { persistence }),
      onListenerError: (error) => this.#log('warn', 'cookies', `cookies.onChanged listener failed: ${String(error)}`),
    });
    this.dnr = new DnrEngine({ journal: this.journal, ...(options.stateDir !== undefined && { stateDir: options.stateDir }), ...(options.now && { now: options.now }) });
    this.dnr.isDryRun = () => this.lifecycle.dryRun;
    this.lifecycle = new RequestLifecycle({
      dnr: this.dnr,
      registry: this.registry,
      journal: this.journal,
      cookies: this.cookies,
      ...(options.now && { now: options.now }),
      ...(options.listenerTimeoutMs !== undefined && { listenerTimeoutMs: options.listenerTimeoutMs }),
      dryRun: options.dryRun ?? false,
      ...(options.cookieMode && { cookieMode: options.cookieMode }),
    });
    this.#unsubscribeCookies = this.cookies.onChanged((changeInfo) => this.journal.append({ kind: 'cookieChanged', changeInfo }));
    for (const problem of persistence?.problems ?? []) this.#log('warn', 'cookies', problem);
  }

  /** Opens the engine; with a stateDir, cookie store "0" is loaded from `<stateDir>/cookies.json`. */
  static async open(options: EngineOptions = {}): Promise<Engine> {
    let engine: Engine | undefined;
    const persistence = options.stateDir
      ? await CookiePersistence.open({
          stateDir: options.stateDir,
          onProblem: (message) => engine?.journal.append({ kind: 'log', level: 'warn', source: 'cookies', message }),
        })
      : undefined;
    engine = new Engine(options, persistence);
    return engine;
  }

  get dryRun(): boolean {
    return this.lifecycle.dryRun;
  }

  set dryRun(value: boolean) {
    this.lifecycle.dryRun = value;
  }

  /** The namespaces an owner gets, as its manifest allows: webRequest with "webRequest", cookies with "cookies". */
  extensionApi(owner: Owner): ExtensionApi {
    const runtime = new RuntimeState((message) => this.#log('warn', owner.id, `Unchecked runtime.lastError: ${message}`));
    const unloaded = new AbortController();
    const webRequest = owner.permissions.has('webRequest')
      ? createWebRequestNamespace({ registry: this.registry, quota: this.quota, journal: this.journal, flushCaches: () => this.flushCaches() }, owner)
      : undefined;
    const cookieOptions = {
      signal: unloaded.signal,
      onListenerError: (error: unknown, source: string) => this.#log('warn', owner.id, `${source} threw: ${error instanceof Error ? error.message : String(error)}`),
      onSetRefused: (_details: unknown, reason: string) => this.#log('info', owner.id, `cookies.set refused: ${reason}`),
    };
    const withCookies = hasCookiesPermission(owner);
    const chromeCookies = withCookies ? createCookiesNamespace(this.cookies, owner, runtime, 'callback', cookieOptions) : undefined;
    const browserCookies = withCookies ? createCookiesNamespace(this.cookies, owner, runtime, 'promise', cookieOptions) : undefined;
    return {
      chrome: { ...(webRequest && { webRequest }), ...(chromeCookies && { cookies: chromeCookies }), runtime },
      browser: { ...(webRequest && { webRequest }), ...(browserCookies && { cookies: browserCookies }), runtime },
      dispose: () => {
        unloaded.abort();
        this.registry.removeOwner(owner);
      },
    };
  }

  /** handlerBehaviorChanged on behalf of an owner (a rule reload), under its quota; journaled. */
  handlerBehaviorChanged(owner: Owner, madeBy?: 'reload'): boolean {
    return handlerBehaviorChanged({ registry: this.registry, quota: this.quota, journal: this.journal, flushCaches: () => this.flushCaches() }, owner, madeBy);
  }

  quotaState(ownerId: string): QuotaState {
    return this.quota.state(ownerId);
  }

  /** Registers a cache to clear on handlerBehaviorChanged (the HTTP cache); returns its removal. */
  onFlush(hook: () => void): () => void {
    this.#flushHooks.add(hook);
    return () => this.#flushHooks.delete(hook);
  }

  flushCaches(): void {
    for (const hook of this.#flushHooks) hook();
  }

  /** Stops the expiry sweeper and writes the cookie store. */
  async close(): Promise<void> {
    this.#unsubscribeCookies();
    await this.cookies.close();
  }

  #log(level: 'debug' | 'info' | 'warn' | 'error', source: string, message: string): void {
    this.journal.append({ kind: 'log', level, source, message });
  }
}

/** The default state directory, relative to the working directory (ARCHITECTURE.md "Files"). */
export const DEFAULT_STATE_DIR = '.wrtui';
