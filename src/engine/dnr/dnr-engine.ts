// declarativeNetRequest for every extension that ships rules: their static rulesets (from
// manifest.json), dynamic rules (persisted per extension, as Chrome keeps them across restarts)
// and session rules, evaluated on the proxy thread (rules are data: no extension code runs), at
// the three points Chrome evaluates them (checked against Chromium 156 with a probe extension):
//   before the request: block / redirect / upgradeScheme / allow / allowAllRequests. webRequest's
//     onBeforeRequest still fires; a block then ends the request with net::ERR_BLOCKED_BY_CLIENT,
//     a redirect is an internal 307 ("onBeforeRedirect", then the new URL's events);
//   request headers: after the onBeforeSendHeaders listeners (they see the headers before the
//     rules; onSendHeaders sees them after);
//   response headers: after the onHeadersReceived listeners (onResponseStarted and onCompleted see
//     the rules' changes; onHeadersReceived does not).
// Precedence (developer.chrome.com, "Rule priorities"): within an extension, the highest priority
// wins, then the action order allow > allowAllRequests > block > upgradeScheme > redirect, then the
// source (session > dynamic > static); modifyHeaders rules apply when they outrank the winning
// allow. Across extensions, any block wins; otherwise the most recently installed extension's
// redirect or upgrade; header changes apply from the most recent extension first.
import { AtomicJsonFile } from '../cookies/atomic-json-file.js';
import type { DnrEntry, DnrMatch, Journal } from '../journal.js';
import type { HttpHeaders } from '../types.js';
import { compileRule, prepareRequest, RuleError, type CompiledRule, type DnrRequest, type PreparedRequest } from './compiled-rule.js';
import { modifyHeaders, redirectTarget, upgradedUrl, type AppliedHeaderOp } from './dnr-actions.js';
import { DNR_LIMITS, DYNAMIC_RULESET_ID, SESSION_RULESET_ID, type DnrRule, type HeaderOperation } from './dnr-types.js';
import { regexSupport } from './regex-support.js';
import { RuleIndex } from './rule-index.js';
import { join } from 'node:path';

export interface StaticRuleset {
  id: string;
  path: string;
  enabled: boolean;
  /** The ruleset file's parsed JSON (or the reason it could not be read). */
  rules: unknown;
}

export interface DnrExtensionOptions {
  extensionId: string;
  name: string;
  /** chrome-extension://<id>/ (extensionPath redirects). */
  baseUrl: string;
  rulesets: StaticRuleset[];
  /** Where its dynamic rules and enabled-ruleset choice are kept (the engine's state folder when absent). */
  stateDir?: string;
  /**
   * Host permissions: redirect and modifyHeaders rules act only on requests whose URL (and
   * initiator, when there is one) the extension may access; block, allow and upgradeScheme need none.
   */
  hostAccess?: (url: string) => boolean;
  /** onRuleMatchedDebug: only unpacked extensions with declarativeNetRequestFeedback get it. */
  onRuleMatched?: (info: { request: Record<string, unknown>; rule: { ruleId: number; rulesetId: string } }) => void;
}

interface RulesetState {
  id: string;
  path: string;
  index: RuleIndex;
  /** Rules skipped because they are invalid, each "rule N: field: why". */
  skipped: string[];
}

interface MatchedRecord {
  rule: { ruleId: number; rulesetId: string };
  tabId: number;
  timeStamp: number;
}

interface ExtensionState {
  options: DnrExtensionOptions;
  installOrder: number;
  rulesets: Map<string, RulesetState>;
  enabled: Set<string>;
  dynamic: RuleIndex;
  session: RuleIndex;
  matched: MatchedRecord[];
  matchedRulesCalls: number[];
  file: AtomicJsonFile<PersistedRules> | undefined;
  /** The last write of `file`: writes go one after another, so an older one never lands last. */
  writing: Promise<void>;
}

interface PersistedRules {
  dynamicRules: DnrRule[];
  enabledRulesets?: string[];
}

export interface DnrRequestInfo extends DnrRequest {
  requestId: string;
  frameId?: number;
  /** An extension's own request (its fetch): the host of its origin. Only its own rules act on it (Chromium 156). */
  madeBy?: string;
}

export type BeforeRequestAction = { kind: 'none' } | { kind: 'block' } | { kind: 'redirect'; url: string };

