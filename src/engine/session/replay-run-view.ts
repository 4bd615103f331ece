// What one replay run's rules and cookie stores are, for the TUI's rules and cookies views: read
// from the run's ExtensionHost and Engine while it runs, and from a copy taken as it closes (its
// workers are gone then, and the views still show the run whose requests are on screen).
import { toSpecCookie } from '../cookies/index.js';
import type { Engine } from '../engine.js';
import type { ExtensionHost, RuleStatus } from '../extensions/extension-host.js';
import type { Cookie } from '../types.js';

export class ReplayRunView {
  readonly storeIds: readonly string[];
  #live: { engine: Engine; host: ExtensionHost | undefined } | undefined;
  #rules: RuleStatus[] = [];
  #cookies = new Map<string, Cookie[]>();
  readonly #listeners = new Set<() => void>();
  readonly #unsubscribe: (() => void) | undefined;

  constructor(engine: Engine, host: ExtensionHost | undefined) {
    this.#live = { engine, host };
    this.storeIds = engine.cookies.storeIds;
    this.#unsubscribe = host?.onChange(() => this.#changed());
  }

  /** The run's rules and extensions, as the rules view lists them. */
  rules(): RuleStatus[] {
    return this.#live ? (this.#live.host?.rules() ?? []) : this.#rules;
  }

  /** A store's cookies, as cookies.getAll({ storeId }) gives them. */
  cookies(storeId: string): Cookie[] {
    if (!this.#live) return this.#cookies.get(storeId) ?? [];
    return this.#live.engine.cookies.allCookies(storeId).map((cookie) => toSpecCookie(cookie, storeId));
  }

  /** Calls `listener` after any change of what rules() returns; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Called by the replay just before it closes the run: from now on the view shows this copy. */
  freeze(): void {
    if (!this.#live) return;
    this.#rules = this.rules();
    for (const storeId of this.storeIds) this.#cookies.set(storeId, this.cookies(storeId));
    this.#unsubscribe?.();
    this.#live = undefined;
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }
}
