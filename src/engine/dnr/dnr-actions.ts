// What a matched rule does to a request: the URL a redirect or upgradeScheme rule sends it to, and
// the headers modifyHeaders rules leave. Pure functions over Chrome's documented semantics.
import type { HttpHeaders } from '../types.js';
import type { CompiledRule } from './compiled-rule.js';
import type { HeaderOperation, ModifyHeaderInfo, UrlTransform } from './dnr-types.js';

/** The URL a redirect rule sends `url` to, or undefined when it cannot (an invalid result). */
export function redirectTarget(rule: CompiledRule, url: string, extensionBaseUrl: string): string | undefined {
  const redirect = rule.rule.action.redirect!;
  try {
    if (redirect.url !== undefined) return new URL(redirect.url).href;
    if (redirect.extensionPath !== undefined) return new URL(redirect.extensionPath, extensionBaseUrl).href;
    if (redirect.regexSubstitution !== undefined && rule.regex) {
      // `\0` is the whole match, `\1`…`\9` the groups, `\\` a backslash; only the first match is replaced.
      const replacement = redirect.regexSubstitution.replace(/\$/g, '$$$$').replace(/\\(\\|\d)/g, (_all, what: string) => (what === '\\' ? '\\' : what === '0' ? '$&' : `$${what}`));
      const firstMatch = new RegExp(rule.regex.source, rule.regex.flags.replace('g', ''));
      if (!firstMatch.test(url)) return undefined;
      return new URL(url.replace(firstMatch, replacement)).href;
    }
    if (redirect.transform !== undefined) return transformUrl(url, redirect.transform);
  } catch {
    return undefined;
  }
  return undefined;
}

export function transformUrl(url: string, transform: UrlTransform): string {
  const target = new URL(url);
  if (transform.scheme !== undefined) {
    const defaultPort = target.port === '';
    target.protocol = `${transform.scheme}:`;
    if (defaultPort) target.port = '';
  }
  if (transform.host !== undefined) target.hostname = transform.host;
  if (transform.port !== undefined) target.port = transform.port;
  if (transform.path !== undefined) target.pathname = transform.path === '' ? '/' : transform.path;
  if (transform.query !== undefined) target.search = transform.query;
  else if (transform.queryTransform) {
    const remove = new Set(transform.queryTransform.removeParams ?? []);
    const pairs = target.search
      .slice(1)
      .split('&')
      .filter((pair) => pair !== '')
      .map((pair) => {
        const equals = pair.indexOf('=');
        return { key: decodeURIComponent(equals === -1 ? pair : pair.slice(0, equals)), raw: pair };
      })
      .filter((pair) => !remove.has(pair.key));
    const out = pairs.map((pair) => pair.raw);
    for (const param of transform.queryTransform.addOrReplaceParams ?? []) {
      const encoded = `${encodeURIComponent(param.key)}=${encodeURIComponent(param.value)}`;
      const at = pairs.findIndex((pair) => pair.key === param.key);
      if (at !== -1) out[at] = encoded;
      else if (!param.replaceOnly) out.push(encoded);
    }
    target.search = out.length > 0 ? `?${out.join('&')}` : '';
  }
  if (transform.fragment !== undefined) target.hash = transform.fragment;
  if (transform.username !== undefined) target.username = transform.username;
  if (transform.password !== undefined) target.password = transform.password;
  return target.href;
}

/** http → https and ws → wss; undefined for any other scheme (the rule then does nothing). */
export function upgradedUrl(url: string): string | undefined {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'ws:') return undefined;
  const defaultPort = target.port === '';
  target.protocol = target.protocol === 'http:' ? 'https:' : 'wss:';
  if (defaultPort) target.port = '';
  return target.href;
}

/** One header operation that took effect, for the journal. */
export interface AppliedHeaderOp extends ModifyHeaderInfo {
  ruleId: number;
  rulesetId: string;
  extensionId: string;
}

/**
 * Applies modifyHeaders rules in the order given (highest precedence first). Chrome's rule: once
 * a rule set or removed a header, later rules leave it alone; once a rule appended to it, later
 * rules may only append.
 */
export function modifyHeaders(
  headers: HttpHeaders,
  rules: readonly CompiledRule[],
  which: 'requestHeaders' | 'responseHeaders',
  /** What earlier rules (a more recent extension's) did to each header; updated. */
  settled = new Map<string, HeaderOperation>(),
): { headers: HttpHeaders; applied: AppliedHeaderOp[]; rules: CompiledRule[] } {
  let out = headers;
  const applied: AppliedHeaderOp[] = [];
  const used: CompiledRule[] = [];
  for (const rule of rules) {
    let usedThis = false;
    for (const op of rule.rule.action[which] ?? []) {
      const name = op.header.toLowerCase();
      const before = settled.get(name);
      if (before === 'set' || before === 'remove') continue;
      if (before === 'append' && op.operation !== 'append') continue;
      if (op.operation === 'remove') out = out.filter((header) => header.name.toLowerCase() !== name);
      else if (op.operation === 'set') out = [...out.filter((header) => header.name.toLowerCase() !== name), { name: op.header, value: op.value! }];
      else {
        // A response header gets one more field; a request header's value is joined ("a, b";
        // "a; b" for Cookie), the one field a request carries.
        const existing = which === 'requestHeaders' ? out.find((header) => header.name.toLowerCase() === name) : undefined;
        const separator = name === 'cookie' ? '; ' : ', ';
        out = existing
          ? out.map((header) => (header === existing ? { name: header.name, value: `${header.value ?? ''}${separator}${op.value!}` } : header))
          : [...out, { name: op.header, value: op.value! }];
      }
      settled.set(name, op.operation);
      applied.push({ ...op, ruleId: rule.id, rulesetId: rule.rulesetId, extensionId: rule.extensionId });
      usedThis = true;
    }
    if (usedThis) used.push(rule);
  }
  return { headers: out, applied, rules: used };
}