/** Why each of an extension's rules did or did not match a request. */
export interface RuleExplanation {
  extensionId: string;
  extension: string;
  rulesetId: string;
  ruleId: number;
  priority: number;
  action: string;
  /** Undefined: the rule matches. */
  failed: string | undefined;
}

/** getMatchedRules reports the last five minutes' matches (as Chrome), at most this many. */
const MATCHED_RULES_KEPT_MS = 5 * 60_000;
const MATCHED_RULES_KEPT = 10_000;
/** Documents an allowAllRequests rule allowed, remembered (the newest). */
const ALLOWED_FRAMES_KEPT = 1_000;
/** Requests whose matches are kept for their later stages (a request's stages follow each other closely). */
const MATCH_CACHE_SIZE = 1024;

interface MatchSet {
  state: ExtensionState;
  matched: CompiledRule[];
  awaitingHeaders: CompiledRule[];
}
const SOURCE_RANK: Record<string, number> = { [SESSION_RULESET_ID]: 0, [DYNAMIC_RULESET_ID]: 1 };

export class DnrEngine {
  readonly #extensions = new Map<string, ExtensionState>();
  readonly #writes = new Set<Promise<void>>();
  readonly #journal: Journal | undefined;
  readonly #stateDir: string | undefined;
  readonly #now: () => number;
  /** Whether an extension's actions are only journaled (its dry-run, or the engine's). */
  isDryRun: (extensionId: string) => boolean = () => false;
  #installs = 0;
  #orderedCache: ExtensionState[] | undefined;
  #active = false;
  readonly #matchCache = new Map<string, MatchSet[]>();
  /** Frames (by document URL) an allowAllRequests rule allowed, per extension: their requests are allowed too. */
  readonly #allowedFrames = new Map<string, Map<ExtensionState, CompiledRule>>();

  constructor(options: { journal?: Journal; stateDir?: string; now?: () => number } = {}) {
    this.#journal = options.journal;
    this.#stateDir = options.stateDir;
    this.#now = options.now ?? Date.now;
  }

  /** Whether any extension has rules in effect: when none, requests skip DNR entirely (asked at every stage of every request). */
  get active(): boolean {
    return this.#active;
  }

