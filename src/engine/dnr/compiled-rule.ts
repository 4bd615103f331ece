// One declarativeNetRequest rule, checked as Chrome checks it when a ruleset loads or
// updateDynamicRules is called (an error names the rule id and the field), and compiled for
// matching: its URL test, its condition sets, and its place in the precedence order. `mismatch`
// answers the question authors ask most: which condition kept this rule from matching.
import { getPublicSuffix } from 'tough-cookie';
import { compileUrlFilter, UrlFilterError } from './url-filter.js';
import { linearRegex, regexSupport } from './regex-support.js';
import {
  ACTION_ORDER,
  REQUEST_METHODS,
  RESOURCE_TYPES,
  type DnrActionType,
  type DnrRequestMethod,
  type DnrResourceType,
  type DnrRule,
  type HeaderInfo,
  type ModifyHeaderInfo,
  type RulesetId,
} from './dnr-types.js';

/** What a rule is matched against: a request as far as DNR can see it. */
export interface DnrRequest {
  url: string;
  method: string;
  type: DnrResourceType;
  tabId: number;
  /** The initiator's origin (Chrome's details.initiator); absent for a typed navigation. */
  initiator?: string;
  /** Known once the response's headers arrived (responseHeaders conditions). */
  responseHeaders?: readonly { name: string; value?: string }[];
  /** The URLs of the frame the request belongs to and of its ancestors (allowAllRequests). */
  frameUrls?: readonly string[];
}

export class RuleError extends Error {
  constructor(
    readonly ruleId: number | undefined,
    readonly field: string,
    message: string,
  ) {
    super(`${ruleId === undefined ? 'a rule' : `rule ${ruleId}`}: ${field}: ${message}`);
  }
}

/** Request headers Chrome lets a rule append to (developer.chrome.com, ModifyHeaderInfo). */
const APPENDABLE_REQUEST_HEADERS = new Set([
  'accept', 'accept-encoding', 'accept-language', 'access-control-request-headers', 'cache-control', 'connection', 'content-language', 'cookie',
  'forwarded', 'if-match', 'if-none-match', 'keep-alive', 'range', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'user-agent', 'via', 'want-digest', 'x-forwarded-for',
]);
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const RESOURCE_TYPE_SET = new Set<string>(RESOURCE_TYPES);
/** What the matching path returns for a failed condition (never shown). */
const FAILED = 'failed';
/** A rule with responseHeaders conditions, all its other conditions met, before the response. */
const HEADERS_PENDING = 'responseHeaders: decided once the response headers arrive';
const METHOD_SET = new Set<string>(REQUEST_METHODS);

