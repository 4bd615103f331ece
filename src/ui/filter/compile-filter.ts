// Turns a filter expression into a predicate over requests. Pure: what a field means lives here,
// the grammar in parse-filter.ts. Every value is checked now, so a bad one is reported with its
// position while the user types, never found out while filtering.
//
//   word / "quoted"     the URL contains it (case-insensitive, not a regex)
//   host:RE  url:RE     regular expressions (case-insensitive) on the host / the whole URL;
//   path:RE             on the path and query. `url:/api/` therefore finds "/api/" in the URL.
//                       A redirected request matches when any of its hops' URLs does.
//   method:POST         exact, case-insensitive; `method:GET,POST` for either
//   status:404 4xx 40x 400-499 >=400 <300 error pending   (comma-separated for any of them)
//   type:image          a ResourceType or a short alias (xhr, js, css, img, doc, frame, ws, font)
//   is:cancelled redirected dry-run failed modified headers auth ignored error pending done
//   rule:NAME           a rule answered for the request (regular expression on its name)
//   by:NAME             an extension made the request itself, its own fetch (regular expression
//                       on its name); `by:.` every such request
//   header:NAME         a request (as sent) or response header by that name; header:NAME=TEXT
//                       one whose value contains TEXT (case-insensitive)
//   body:TEXT           the request's or the response's body contains TEXT (decoded, case-insensitive)
//   ws:TEXT             a WebSocket one of whose messages contains TEXT (case-insensitive)
//   dnr:block           a declarativeNetRequest rule blocked it (also redirect, upgradeScheme, allow,
//                       modifyHeaders, any); dnr:main#3 or dnr:3: that rule acted on it or, with the
//                       engine at hand, would match it now (whatever its precedence)
import type { DnrEntry } from '../../engine/journal.js';
import { RESOURCE_TYPES, type ResourceType } from '../../engine/types.js';
import { splitUrl } from '../store/split-url.js';
import { allHeaders, bodyTexts, type RequestContent } from './request-content.js';
import { messageText } from '../detail/websocket-lines.js';
import type { WebSocketMessageRecord } from '../store/request-record.js';
import { FILTER_FIELDS, parseFilter, type FilterError, type FilterNode } from './parse-filter.js';

/** What a rule did to a request, as the list marks it and `is:` filters it. */
export type RuleVerdict =
  /** a rule's cancel was applied */
  | 'cancelled'
  /** a rule's redirectUrl was applied */
  | 'redirected'
  | 'request-headers'
  | 'response-headers'
  /** a rule answered onAuthRequired with credentials (or cancelled it) */
  | 'auth'
  /** a rule in dry-run would have done something */
  | 'dry-run'
  /** a listener threw, timed out or returned something invalid */
  | 'failed'
  /** a rule's answer lost a conflict or was not allowed */
  | 'ignored';

/** The facts of a request the filter looks at (RequestRecord has them all). */
export interface FilterableRequest extends RequestContent {
  url: string;
  host: string;
  /** Path and query. */
  path: string;
  /** The URLs of a redirect chain's earlier hops, first first (url is the latest hop's). */
  earlierUrls?: readonly string[];
  method: string;
  statusCode: number | undefined;
  /** net::ERR_* when the request failed. */
  error: string | undefined;
  phase: 'pending' | 'completed' | 'failed';
  type: string;
  /** The tab it was counted in (-1: none). */
  tabId: number;
  verdicts: ReadonlySet<RuleVerdict>;
  /** Rules (owners) that answered any event of the request. */
  rules: ReadonlySet<string>;
  /** An extension made the request itself (its own fetch). */
  madeBy?: { extension: string } | undefined;
  /** In a replay: whether the request behaved as recorded (is:changed, is:identical). */
  replayDiff?: { identical: boolean } | undefined;
  /** What declarativeNetRequest rules did to it. */
  dnr?: readonly DnrEntry[];
  /** A WebSocket's messages (ws:). */
  wsMessages?: readonly WebSocketMessageRecord[] | undefined;
}

/** A rule named in a filter: `main#3` or `3` (any ruleset). */
export interface DnrRuleRef {
  rulesetId?: string;
  ruleId: number;
}

