// Quick rules from a request: "block this URL", "redirect it to …", "set a request or response
// header", "answer from a local file", as declarativeNetRequest rules (quick-rules-file.ts appends
// them to the rules folder's quick-rules/rules.json). The condition is the narrowest that fits:
// the request's URL itself, without its fragment, of any resource type (an empty
// excludedResourceTypes: left out, Chrome would skip main_frame, the page the user is looking at).
// Answer-from-a-file is Chrome's own form: a redirect to a file of the extension (extensionPath),
// which wrtui serves in place of the response, as Chrome serves a web accessible resource.
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { RuleCondition } from '../../engine/dnr/dnr-types.js';
import type { NewQuickRule } from '../../engine/rules/quick-rules-file.js';

export type QuickRuleKind = 'block' | 'redirect' | 'header' | 'response-header' | 'file';

export interface QuickRuleRequest {
  requestId: string;
  method: string;
  url: string;
}

/** What `w` prompts for. */
export const QUICK_RULE_USAGE = 'one of: block, redirect URL, header Name: value, response-header Name: value, file PATH';

/** The largest file an answer is copied from (it is read again for every request it answers). */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** "block", "redirect https://…", "header X-Debug: 1", "response-header Cache-Control: no-store", "file ./mock.json". */
export async function quickRuleFrom(command: string, request: QuickRuleRequest): Promise<{ ok: true; rule: NewQuickRule } | { ok: false; error: string }> {
  const trimmed = command.trim();
  const space = trimmed.search(/\s/);
  const kind = (space === -1 ? trimmed : trimmed.slice(0, space)).toLowerCase();
  const argument = space === -1 ? '' : trimmed.slice(space + 1).trim();
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { ok: false, error: `the request's URL ${JSON.stringify(request.url)} cannot be matched by a rule` };
  }
  url.hash = '';
  const condition = exactUrlCondition(url.href);
  switch (kind) {
    case 'block':
      return { ok: true, rule: { condition, action: { type: 'block' } } };
    case 'redirect': {
      if (!URL.canParse(argument)) return { ok: false, error: 'redirect needs a URL: redirect https://example.test/other' };
      return { ok: true, rule: { condition, action: { type: 'redirect', redirect: { url: new URL(argument).href } } } };
    }
    case 'header':
    case 'response-header': {
      const colon = argument.indexOf(':');
      const name = colon === -1 ? '' : argument.slice(0, colon).trim();
      if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) return { ok: false, error: `${kind} needs "Name: value": ${kind} X-Debug: 1` };
      const value = argument.slice(colon + 1).trim();
      // "set": any header of that name already there is replaced.
      const change = [{ header: name, operation: 'set' as const, value }];
      return { ok: true, rule: { condition, action: kind === 'header' ? { type: 'modifyHeaders', requestHeaders: change } : { type: 'modifyHeaders', responseHeaders: change } } };
    }
    case 'file': {
      if (argument === '') return { ok: false, error: 'file needs a path: file ./mock.json' };
      const path = resolve(argument);
      try {
        const info = await stat(path);
        if (!info.isFile()) return { ok: false, error: `${path} is not a file` };
        if (info.size > MAX_ANSWER_BYTES) return { ok: false, error: `${path} is ${info.size} bytes; an answer is at most ${MAX_ANSWER_BYTES}` };
      } catch (error) {
        return { ok: false, error: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
      }
      // The extensionPath is filled in when the file is copied into the folder (addQuickRule).
      return { ok: true, rule: { condition, action: { type: 'redirect', redirect: { extensionPath: '/' } }, answer: { from: path, name: basename(path) } } };
    }
    default:
      return { ok: false, error: QUICK_RULE_USAGE };
  }
}

/**
 * Exactly `href`: a urlFilter anchored at both ends (`|…|`), case-sensitive; a URL with one of
 * urlFilter's special characters (* ^ |) gets the same as a regexFilter.
 */
export function exactUrlCondition(href: string): RuleCondition {
  const base = { isUrlFilterCaseSensitive: true, excludedResourceTypes: [] };
  if (/[*^|]/.test(href)) return { regexFilter: `^${href.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, ...base };
  return { urlFilter: `|${href}|`, ...base };
}