export function compileRule(input: unknown, where: { rulesetId: RulesetId; extensionId: string; session?: boolean }): CompiledRule {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new RuleError(undefined, 'rule', 'must be an object');
  const rule = input as DnrRule;
  const id = rule.id;
  if (!Number.isInteger(id) || id < 1) throw new RuleError(typeof id === 'number' ? id : undefined, 'id', 'must be an integer of 1 or more');
  const fail = (field: string, message: string): never => {
    throw new RuleError(id, field, message);
  };
  const priority = rule.priority ?? 1;
  if (!Number.isInteger(priority) || priority < 1) fail('priority', 'must be an integer of 1 or more');
  const condition = rule.condition;
  if (typeof condition !== 'object' || condition === null) fail('condition', 'is required');
  const action = rule.action;
  if (typeof action !== 'object' || action === null) fail('action', 'is required');
  const type = action.type;
  const actionRank = ACTION_ORDER.indexOf(type);
  if (actionRank === -1) fail('action.type', `must be one of ${ACTION_ORDER.join(', ')}`);

  // The URL condition.
  if (condition.urlFilter !== undefined && condition.regexFilter !== undefined) fail('condition', 'urlFilter and regexFilter cannot both be given');
  let regex: RegExp | undefined;
  let literals: readonly string[] = [];
  const caseSensitive = condition.isUrlFilterCaseSensitive ?? false;
  if (condition.urlFilter !== undefined) {
    if (typeof condition.urlFilter !== 'string') fail('condition.urlFilter', 'must be a string');
    try {
      ({ regex, literals } = compileUrlFilter(condition.urlFilter, caseSensitive));
    } catch (error) {
      if (error instanceof UrlFilterError) fail('condition.urlFilter', error.message);
      throw error;
    }
  } else if (condition.regexFilter !== undefined) {
    if (typeof condition.regexFilter !== 'string' || condition.regexFilter === '') fail('condition.regexFilter', 'must be a non-empty string');
    const support = regexSupport(condition.regexFilter, { isCaseSensitive: caseSensitive });
    if (!support.isSupported) return fail('condition.regexFilter', `${support.reason}: ${support.detail}`);
    regex = support.regex;
    literals = regexLiterals(regex.source);
  }

  // Lists: never empty when given; values from the schema's enums; domains lowercase ASCII.
  const list = <T>(field: keyof typeof condition, check?: (value: unknown) => boolean, what?: string): T[] | undefined => {
    const value = condition[field];
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) return fail(`condition.${field}`, 'must be a list');
    if (value.length === 0 && !String(field).startsWith('excluded')) fail(`condition.${field}`, 'must not be an empty list (leave it out to match everything)');
    for (const item of value) if (check && !check(item)) fail(`condition.${field}`, `${JSON.stringify(item)} is not ${what}`);
    return value as T[];
  };
  const domain = (value: unknown) => typeof value === 'string' && value !== '' && /^[\x00-\x7f]*$/.test(value) && value === value.toLowerCase();
  const domainWhat = 'a lowercase ASCII domain (punycode internationalized ones)';
  const initiatorDomains = list<string>('initiatorDomains', domain, domainWhat) ?? list<string>('domains', domain, domainWhat);
  const excludedInitiatorDomains = list<string>('excludedInitiatorDomains', domain, domainWhat) ?? list<string>('excludedDomains', domain, domainWhat);
  if (condition.domains !== undefined && condition.initiatorDomains !== undefined) fail('condition.domains', 'is the old name of initiatorDomains: give one of them');
  const requestDomains = list<string>('requestDomains', domain, domainWhat);
  const excludedRequestDomains = list<string>('excludedRequestDomains', domain, domainWhat);
  const isType = (value: unknown) => typeof value === 'string' && RESOURCE_TYPE_SET.has(value);
  const resourceTypes = list<DnrResourceType>('resourceTypes', isType, 'a resource type');
  const excludedResourceTypes = list<DnrResourceType>('excludedResourceTypes', isType, 'a resource type');
  if (resourceTypes && excludedResourceTypes?.some((t) => resourceTypes.includes(t))) fail('condition.excludedResourceTypes', 'names a type resourceTypes includes');
  const isMethod = (value: unknown) => typeof value === 'string' && METHOD_SET.has(value);
  const requestMethods = list<DnrRequestMethod>('requestMethods', isMethod, 'a request method (lowercase)');
  const excludedRequestMethods = list<DnrRequestMethod>('excludedRequestMethods', isMethod, 'a request method (lowercase)');
  if (requestMethods && excludedRequestMethods?.some((m) => requestMethods.includes(m))) fail('condition.excludedRequestMethods', 'names a method requestMethods includes');
  const isTab = (value: unknown) => Number.isInteger(value);
  const tabIds = list<number>('tabIds', isTab, 'an integer');
  const excludedTabIds = list<number>('excludedTabIds', isTab, 'an integer');
  if ((tabIds || excludedTabIds) && !where.session) fail('condition.tabIds', 'only session rules may name tabs (updateSessionRules)');
  if (condition.domainType !== undefined && condition.domainType !== 'firstParty' && condition.domainType !== 'thirdParty') fail('condition.domainType', 'must be firstParty or thirdParty');
  const headerCondition = (value: unknown) => typeof value === 'object' && value !== null && typeof (value as HeaderInfo).header === 'string' && HEADER_NAME.test((value as HeaderInfo).header);
  const responseHeaders = list<HeaderInfo>('responseHeaders', headerCondition, 'a header condition { header, values?, excludedValues? }');
  const excludedResponseHeaders = list<HeaderInfo>('excludedResponseHeaders', headerCondition, 'a header condition { header, values?, excludedValues? }');

  // The action.
  if (type === 'allowAllRequests' && (!resourceTypes || resourceTypes.some((t) => t !== 'main_frame' && t !== 'sub_frame'))) {
    fail('condition.resourceTypes', 'an allowAllRequests rule must list only main_frame and sub_frame');
  }
  if (type === 'redirect') checkRedirect(action.redirect, condition.regexFilter !== undefined, fail);
  if (type === 'modifyHeaders') {
    const request = action.requestHeaders ?? [];
    const response = action.responseHeaders ?? [];
    if (request.length === 0 && response.length === 0) fail('action', 'a modifyHeaders rule must modify requestHeaders or responseHeaders');
    checkHeaderOps(request, 'action.requestHeaders', true, fail);
    checkHeaderOps(response, 'action.responseHeaders', false, fail);
  }

  return new CompiledRule(rule, where, {
    priority,
    actionRank,
    literals,
    regex,
    // An extension's own regex runs in linear time where V8 can (see linearRegex); ours (urlFilter) are simple.
    linear: condition.regexFilter !== undefined && regex ? linearRegex(regex) : undefined,
    initiatorSet: initiatorDomains && new Set(initiatorDomains),
    excludedInitiatorSet: excludedInitiatorDomains && new Set(excludedInitiatorDomains),
    requestSet: requestDomains && new Set(requestDomains),
    excludedRequestSet: excludedRequestDomains && new Set(excludedRequestDomains),
    types: typeSet(resourceTypes, excludedResourceTypes),
    typesNamed: resourceTypes !== undefined || excludedResourceTypes !== undefined,
    methods: requestMethods && new Set<string>(requestMethods),
    excludedMethods: excludedRequestMethods && new Set<string>(excludedRequestMethods),
    tabs: tabIds && new Set(tabIds),
    excludedTabs: excludedTabIds && new Set(excludedTabIds),
    responseHeaders,
    excludedResponseHeaders,
  });
}

