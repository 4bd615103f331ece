// What one replay run's rules and cookie stores are, for the TUI's rules and cookies views and
// its declarativeNetRequest explanations: read from the run's ExtensionHost and Engine while it
// runs, and from a copy taken as it closes (its workers are gone then, and the views still show
// the run whose requests are on screen).
import { toSpecCookie } from '../cookies/index.js';
import type { DnrRequest } from '../dnr/compiled-rule.js';
import type { DnrEngine, RuleExplanation } from '../dnr/dnr-engine.js';
import type { Engine } from '../engine.js';
import type { ExtensionHost, RuleStatus } from '../extensions/extension-host.js';
import type { QuickRuleset, QuickRulesetStatus } from '../rules/quick-ruleset.js';
import type { Cookie } from '../types.js';

export class ReplayRunView {
  readonly storeIds: readonly string[];
  #live: { engine: Engine; host: ExtensionHost | undefined; quick: QuickRuleset | undefined } | undefined;
  #rules: RuleStatus[] = [];
  #quick: QuickRulesetStatus | undefined;
  #cookies = new Map<string, Cookie[]>();
  #dnr: DnrEngine | undefined;
  readonly #listeners = new Set<() => void>();
  readonly #unsubscribe: (() => void) | undefined;

  constructor(engine: Engine, host: ExtensionHost | undefined, quick?: QuickRuleset) {
    this.#live = { engine, host, quick };
    this.storeIds = engine.cookies.storeIds;
    this.#unsubscribe = host?.onChange(() => this.#changed());
  }

  /** The run's rules and extensions, as the rules view lists them. */
  rules(): RuleStatus[] {
    return this.#live ? (this.#live.host?.rules() ?? []) : this.#rules;
  }

  /** The run's quick rules (the rules folder's quick-rules/), undefined without a rules folder. */
  quickRules(): QuickRulesetStatus | undefined {
    return this.#live ? this.#live.quick?.status() : this.#quick;
  }

  /** A store's cookies, as cookies.getAll({ storeId }) gives them. */
  cookies(storeId: string): Cookie[] {
    if (!this.#live) return this.#cookies.get(storeId) ?? [];
    return this.#live.engine.cookies.allCookies(storeId).map((cookie) => toSpecCookie(cookie, storeId));
  }

  /** The declarativeNetRequest rules whose URL condition matches a request, and why those did not act. */
  explainDnr(request: DnrRequest): { rules: RuleExplanation[]; urlMisses: number } {
    const dnr = this.#dnrEngine();
    return dnr?.active ? dnr.nearMisses(request) : { rules: [], urlMisses: 0 };
  }

  /** Whether a declarativeNetRequest rule matches a request (the filter's dnr:RULESET#ID). */
  dnrRuleMatches(rule: { rulesetId?: string; ruleId: number }, request: DnrRequest): boolean {
    const dnr = this.#dnrEngine();
    return dnr?.active === true && dnr.ruleMatches(rule, request);
  }

  /** Calls `listener` after any change of what rules() returns; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Called by the replay just before it closes the run: from now on the view shows this copy. */
  freeze(): void {
    if (!this.#live) return;
    // The run has ended: its workers are stopped (as the rules view then says), the rest is as it left it.
    this.#rules = this.rules().map((status) => ({ ...status, runtime: { ...status.runtime, state: 'stopped' } }));
    this.#quick = this.quickRules();
    for (const storeId of this.storeIds) this.#cookies.set(storeId, this.cookies(storeId));
    this.#dnr = this.#live.engine.dnr.copyOfRules();
    this.#unsubscribe?.();
    this.#live = undefined;
  }

  #dnrEngine(): DnrEngine | undefined {
    return this.#live ? this.#live.engine.dnr : this.#dnr;
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }
}