export interface FilterOptions {
  /** Whether the rule matches the request now (the DNR engine's answer); without it, `dnr:ID` looks at what rules did only. */
  dnrRuleMatches?: (rule: DnrRuleRef, request: FilterableRequest) => boolean;
}

export type RequestPredicate = (request: FilterableRequest) => boolean;

export type CompiledFilter =
  | { ok: true; predicate: RequestPredicate | undefined; source: string }
  | { ok: false; error: FilterError; source: string };

export const TYPE_ALIASES: Readonly<Record<string, ResourceType>> = {
  xhr: 'xmlhttprequest',
  fetch: 'xmlhttprequest',
  js: 'script',
  css: 'stylesheet',
  img: 'image',
  doc: 'main_frame',
  document: 'main_frame',
  frame: 'sub_frame',
  iframe: 'sub_frame',
  ws: 'websocket',
  manifest: 'web_manifest',
  csp: 'csp_report',
};

export const IS_VALUES = ['cancelled', 'redirected', 'dry-run', 'failed', 'modified', 'headers', 'auth', 'ignored', 'error', 'pending', 'done', 'changed', 'identical'] as const;

/** Parses and compiles; `predicate` is undefined for an empty expression (everything passes). */
export function compileFilter(source: string, options: FilterOptions = {}): CompiledFilter {
  const parsed = parseFilter(source);
  if (!parsed.ok) return { ok: false, error: parsed.error, source };
  if (!parsed.node) return { ok: true, predicate: undefined, source };
  try {
    return { ok: true, predicate: compileNode(parsed.node, options), source };
  } catch (error) {
    if (error instanceof FilterValueError) return { ok: false, error: error.error, source };
    throw error;
  }
}

class FilterValueError extends Error {
  constructor(readonly error: FilterError) {
    super(error.message);
  }
}

function compileNode(node: FilterNode, options: FilterOptions): RequestPredicate {
  switch (node.kind) {
    case 'and': {
      const left = compileNode(node.left, options);
      const right = compileNode(node.right, options);
      return (request) => left(request) && right(request);
    }
    case 'or': {
      const left = compileNode(node.left, options);
      const right = compileNode(node.right, options);
      return (request) => left(request) || right(request);
    }
    case 'not': {
      const operand = compileNode(node.operand, options);
      return (request) => !operand(request);
    }
    case 'text': {
      const needle = node.text.toLowerCase();
      return anyHop((url) => url.toLowerCase().includes(needle));
    }
    case 'field':
      return compileField(node, options);
  }
}

type FieldNode = Extract<FilterNode, { kind: 'field' }>;