interface RuleConditions {
  priority: number;
  actionRank: number;
  literals: readonly string[];
  regex: RegExp | undefined;
  /** The regex for matching, in linear time; `lower`: against the lowercased URL. */
  linear: { regex: RegExp; lower: boolean } | undefined;
  initiatorSet: ReadonlySet<string> | undefined;
  excludedInitiatorSet: ReadonlySet<string> | undefined;
  requestSet: ReadonlySet<string> | undefined;
  excludedRequestSet: ReadonlySet<string> | undefined;
  types: ReadonlySet<string>;
  typesNamed: boolean;
  methods: ReadonlySet<string> | undefined;
  excludedMethods: ReadonlySet<string> | undefined;
  tabs: ReadonlySet<number> | undefined;
  excludedTabs: ReadonlySet<number> | undefined;
  responseHeaders: readonly HeaderInfo[] | undefined;
  excludedResponseHeaders: readonly HeaderInfo[] | undefined;
}

/**
 * A compiled rule: plain fields and methods on the prototype (30,000 of them are held at once; a
 * closure per check made each 2.4 KB).
 */
export class CompiledRule {
  readonly id: number;
  readonly rulesetId: RulesetId;
  readonly extensionId: string;
  readonly priority: number;
  readonly action: DnrActionType;
  /** Lower wins among rules of equal priority (Chrome's action order). */
  readonly actionRank: number;
  /** Literal pieces of its URL condition (lowercased), for the index; empty when it has none. */
  readonly literals: readonly string[];
  /** Without URL literals: pieces of which a matching URL contains at least one (its requestDomains). */
  readonly anyOfLiterals: readonly string[];
  readonly regex: RegExp | undefined;
  readonly isRegex: boolean;
  /** Only decidable once response headers are known. */
  readonly needsResponseHeaders: boolean;
  readonly #c: RuleConditions;

  constructor(
    readonly rule: DnrRule,
    where: { rulesetId: RulesetId; extensionId: string },
    conditions: RuleConditions,
  ) {
    this.id = rule.id;
    this.rulesetId = where.rulesetId;
    this.extensionId = where.extensionId;
    this.priority = conditions.priority;
    this.action = rule.action.type;
    this.actionRank = conditions.actionRank;
    this.literals = conditions.literals;
    this.anyOfLiterals = conditions.literals.length === 0 && conditions.requestSet ? [...conditions.requestSet] : [];
    this.regex = conditions.regex;
    this.isRegex = rule.condition.regexFilter !== undefined;
    this.needsResponseHeaders = conditions.responseHeaders !== undefined || conditions.excludedResponseHeaders !== undefined;
    this.#c = conditions;
  }

