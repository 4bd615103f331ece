// A change to a header list as names set and names removed: how several owners' request header
// answers are merged (merge-verdicts.ts) and how a dry-run says what it would change.
import { headerText } from '../headers.js';
import type { HttpHeaders } from '../types.js';

/** A change to request headers: names (lower case) set to a list of values, names removed. */
export interface HeaderDelta {
  set: Map<string, { name: string; values: string[] }>;
  removed: Set<string>;
}

function groupHeaders(headers: HttpHeaders): Map<string, { name: string; values: string[] }> {
  const groups = new Map<string, { name: string; values: string[] }>();
  for (const header of headers) {
    const key = header.name.toLowerCase();
    const group = groups.get(key);
    if (group) group.values.push(headerText(header));
    else groups.set(key, { name: header.name, values: [headerText(header)] });
  }
  return groups;
}

export function headerDelta(before: HttpHeaders, after: HttpHeaders): HeaderDelta {
  const old = groupHeaders(before);
  const now = groupHeaders(after);
  const delta: HeaderDelta = { set: new Map(), removed: new Set() };
  for (const [key, group] of now) {
    const previous = old.get(key);
    if (!previous || previous.values.join('\n') !== group.values.join('\n')) delta.set.set(key, group);
  }
  for (const key of old.keys()) if (!now.has(key)) delta.removed.add(key);
  return delta;
}

/** Headers whose values a journal line never carries: recordings keep journal text as it is. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
const MAX_VALUE_SHOWN = 60;

/**
 * "add X-Served-Via: wrtui; change Accept-Language: en → fr; remove Referer", or "change
 * nothing". Values of credential headers are left out ("Cookie (value not shown)"), long ones cut.
 */
export function describeHeaderDelta(delta: HeaderDelta, before: HttpHeaders): string {
  const old = groupHeaders(before);
  const value = (key: string, values: string[]) => {
    if (CREDENTIAL_HEADERS.has(key)) return '(value not shown)';
    const text = values.join(', ');
    return text.length > MAX_VALUE_SHOWN ? `${text.slice(0, MAX_VALUE_SHOWN - 1)}…` : text;
  };
  const parts: string[] = [];
  for (const [key, group] of delta.set) {
    const previous = old.get(key);
    if (!previous) parts.push(`add ${group.name}: ${value(key, group.values)}`);
    else parts.push(`change ${group.name}: ${value(key, previous.values)} → ${value(key, group.values)}`);
  }
  for (const key of delta.removed) parts.push(`remove ${old.get(key)?.name ?? key}`);
  return parts.length > 0 ? parts.join('; ') : 'change no header';
}