  /**
   * Loads an extension's rulesets (its dynamic rules and enabled-ruleset choice from the state
   * directory). Invalid rules are skipped, each named in the returned warnings, as Chrome skips
   * them with an install warning for an unpacked extension.
   */
  async addExtension(options: DnrExtensionOptions): Promise<{ warnings: string[] }> {
    const warnings: string[] = [];
    if (options.rulesets.length > DNR_LIMITS.MAX_NUMBER_OF_STATIC_RULESETS) warnings.push(`declarative_net_request: ${options.rulesets.length} rulesets; Chrome allows ${DNR_LIMITS.MAX_NUMBER_OF_STATIC_RULESETS}`);
    const rulesets = new Map<string, RulesetState>();
    for (const ruleset of options.rulesets) {
      const skipped: string[] = [];
      const compiled = compileAll(ruleset.rules, { rulesetId: ruleset.id, extensionId: options.extensionId }, skipped);
      for (const message of skipped) warnings.push(`ruleset "${ruleset.id}" (${ruleset.path}): ${message}`);
      rulesets.set(ruleset.id, { id: ruleset.id, path: ruleset.path, index: new RuleIndex(compiled), skipped });
    }
    const stateDir = options.stateDir ?? this.#stateDir;
    const file = stateDir ? new AtomicJsonFile<PersistedRules>(dnrRulesFile(stateDir, options.extensionId)) : undefined;
    let persisted: PersistedRules | null = null;
    try {
      persisted = (await file?.read()) ?? null;
    } catch (error) {
      warnings.push(`its dynamic rules could not be read (${(error as Error).message}); starting with none`);
    }
    const dynamicSkipped: string[] = [];
    const dynamic = compileAll(persisted?.dynamicRules ?? [], { rulesetId: DYNAMIC_RULESET_ID, extensionId: options.extensionId }, dynamicSkipped);
    for (const message of dynamicSkipped) warnings.push(`dynamic rules: ${message}`);
    const previous = this.#extensions.get(options.extensionId);
    const enabled = new Set(persisted?.enabledRulesets ?? options.rulesets.filter((ruleset) => ruleset.enabled).map((ruleset) => ruleset.id));
    for (const id of enabled) if (!rulesets.has(id)) enabled.delete(id);
    this.#extensions.set(options.extensionId, {
      options,
      installOrder: previous?.installOrder ?? ++this.#installs,
      rulesets,
      enabled,
      dynamic: new RuleIndex(dynamic),
      // Session rules live as long as wrtui runs: a reloaded extension keeps them, as a browser session does.
      session: previous?.session ?? new RuleIndex([]),
      matched: previous?.matched ?? [],
      matchedRulesCalls: previous?.matchedRulesCalls ?? [],
      file,
      writing: previous?.writing ?? Promise.resolve(),
    });
    this.#rulesChanged();
    return { warnings };
  }

  /**
   * An engine holding the rules in effect now, to explain requests with once this one's extensions
   * are gone (a finished replay's TUI). It shares the compiled rules: nothing changes them then.
   */
  copyOfRules(): DnrEngine {
    const copy = new DnrEngine({ now: this.#now });
    for (const [id, state] of this.#extensions) copy.#extensions.set(id, state);
    copy.#rulesChanged();
    return copy;
  }

  removeExtension(extensionId: string): void {
    this.#extensions.delete(extensionId);
    this.#rulesChanged();
  }

  /** The rules view: each ruleset with its rule count and state. */
  describe(extensionId: string): { rulesets: { id: string; path: string; enabled: boolean; rules: number; skipped: string[] }[]; dynamicRules: number; sessionRules: number } | undefined {
    const state = this.#extensions.get(extensionId);
    if (!state) return undefined;
    return {
      rulesets: [...state.rulesets.values()].map((ruleset) => ({ id: ruleset.id, path: ruleset.path, enabled: state.enabled.has(ruleset.id), rules: ruleset.index.size, skipped: ruleset.skipped })),
      dynamicRules: state.dynamic.size,
      sessionRules: state.session.size,
    };
  }

  // ── evaluation ─────────────────────────────────────────────────────────────

  /**
   * Before the request is sent: block, redirect, upgrade, or nothing, and the journal entry saying
   * what matched (the caller appends it after onBeforeRequest, which starts a request's record).
   */
  beforeRequest(request: DnrRequestInfo): { action: BeforeRequestAction; entry?: DnrEntry } {
    if (this.#extensions.size === 0) return { action: { kind: 'none' } };
    const winners: { state: ExtensionState; winner: CompiledRule }[] = [];
    for (const { state, matched } of this.#matchesFor(request)) {
      const winner = best(matched, (rule) => rule.action !== 'modifyHeaders');
      if (winner) winners.push({ state, winner });
    }
    if (winners.length === 0) return { action: { kind: 'none' } };
    // Any block wins; otherwise the most recent extension's redirect or upgrade.
    const live = winners.filter(({ state }) => !this.isDryRun(state.options.extensionId));
    const pick = (list: typeof winners) =>
      list.find(({ winner }) => winner.action === 'block') ??
      list.find(({ winner }) => (winner.action === 'redirect' && redirectTarget(winner, request.url, this.#baseUrl(winner)) !== undefined) || (winner.action === 'upgradeScheme' && upgradedUrl(request.url) !== undefined));
    const chosen = pick(live);
    const wouldChoose = pick(winners);
    const matches: DnrMatch[] = winners.map(({ state, winner }) => {
      const dryRun = this.isDryRun(state.options.extensionId);
      const taken = isAllow(winner) || winner === chosen?.winner || (dryRun && winner === wouldChoose?.winner);
      return this.#match(state, winner, dryRun ? 'dry-run' : taken ? 'applied' : 'outranked');
    });
    for (const { state, winner } of winners) {
      if ((isAllow(winner) && !this.isDryRun(state.options.extensionId)) || winner === chosen?.winner) this.#recordMatch(state, winner, request);
      if (winner.action === 'allowAllRequests' && (request.type === 'main_frame' || request.type === 'sub_frame') && !this.isDryRun(state.options.extensionId)) this.#allowFrame(request.url, state, winner);
    }
    let action: BeforeRequestAction = { kind: 'none' };
    const acting = chosen ?? wouldChoose;
    const effect: DnrEntry['effect'] = acting ? (acting.winner.action as 'block' | 'redirect' | 'upgradeScheme') : 'allow';
    const redirectUrl = acting && acting.winner.action !== 'block' ? (acting.winner.action === 'redirect' ? redirectTarget(acting.winner, request.url, this.#baseUrl(acting.winner)) : upgradedUrl(request.url)) : undefined;
    if (chosen) action = chosen.winner.action === 'block' ? { kind: 'block' } : { kind: 'redirect', url: redirectUrl! };
    const entry: DnrEntry = {
      kind: 'dnr',
      requestId: request.requestId,
      url: request.url,
      stage: 'onBeforeRequest',
      effect,
      matches,
      ...(redirectUrl !== undefined && { redirectUrl }),
      ...(chosen === undefined && wouldChoose !== undefined && { dryRun: true as const }),
    };
    return { action, entry };
  }

  /** Appends an entry beforeRequest returned. */
  journal(entry: DnrEntry): void {
    this.#journal?.append(entry);
  }

  /** Request headers after the onBeforeSendHeaders listeners. */
  requestHeaders(request: DnrRequestInfo, headers: HttpHeaders): HttpHeaders {
    if (this.#extensions.size === 0) return headers;
    return this.#modify(request, headers, 'requestHeaders', 'onBeforeSendHeaders', this.#matchesFor(request));
  }

  /**
   * Response headers after the onHeadersReceived listeners. Rules with responseHeaders conditions
   * are decided here: a block among them ends the request (returned as `blocked`).
   */
  responseHeaders(request: DnrRequestInfo, headers: HttpHeaders): { headers: HttpHeaders; blocked: boolean } {
    if (this.#extensions.size === 0) return { headers, blocked: false };
    const withHeaders = prepareRequest({ ...request, responseHeaders: headers });
    const sets = this.#matchesFor(request).map((set) => ({
      ...set,
      matched: [...set.matched, ...set.awaitingHeaders.filter((rule) => rule.test(withHeaders) && this.#permits(set.state, rule, withHeaders) === undefined)],
    }));
    for (const { state, matched } of sets) {
      const winner = best(matched, (rule) => rule.needsResponseHeaders && rule.action !== 'modifyHeaders');
      if (!winner || winner.action !== 'block') continue;
      const dryRun = this.isDryRun(state.options.extensionId);
      if (!dryRun) this.#recordMatch(state, winner, request);
      this.#journal?.append({ kind: 'dnr', requestId: request.requestId, url: request.url, stage: 'onHeadersReceived', effect: 'block', matches: [this.#match(state, winner, dryRun ? 'dry-run' : 'applied')], ...(dryRun && { dryRun: true as const }) });
      if (!dryRun) return { headers, blocked: true };
    }
    return { headers: this.#modify(request, headers, 'responseHeaders', 'onHeadersReceived', sets), blocked: false };
  }

  #modify(request: DnrRequestInfo, headers: HttpHeaders, which: 'requestHeaders' | 'responseHeaders', stage: DnrEntry['stage'], sets: readonly MatchSet[]): HttpHeaders {
    let out = headers;
    const matches: DnrMatch[] = [];
    const changes: AppliedHeaderOp[] = [];
    let anyDryRun = false;
    const settled = new Map<string, HeaderOperation>();
    for (const { state, matched } of sets) {
      // Only modifyHeaders rules that outrank the extension's winning allow (if any) apply.
      const allow = best(matched, isAllow);
      const rules = matched.filter((rule) => rule.action === 'modifyHeaders' && rule.rule.action[which]?.length && (!allow || rule.priority > allow.priority));
      if (rules.length === 0) continue;
      rules.sort(compareRules);
      const dryRun = this.isDryRun(state.options.extensionId);
      const result = modifyHeaders(out, rules, which, settled);
      if (!dryRun) out = result.headers;
      anyDryRun ||= dryRun;
      changes.push(...result.applied);
      for (const rule of result.rules) {
        matches.push(this.#match(state, rule, dryRun ? 'dry-run' : 'applied'));
        if (!dryRun) this.#recordMatch(state, rule, request);
      }
    }
    if (matches.length > 0) {
      this.#journal?.append({ kind: 'dnr', requestId: request.requestId, url: request.url, stage, effect: 'modifyHeaders', matches, headerChanges: changes.map(({ header, operation, value, ruleId, extensionId }) => ({ header, operation, ...(value !== undefined && { value }), ruleId, extension: this.#extensions.get(extensionId)?.options.name ?? extensionId })), ...(anyDryRun && { dryRun: true as const }) });
    }
    return out;
  }

  /**
   * Every extension's rules that match the request (one walk of the index per request and URL,
   * kept for its later stages), and those that wait for its response headers to decide.
   */
  #matchesFor(request: DnrRequestInfo, only?: readonly ExtensionState[]): MatchSet[] {
    const key = `${request.requestId}\n${request.method}\n${request.url}`;
    const cached = only ? undefined : this.#matchCache.get(key);
    if (cached) return cached;
    const prepared = prepareRequest(request);
    const states = only ?? (request.madeBy === undefined ? this.#ordered() : this.#ordered().filter((state) => new URL(state.options.baseUrl).host === request.madeBy));
    const sets = states.map((state) => {
      const set: MatchSet = { state, matched: [], awaitingHeaders: [] };
      for (const index of this.#indexes(state)) {
        index.candidates(prepared, (rule) => {
          if (rule.needsResponseHeaders) {
            if (rule.awaitsResponseHeaders(prepared)) set.awaitingHeaders.push(rule);
          } else if (rule.test(prepared) && this.#permits(state, rule, prepared) === undefined) set.matched.push(rule);
        });
      }
      // "allowAllRequests: allow all requests within a frame hierarchy": an allowed frame's rule
      // counts as matching every request of that frame and of the frames inside it.
      for (const url of request.frameUrls ?? []) {
        const rule = this.#allowedFrames.get(url)?.get(state);
        if (rule && !set.matched.includes(rule)) set.matched.push(rule);
      }
      return set;
    });
    if (only) return sets;
    this.#matchCache.set(key, sets);
    if (this.#matchCache.size > MATCH_CACHE_SIZE) this.#matchCache.delete(this.#matchCache.keys().next().value!);
    return sets;
  }

  /** Every rule of every extension (or one), with whether it matches the request and, if not, why. */
  explain(request: DnrRequest, extensionId?: string): RuleExplanation[] {
    const prepared = prepareRequest(request);
    const out: RuleExplanation[] = [];
    for (const state of this.#ordered()) {
      if (extensionId !== undefined && state.options.extensionId !== extensionId) continue;
      for (const index of this.#indexes(state)) {
        for (const rule of index.rules) {
          const failed = rule.mismatch(prepared) ?? this.#permits(state, rule, prepared);
          out.push({ extensionId: state.options.extensionId, extension: state.options.name, rulesetId: rule.rulesetId, ruleId: rule.id, priority: rule.priority, action: rule.action, failed });
        }
      }
    }
    return out;
  }

  /**
   * What the TUI shows for a request: the rules whose URL condition matches it (those that match
   * outright, and near misses with the first other condition that fails), and how many rules'
   * URL condition does not. Only the index's candidates are tested (a rule it does not offer
   * cannot match the URL), so this stays cheap with 30,000 rules; explain() tests every rule.
   */
  nearMisses(request: DnrRequest): { rules: RuleExplanation[]; urlMisses: number } {
    const prepared = prepareRequest(request);
    const rules: RuleExplanation[] = [];
    let total = 0;
    for (const state of this.#ordered()) {
      for (const index of this.#indexes(state)) {
        total += index.size;
        index.candidates(prepared, (rule) => {
          if (!rule.urlMatches(prepared)) return;
          const failed = rule.mismatch(prepared) ?? this.#permits(state, rule, prepared);
          rules.push({ extensionId: state.options.extensionId, extension: state.options.name, rulesetId: rule.rulesetId, ruleId: rule.id, priority: rule.priority, action: rule.action, failed });
        });
      }
    }
    return { rules, urlMisses: total - rules.length };
  }

  /** Whether a rule (by ruleset and id, in any extension) matches the request now, whatever its precedence. */
  ruleMatches(rule: { rulesetId?: string; ruleId: number }, request: DnrRequest): boolean {
    const prepared = prepareRequest(request);
    for (const state of this.#extensions.values()) {
      for (const index of this.#indexes(state)) {
        const candidate = index.rule(rule.ruleId);
        if (!candidate || (rule.rulesetId !== undefined && candidate.rulesetId !== rule.rulesetId)) continue;
        if (candidate.test(prepared) && this.#permits(state, candidate, prepared) === undefined) return true;
      }
    }
    return false;
  }

  // ── the extension's API (chrome.declarativeNetRequest) ────────────────────

  /** Runs `method(args)` for an extension; throws an Error whose message the extension sees. */
  async call(extensionId: string, method: string, args: unknown[]): Promise<unknown> {
    const state = this.#extensions.get(extensionId);
    if (!state) throw new Error('declarativeNetRequest: the extension has no rules state');
    const options = (args[0] ?? {}) as Record<string, unknown>;
    switch (method) {
      case 'updateDynamicRules':
        return this.#updateRules(state, 'dynamic', options);
      case 'updateSessionRules':
        return this.#updateRules(state, 'session', options);
      case 'getDynamicRules':
        return rulesOf(state.dynamic, options.ruleIds as number[] | undefined);
      case 'getSessionRules':
        return rulesOf(state.session, options.ruleIds as number[] | undefined);
      case 'updateEnabledRulesets': {
        const enable = (options.enableRulesetIds as string[] | undefined) ?? [];
        const disable = (options.disableRulesetIds as string[] | undefined) ?? [];
        for (const id of [...enable, ...disable]) if (!state.rulesets.has(id)) throw new Error(`Invalid ruleset id: ${id}.`);
        const next = new Set(state.enabled);
        for (const id of disable) next.delete(id);
        for (const id of enable) next.add(id);
        if (next.size > DNR_LIMITS.MAX_NUMBER_OF_ENABLED_STATIC_RULESETS) throw new Error(`The number of enabled static rulesets exceeds the limit of ${DNR_LIMITS.MAX_NUMBER_OF_ENABLED_STATIC_RULESETS}.`);
        state.enabled = next;
        this.#rulesChanged();
        await this.#persist(state);
        return undefined;
      }
      case 'getEnabledRulesets':
        return [...state.rulesets.keys()].filter((id) => state.enabled.has(id));
      case 'getAvailableStaticRuleCount': {
        const used = [...state.enabled].reduce((sum, id) => sum + (state.rulesets.get(id)?.index.size ?? 0), 0);
        return Math.max(0, DNR_LIMITS.GUARANTEED_MINIMUM_STATIC_RULES - used);
      }
      case 'getMatchedRules': {
        const now = this.#now();
        state.matchedRulesCalls = state.matchedRulesCalls.filter((at) => at > now - DNR_LIMITS.GETMATCHEDRULES_QUOTA_INTERVAL * 60_000);
        if (state.matchedRulesCalls.length >= DNR_LIMITS.MAX_GETMATCHEDRULES_CALLS_PER_INTERVAL) {
          throw new Error(`This request exceeds the MAX_GETMATCHEDRULES_CALLS_PER_INTERVAL quota.`);
        }
        state.matchedRulesCalls.push(now);
        this.#dropOldMatches(state);
        const tabId = options.tabId as number | undefined;
        const since = (options.minTimeStamp as number | undefined) ?? 0;
        return { rulesMatchedInfo: state.matched.filter((record) => (tabId === undefined || record.tabId === tabId) && record.timeStamp >= since) };
      }
      case 'isRegexSupported': {
        const support = regexSupport(String(options.regex ?? ''), { isCaseSensitive: options.isCaseSensitive as boolean | undefined });
        return support.isSupported ? { isSupported: true } : { isSupported: false, reason: support.reason };
      }
      case 'testMatchOutcome': {
        const request = options as unknown as { url: string; type: string; method?: string; tabId?: number; initiator?: string };
        const [set] = this.#matchesFor({ requestId: 'testMatchOutcome', url: request.url, type: request.type as DnrRequest['type'], method: request.method ?? 'get', tabId: request.tabId ?? -1, ...(request.initiator !== undefined && { initiator: request.initiator }) }, [state]);
        const matched = set!.matched;
        const outcome: { ruleId: number; rulesetId: string }[] = [];
        const winner = best(matched, (rule) => rule.action !== 'modifyHeaders');
        if (winner) outcome.push({ ruleId: winner.id, rulesetId: winner.rulesetId });
        if (!winner || isAllow(winner)) {
          const headerRules = matched.filter((rule) => rule.action === 'modifyHeaders' && (!winner || rule.priority > winner.priority));
          for (const rule of headerRules.sort(compareRules)) outcome.push({ ruleId: rule.id, rulesetId: rule.rulesetId });
        }
        return { matchedRules: outcome };
      }
      case 'setExtensionActionOptions':
        return undefined;
      default:
        throw new Error(`declarativeNetRequest.${method} is not supported`);
    }
  }

  async #updateRules(state: ExtensionState, which: 'dynamic' | 'session', options: Record<string, unknown>): Promise<void> {
    const remove = new Set((options.removeRuleIds as number[] | undefined) ?? []);
    const add = (options.addRules as unknown[] | undefined) ?? [];
    const current = (which === 'dynamic' ? state.dynamic : state.session).rules.filter((rule) => !remove.has(rule.id));
    const ids = new Set(current.map((rule) => rule.id));
    const rulesetId = which === 'dynamic' ? DYNAMIC_RULESET_ID : SESSION_RULESET_ID;
    const added: CompiledRule[] = [];
    for (const input of add) {
      let rule: CompiledRule;
      try {
        rule = compileRule(input, { rulesetId, extensionId: state.options.extensionId, session: which === 'session' });
      } catch (error) {
        if (error instanceof RuleError) throw new Error(error.message.replace(/^rule (\d+): /, 'Rule with id $1: '));
        throw error;
      }
      if (ids.has(rule.id)) throw new Error(`Rule with id ${rule.id} does not have a unique ID.`);
      ids.add(rule.id);
      added.push(rule);
    }
    const next = [...current, ...added];
    const limit = which === 'dynamic' ? DNR_LIMITS.MAX_NUMBER_OF_DYNAMIC_RULES : DNR_LIMITS.MAX_NUMBER_OF_SESSION_RULES;
    if (next.length > limit) throw new Error(`The number of ${which} rules exceeds the limit of ${limit}.`);
    if (next.filter((rule) => rule.isRegex).length > DNR_LIMITS.MAX_NUMBER_OF_REGEX_RULES) throw new Error(`The number of regex rules exceeds the limit of ${DNR_LIMITS.MAX_NUMBER_OF_REGEX_RULES}.`);
    if (which === 'dynamic') state.dynamic = new RuleIndex(next);
    else state.session = new RuleIndex(next);
    this.#rulesChanged();
    if (which === 'dynamic') await this.#persist(state);
  }

  async #persist(state: ExtensionState): Promise<void> {
    const { file } = state;
    if (!file) return;
    const data: PersistedRules = { dynamicRules: state.dynamic.rules.map((rule) => rule.rule), enabledRulesets: [...state.enabled] };
    const write = state.writing.catch(() => undefined).then(() => file.write(data));
    state.writing = write;
    this.#writes.add(write);
    try {
      await write;
    } finally {
      this.#writes.delete(write);
    }
  }

  /**
   * Resolves when every rules file write begun so far has ended, those of extensions since removed
   * too: whoever closes wrtui or deletes the state directory waits for this, so no write is lost
   * or lands in a directory being removed.
   */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#writes]);
  }

  // ── internals ──────────────────────────────────────────────────────────────

  /** After any change to what rules are in effect: the caches start over. */
  #rulesChanged(): void {
    this.#orderedCache = undefined;
    this.#matchCache.clear();
    this.#active = [...this.#extensions.values()].some((state) => this.#indexes(state).length > 0);
  }

  #allowFrame(url: string, state: ExtensionState, rule: CompiledRule): void {
    let byExtension = this.#allowedFrames.get(url);
    if (!byExtension) {
      this.#allowedFrames.set(url, (byExtension = new Map()));
      if (this.#allowedFrames.size > ALLOWED_FRAMES_KEPT) this.#allowedFrames.delete(this.#allowedFrames.keys().next().value!);
    }
    byExtension.set(state, rule);
  }

  /** Most recently installed first (kept sorted: asked for on every request). */
  #ordered(): ExtensionState[] {
    this.#orderedCache ??= [...this.#extensions.values()].sort((a, b) => b.installOrder - a.installOrder);
    return this.#orderedCache;
  }

  /** The extension's rules in effect, empty ones left out (each costs a walk over the URL). */
  #indexes(state: ExtensionState): RuleIndex[] {
    const indexes: RuleIndex[] = [];
    if (state.session.size > 0) indexes.push(state.session);
    if (state.dynamic.size > 0) indexes.push(state.dynamic);
    for (const id of state.enabled) {
      const ruleset = state.rulesets.get(id);
      if (ruleset && ruleset.index.size > 0) indexes.push(ruleset.index);
    }
    return indexes;
  }

  /** Why the extension's host permissions keep a matching rule from acting, if they do. */
  #permits(state: ExtensionState, rule: CompiledRule, request: PreparedRequest): string | undefined {
    const access = state.options.hostAccess;
    if (!access || (rule.action !== 'redirect' && rule.action !== 'modifyHeaders')) return undefined;
    if (!access(request.url)) return `host_permissions: the extension has no access to ${request.host} (a ${rule.action} rule needs it)`;
    if (request.initiator !== undefined && request.initiator !== 'null' && !access(`${request.initiator}/`)) return `host_permissions: the extension has no access to the initiator ${request.initiator} (a ${rule.action} rule needs it)`;
    return undefined;
  }

  #baseUrl(rule: CompiledRule): string {
    return this.#extensions.get(rule.extensionId)?.options.baseUrl ?? `chrome-extension://${rule.extensionId}/`;
  }

  #match(state: ExtensionState, rule: CompiledRule, status: DnrMatch['status']): DnrMatch {
    return { extension: state.options.name, extensionId: state.options.extensionId, rulesetId: rule.rulesetId, ruleId: rule.id, priority: rule.priority, action: rule.action, status };
  }

  #recordMatch(state: ExtensionState, rule: CompiledRule, request: DnrRequestInfo): void {
    const record = { rule: { ruleId: rule.id, rulesetId: rule.rulesetId }, tabId: request.tabId, timeStamp: this.#now() };
    state.matched.push(record);
    // Trimmed in batches: a splice per request over thousands of records would cost more than the matching.
    if (state.matched.length > MATCHED_RULES_KEPT) {
      this.#dropOldMatches(state);
      if (state.matched.length > MATCHED_RULES_KEPT) state.matched.splice(0, state.matched.length - MATCHED_RULES_KEPT * 0.9);
    }
    state.options.onRuleMatched?.({
      request: { requestId: request.requestId, url: request.url, method: request.method, type: request.type, tabId: request.tabId, frameId: request.frameId ?? -1, ...(request.initiator !== undefined && { initiator: request.initiator }) },
      rule: record.rule,
    });
  }

  #dropOldMatches(state: ExtensionState): void {
    const since = this.#now() - MATCHED_RULES_KEPT_MS;
    const first = state.matched.findIndex((record) => record.timeStamp >= since);
    state.matched.splice(0, first === -1 ? state.matched.length : first);
  }
}

/** `<stateDir>/dnr/<extension id>.json`: an extension's dynamic rules (mode 0600). */
export function dnrRulesFile(stateDir: string, extensionId: string): string {
  return join(stateDir, 'dnr', `${extensionId}.json`);
}

/** The rule of highest precedence among those `eligible`. */
function best(rules: readonly CompiledRule[], eligible: (rule: CompiledRule) => boolean): CompiledRule | undefined {
  let winner: CompiledRule | undefined;
  for (const rule of rules) if (eligible(rule) && (!winner || compareRules(rule, winner) < 0)) winner = rule;
  return winner;
}

function isAllow(rule: CompiledRule): boolean {
  return rule.action === 'allow' || rule.action === 'allowAllRequests';
}

/** Negative when `a` takes precedence over `b`. */
export function compareRules(a: CompiledRule, b: CompiledRule): number {
  return b.priority - a.priority || a.actionRank - b.actionRank || (SOURCE_RANK[a.rulesetId] ?? 2) - (SOURCE_RANK[b.rulesetId] ?? 2) || a.id - b.id;
}

function compileAll(rules: unknown, where: { rulesetId: string; extensionId: string }, skipped: string[]): CompiledRule[] {
  if (!Array.isArray(rules)) {
    skipped.push(typeof rules === 'string' ? rules : 'the ruleset must be a JSON list of rules');
    return [];
  }
  const out: CompiledRule[] = [];
  const ids = new Set<number>();
  let regexCount = 0;
  for (const input of rules) {
    try {
      const rule = compileRule(input, where);
      if (ids.has(rule.id)) throw new RuleError(rule.id, 'id', 'is not unique in its ruleset');
      if (rule.isRegex && ++regexCount > DNR_LIMITS.MAX_NUMBER_OF_REGEX_RULES) throw new RuleError(rule.id, 'condition.regexFilter', `more than ${DNR_LIMITS.MAX_NUMBER_OF_REGEX_RULES} regex rules in one ruleset`);
      ids.add(rule.id);
      out.push(rule);
    } catch (error) {
      if (!(error instanceof RuleError)) throw error;
      skipped.push(error.message);
    }
  }
  return out;
}

function rulesOf(index: RuleIndex, ids: number[] | undefined): DnrRule[] {
  const wanted = ids && new Set(ids);
  return index.rules.filter((rule) => !wanted || wanted.has(rule.id)).map((rule) => structuredClone(rule.rule));
}