  test(request: PreparedRequest): boolean {
    return this.#failing(request, false) === undefined;
  }

  /** Whether its URL condition (urlFilter or regexFilter; none matches every URL) holds. */
  urlMatches(request: PreparedRequest): boolean {
    const linear = this.#c.linear;
    if (linear) return linear.regex.test(linear.lower ? request.lowerUrl : request.url);
    return !this.regex || this.regex.test(request.url);
  }

  /** A rule with responseHeaders conditions whose other conditions the request (without its response yet) meets. */
  awaitsResponseHeaders(request: PreparedRequest): boolean {
    return this.#failing(request, false) === HEADERS_PENDING;
  }

  /** The first condition the request fails, or undefined when the rule matches. */
  mismatch(request: PreparedRequest): string | undefined {
    return this.#failing(request, true);
  }

  // One walk over the conditions; `explain` says whether to spell out the first that fails (the
  // matching path must not build strings for the thousands of rules a request is tested against).
  #failing(request: PreparedRequest, explain: boolean): string | undefined {
    const c = this.#c;
    const condition = this.rule.condition;
    if (!this.urlMatches(request)) return explain ? (condition.urlFilter !== undefined ? `urlFilter ${JSON.stringify(condition.urlFilter)} does not match the URL` : `regexFilter ${JSON.stringify(condition.regexFilter)} does not match the URL`) : FAILED;
    if (c.requestSet && !underAny(request.host, c.requestSet)) return explain ? `requestDomains: ${request.host} is not one of them or under one` : FAILED;
    if (c.excludedRequestSet && underAny(request.host, c.excludedRequestSet)) return explain ? `excludedRequestDomains: ${request.host} is excluded` : FAILED;
    if (c.initiatorSet && (request.initiatorHost === undefined || !underAny(request.initiatorHost, c.initiatorSet))) return explain ? (request.initiatorHost === undefined ? 'initiatorDomains: the request has no initiator' : `initiatorDomains: ${request.initiatorHost} is not one of them or under one`) : FAILED;
    if (c.excludedInitiatorSet && request.initiatorHost !== undefined && underAny(request.initiatorHost, c.excludedInitiatorSet)) return explain ? `excludedInitiatorDomains: ${request.initiatorHost} is excluded` : FAILED;
    if (!c.types.has(request.type)) return explain ? (c.typesNamed ? `resourceTypes: ${request.type} is not included` : 'resourceTypes: main_frame needs resourceTypes to name it (left out, they match every type but main_frame)') : FAILED;
    if (c.methods || c.excludedMethods) {
      const method = methodOf(request.method);
      if (c.methods && !c.methods.has(method)) return explain ? `requestMethods: ${method} is not included` : FAILED;
      if (c.excludedMethods && c.excludedMethods.has(method)) return explain ? `excludedRequestMethods: ${method} is excluded` : FAILED;
    }
    if (c.tabs && !c.tabs.has(request.tabId)) return explain ? `tabIds: tab ${request.tabId} is not included` : FAILED;
    if (c.excludedTabs && c.excludedTabs.has(request.tabId)) return explain ? `excludedTabIds: tab ${request.tabId} is excluded` : FAILED;
    if (condition.domainType === 'firstParty' && request.thirdParty) return explain ? 'domainType: the request is third-party' : FAILED;
    if (condition.domainType === 'thirdParty' && !request.thirdParty) return explain ? 'domainType: the request is first-party' : FAILED;
    if (c.responseHeaders || c.excludedResponseHeaders) {
      const headers = request.responseHeaders;
      if (!headers) return HEADERS_PENDING;
      if (c.responseHeaders && !c.responseHeaders.some((info) => headerMatches(info, headers))) return explain ? 'responseHeaders: no listed header matches' : FAILED;
      if (c.excludedResponseHeaders?.some((info) => headerMatches(info, headers))) return explain ? 'excludedResponseHeaders: an excluded header is present' : FAILED;
    }
    return undefined;
  }
}

export function prepareRequest(request: DnrRequest): PreparedRequest {
  return new PreparedRequest(request);
}

/**
 * A request prepared once for all rules: lowercased URL, hosts. A class, not an object literal:
 * V8 keeps its shape fast (a literal with a getter and a spread was 10× dearer).
 */