function compileField(node: FieldNode, options: FilterOptions): RequestPredicate {
  const fail = (message: string): never => {
    throw new FilterValueError({ message, position: node.valuePosition, length: Math.max(1, node.value.length) });
  };
  switch (node.field) {
    case 'host': {
      const pattern = regexOf(node.value, fail);
      return anyHop((url, request) => pattern.test(request ? request.host : splitUrl(url).host));
    }
    case 'url': {
      const pattern = regexOf(node.value, fail);
      return anyHop((url) => pattern.test(url));
    }
    case 'path': {
      const pattern = regexOf(node.value, fail);
      return anyHop((url, request) => pattern.test(request ? request.path : splitUrl(url).path));
    }
    case 'method': {
      const methods = new Set(node.value.split(',').filter(Boolean).map((method) => method.toUpperCase()));
      if (methods.size === 0) fail('method: needs a method, e.g. method:POST');
      return (request) => methods.has(request.method.toUpperCase());
    }
    case 'status':
      return anyOf(node.value.split(',').map((part) => statusTest(part, fail)));
    case 'type': {
      const types: ReadonlySet<string> = new Set<string>(node.value.split(',').map((part) => typeOf(part, fail)));
      return (request) => types.has(request.type);
    }
    case 'tab': {
      // tab:3, tab:3,5, tab:none (requests from no tab, -1), tab:any (from some tab).
      const tests = node.value.split(',').filter(Boolean).map((part): RequestPredicate => {
        const word = part.toLowerCase();
        if (word === 'none') return (request) => request.tabId === -1;
        if (word === 'any') return (request) => request.tabId !== -1;
        if (!/^\d+$/.test(word)) return fail('tab: needs a tab id, none or any, e.g. tab:3 or tab:none');
        const id = Number(word);
        return (request) => request.tabId === id;
      });
      if (tests.length === 0) fail('tab: needs a tab id, none or any, e.g. tab:3 or tab:none');
      return anyOf(tests);
    }
    case 'is':
      return anyOf(node.value.split(',').map((part) => verdictTest(part, fail)));
    case 'rule': {
      const pattern = regexOf(node.value, fail);
      return (request) => {
        for (const rule of request.rules) if (pattern.test(rule)) return true;
        return false;
      };
    }
    case 'by': {
      const pattern = regexOf(node.value, fail);
      return (request) => request.madeBy !== undefined && pattern.test(request.madeBy.extension);
    }
    case 'header': {
      const equals = node.value.indexOf('=');
      const name = (equals === -1 ? node.value : node.value.slice(0, equals)).trim().toLowerCase();
      const text = equals === -1 ? undefined : node.value.slice(equals + 1).toLowerCase();
      if (name === '') fail('header: needs a header name, e.g. header:x-token or header:content-type=json');
      return (request) => allHeaders(request).some((header) => header.name.toLowerCase() === name && (text === undefined || (header.value ?? '').toLowerCase().includes(text)));
    }
    case 'body': {
      const text = node.value.toLowerCase();
      if (text === '') fail('body: needs text to look for, e.g. body:token');
      return (request) => bodyTexts(request).some((body) => body.includes(text));
    }
    case 'ws': {
      // A WebSocket one of whose messages (either way) contains TEXT.
      const text = node.value.toLowerCase();
      return (request) => (request.wsMessages ?? []).some((message) => messageText(message).toLowerCase().includes(text));
    }
    case 'dnr':
      return dnrTest(node.value, options, fail);
    default:
      throw new FilterValueError({
        message: `unknown field "${node.field}" (fields: ${FILTER_FIELDS.join(', ')}; quote it to search the URL)`,
        position: node.position,
        length: node.field.length,
      });
  }
}

/**
 * A URL test passed by the latest hop or any earlier one. `request` is given for the latest hop,
 * whose host and path are already split.
 */
function anyHop(test: (url: string, request?: FilterableRequest) => boolean): RequestPredicate {
  return (request) => {
    if (test(request.url, request)) return true;
    if (request.earlierUrls) for (const url of request.earlierUrls) if (test(url)) return true;
    return false;
  };
}

function anyOf(tests: RequestPredicate[]): RequestPredicate {
  if (tests.length === 1) return tests[0]!;
  return (request) => tests.some((test) => test(request));
}

function regexOf(source: string, fail: (message: string) => never): RegExp {
  try {
    return new RegExp(source, 'i');
  } catch (error) {
    return fail(`bad regular expression: ${(error as Error).message.replace(/^Invalid regular expression: /, '')}`);
  }
}

function statusTest(part: string, fail: (message: string) => never): RequestPredicate {
  const text = part.trim().toLowerCase();
  if (text === 'error') return (request) => request.error !== undefined;
  if (text === 'pending') return (request) => request.phase === 'pending';
  const code = (request: FilterableRequest) => request.statusCode;
  const wildcard = /^([1-5])([0-9x])x$/.exec(text);
  if (wildcard) {
    const [, hundreds, tens] = wildcard;
    const low = Number(hundreds) * 100 + (tens === 'x' ? 0 : Number(tens) * 10);
    const high = low + (tens === 'x' ? 99 : 9);
    return (request) => inRange(code(request), low, high);
  }
  if (/^\d{3}$/.test(text)) {
    const exact = Number(text);
    return (request) => code(request) === exact;
  }
  const range = /^(\d{3})-(\d{3})$/.exec(text);
  if (range) {
    const low = Number(range[1]);
    const high = Number(range[2]);
    if (low > high) fail(`the range ${text} is empty`);
    return (request) => inRange(code(request), low, high);
  }
  const comparison = /^(>=|<=|>|<)(\d{3})$/.exec(text);
  if (comparison) {
    const bound = Number(comparison[2]);
    switch (comparison[1]) {
      case '>=':
        return (request) => inRange(code(request), bound, Infinity);
      case '<=':
        return (request) => inRange(code(request), -Infinity, bound);
      case '>':
        return (request) => inRange(code(request), bound + 1, Infinity);
      default:
        return (request) => inRange(code(request), -Infinity, bound - 1);
    }
  }
  return fail(`status:${part} is not a status; try 404, 4xx, 40x, 400-499, >=400, error or pending`);
}