export class PreparedRequest implements DnrRequest {
  readonly url: string;
  readonly method: string;
  readonly type: DnrRequest['type'];
  readonly tabId: number;
  readonly initiator: string | undefined;
  readonly responseHeaders: DnrRequest['responseHeaders'];
  readonly lowerUrl: string;
  readonly host: string;
  readonly initiatorHost: string | undefined;
  #thirdParty: boolean | undefined;

  constructor(request: DnrRequest) {
    this.url = request.url;
    this.method = request.method;
    this.type = request.type;
    this.tabId = request.tabId;
    this.initiator = request.initiator;
    this.responseHeaders = request.responseHeaders;
    this.lowerUrl = request.url.toLowerCase();
    this.host = hostOf(request.url) ?? ''; // not a URL DNR can see: no domain condition matches it
    this.initiatorHost = request.initiator !== undefined && request.initiator !== 'null' ? hostOf(request.initiator) : undefined;
  }

  /** No initiator (a typed navigation) counts as first-party, an opaque one as third-party; worked out when a domainType rule asks. */
  get thirdParty(): boolean {
    return (this.#thirdParty ??= this.initiator === 'null' || (this.initiatorHost !== undefined && siteOf(this.initiatorHost) !== siteOf(this.host)));
  }
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/** The registrable domain; special-use names (.test, .example, localhost) count as ordinary ones. */
function siteOf(host: string): string {
  try {
    return getPublicSuffix(host.replace(/^\[|\]$/g, ''), { allowSpecialUseDomain: true }) ?? host;
  } catch {
    return host;
  }
}

/** The types a rule matches; rules share one Set per combination (30,000 rules hold a handful). */
const typeSets = new Map<string, ReadonlySet<string>>();
function typeSet(included: readonly string[] | undefined, excluded: readonly string[] | undefined): ReadonlySet<string> {
  const key = `${included?.join(',') ?? '*'}|${excluded?.join(',') ?? ''}`;
  let set = typeSets.get(key);
  if (!set) {
    const types = new Set<string>(included ?? RESOURCE_TYPES.filter((type) => type !== 'main_frame' || excluded !== undefined));
    for (const type of excluded ?? []) types.delete(type);
    typeSets.set(key, (set = types));
  }
  return set;
}

function methodOf(method: string): string {
  const lower = method.toLowerCase();
  return METHOD_SET.has(lower) ? lower : 'other';
}

/** The host is one of the domains or under one (a.b.example.com is under example.com). */
function underAny(host: string, domains: ReadonlySet<string>): boolean {
  for (let at = 0; ; ) {
    if (domains.has(host.slice(at))) return true;
    const dot = host.indexOf('.', at);
    if (dot === -1) return false;
    at = dot + 1;
  }
}

function headerMatches(info: HeaderInfo, headers: readonly { name: string; value?: string }[]): boolean {
  const name = info.header.toLowerCase();
  const values = headers.filter((header) => header.name.toLowerCase() === name).map((header) => header.value ?? '');
  if (values.length === 0) return false;
  const matchesAny = (patterns: string[]) => values.some((value) => patterns.some((pattern) => wildcard(pattern).test(value)));
  if (info.excludedValues && matchesAny(info.excludedValues)) return false;
  if (info.values) return matchesAny(info.values);
  return true;
}

const wildcards = new Map<string, RegExp>();
/** Header value patterns: `*` and `?` wildcards, case-insensitive. */
function wildcard(pattern: string): RegExp {
  let regex = wildcards.get(pattern);
  if (!regex) {
    regex = new RegExp(`^${pattern.replace(/[\\^$.+()[\]{}|\/-]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');
    wildcards.set(pattern, regex);
  }
  return regex;
}

function checkRedirect(redirect: unknown, hasRegexFilter: boolean, fail: (field: string, message: string) => never): void {
  if (typeof redirect !== 'object' || redirect === null) fail('action.redirect', 'a redirect rule needs action.redirect');
  const given = (['url', 'extensionPath', 'transform', 'regexSubstitution'] as const).filter((key) => (redirect as Record<string, unknown>)[key] !== undefined);
  if (given.length !== 1) fail('action.redirect', 'must give exactly one of url, extensionPath, transform, regexSubstitution');
  const value = redirect as Record<string, unknown>;
  if (value.url !== undefined) {
    try {
      new URL(String(value.url));
    } catch {
      fail('action.redirect.url', `${JSON.stringify(value.url)} is not a valid URL`);
    }
    if (/^javascript:/i.test(String(value.url))) fail('action.redirect.url', 'must not be a javascript: URL');
  }
  if (value.extensionPath !== undefined && (typeof value.extensionPath !== 'string' || !value.extensionPath.startsWith('/'))) fail('action.redirect.extensionPath', "must start with '/'");
  if (value.regexSubstitution !== undefined && !hasRegexFilter) fail('action.redirect.regexSubstitution', 'needs a regexFilter in the condition');
  if (value.transform !== undefined) {
    const transform = value.transform as Record<string, unknown>;
    if (transform.scheme !== undefined && !['http', 'https', 'ftp', 'chrome-extension'].includes(String(transform.scheme))) fail('action.redirect.transform.scheme', 'must be http, https, ftp or chrome-extension');
    if (transform.query !== undefined && transform.query !== '' && !String(transform.query).startsWith('?')) fail('action.redirect.transform.query', "must be empty or start with '?'");
    if (transform.fragment !== undefined && transform.fragment !== '' && !String(transform.fragment).startsWith('#')) fail('action.redirect.transform.fragment', "must be empty or start with '#'");
    if (transform.query !== undefined && transform.queryTransform !== undefined) fail('action.redirect.transform', 'query and queryTransform cannot both be given');
  }
}

function checkHeaderOps(ops: readonly ModifyHeaderInfo[], field: string, request: boolean, fail: (field: string, message: string) => never): void {
  if (!Array.isArray(ops)) fail(field, 'must be a list');
  for (const op of ops) {
    if (typeof op?.header !== 'string' || !HEADER_NAME.test(op.header)) fail(field, `${JSON.stringify(op?.header)} is not a header name`);
    if (!['append', 'set', 'remove'].includes(op.operation)) fail(`${field}[${op.header}].operation`, 'must be append, set or remove');
    if (op.operation === 'remove' && op.value !== undefined) fail(`${field}[${op.header}].value`, 'a remove takes no value');
    if (op.operation !== 'remove' && (typeof op.value !== 'string' || op.value === '')) fail(`${field}[${op.header}].value`, `an ${op.operation} needs a value`);
    if (request && op.operation === 'append' && !APPENDABLE_REQUEST_HEADERS.has(op.header.toLowerCase())) fail(`${field}[${op.header}].operation`, `Chrome does not let rules append to the request header ${op.header}`);
  }
}

/** Literal runs a regex requires (lowercased), for the index: empty when it has a top-level alternation. */
export function regexLiterals(source: string): string[] {
  let depth = 0;
  for (let index = 0; index < source.length; index++) {
    const character = source[index];
    if (character === '\\') index++;
    else if (character === '[') {
      const end = source.indexOf(']', index + 2);
      index = end === -1 ? source.length : end;
    } else if (character === '(') depth++;
    else if (character === ')') depth--;
    else if (character === '|' && depth === 0) return [];
  }
  const runs: string[] = [];
  let run = '';
  const flush = () => {
    if (run) runs.push(run.toLowerCase());
    run = '';
  };
  for (let index = 0; index < source.length; index++) {
    const character = source[index]!;
    const next = source[index + 1];
    const optional = next === '?' || next === '*' || (next === '{' && /^\{0/.test(source.slice(index + 1)));
    if (character === '\\') {
      const escaped = source[index + 1];
      index++;
      const after = source[index + 1];
      if (escaped !== undefined && /[.\/\-?+*()[\]{}|^$\\]/.test(escaped) && after !== '?' && after !== '*' && after !== '{') run += escaped;
      else flush();
    } else if (character === '[' || character === '(') {
      flush();
      // Skip the class or group: what is inside may be optional or alternative.
      let depthHere = 0;
      for (; index < source.length; index++) {
        const c = source[index];
        if (c === '\\') index++;
        else if (c === '[' || c === '(') depthHere++;
        else if (c === ']' || c === ')') {
          depthHere--;
          if (depthHere === 0) break;
        }
      }
    } else if ('.^$|+*?{}'.includes(character)) {
      if (character === '{') {
        const close = source.indexOf('}', index);
        index = close === -1 ? source.length : close;
      }
      flush();
    } else if (optional) flush();
    else run += character;
  }
  flush();
  return runs;
}