function inRange(code: number | undefined, low: number, high: number): boolean {
  return code !== undefined && code >= low && code <= high;
}

function typeOf(part: string, fail: (message: string) => never): ResourceType {
  const text = part.trim().toLowerCase();
  if ((RESOURCE_TYPES as readonly string[]).includes(text)) return text as ResourceType;
  const alias = TYPE_ALIASES[text];
  if (alias) return alias;
  return fail(`unknown type "${part}"; one of ${RESOURCE_TYPES.join(', ')} (or xhr, js, css, img, doc, frame, ws)`);
}

const DNR_EFFECTS = ['block', 'redirect', 'upgradeScheme', 'allow', 'modifyHeaders'] as const;

function dnrTest(value: string, options: FilterOptions, fail: (message: string) => never): RequestPredicate {
  const text = value.trim();
  if (text.toLowerCase() === 'any') return (request) => (request.dnr?.length ?? 0) > 0;
  const effect = DNR_EFFECTS.find((name) => name.toLowerCase() === text.toLowerCase() || (name === 'modifyHeaders' && text.toLowerCase() === 'headers'));
  if (effect) return (request) => request.dnr?.some((entry) => entry.effect === effect) ?? false;
  const match = /^(?:([^#\s]+)#)?(\d+)$/.exec(text);
  if (!match) return fail(`dnr:${value} is unknown; dnr:any, dnr:${DNR_EFFECTS.join(', dnr:')}, or a rule: dnr:RULESET#ID or dnr:ID`);
  const rule: DnrRuleRef = { ruleId: Number(match[2]), ...(match[1] !== undefined && { rulesetId: match[1] }) };
  const acted = (request: FilterableRequest) => request.dnr?.some((entry) => entry.matches.some((m) => m.ruleId === rule.ruleId && (rule.rulesetId === undefined || m.rulesetId === rule.rulesetId))) ?? false;
  const wouldMatch = options.dnrRuleMatches;
  return wouldMatch ? (request) => acted(request) || wouldMatch(rule, request) : acted;
}

function verdictTest(part: string, fail: (message: string) => never): RequestPredicate {
  const has = (verdict: RuleVerdict): RequestPredicate => (request) => request.verdicts.has(verdict);
  switch (part.trim().toLowerCase()) {
    case 'cancelled':
    case 'canceled':
    case 'blocked':
      return has('cancelled');
    case 'redirected':
      return has('redirected');
    case 'dry-run':
    case 'dryrun':
      return has('dry-run');
    case 'failed':
      return has('failed');
    case 'ignored':
      return has('ignored');
    case 'auth':
      return has('auth');
    case 'headers':
      return (request) => request.verdicts.has('request-headers') || request.verdicts.has('response-headers');
    case 'modified':
      return (request) =>
        request.verdicts.has('cancelled') ||
        request.verdicts.has('redirected') ||
        request.verdicts.has('request-headers') ||
        request.verdicts.has('response-headers') ||
        request.verdicts.has('auth');
    case 'error':
      return (request) => request.error !== undefined;
    case 'changed':
      return (request) => request.replayDiff?.identical === false;
    case 'identical':
      return (request) => request.replayDiff?.identical === true;
    case 'pending':
      return (request) => request.phase === 'pending';
    case 'done':
    case 'completed':
      return (request) => request.phase !== 'pending';
    default:
      return fail(`is:${part} is unknown; one of ${IS_VALUES.join(', ')}`);
  }
}
