// "Edit as code": a quick rule (a declarativeNetRequest rule of quick-rules/rules.json) as the
// TypeScript rule file that does the same with webRequest, for a user who wants to grow it into
// code. It then runs in a worker like any rule file. Only the forms `w` writes convert (an exact
// URL; block, redirect, set or remove headers, answer from a file); any other rule is left in the
// JSON with a sentence saying why.
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { DnrRule, ModifyHeaderInfo } from '../../engine/dnr/dnr-types.js';

export interface QuickRuleCode {
  /** Suggested file name, without .ts (the caller picks a free one). */
  name: string;
  source: string;
}

/** A data: URL is how webRequest answers with a body: this much at most, inline in the file. */
const MAX_INLINE_BYTES = 2 * 1024 * 1024;
const MIME_TYPES: Readonly<Record<string, string>> = {
  '.json': 'application/json',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.txt': 'text/plain',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/** The URL a quick rule's condition names exactly (`|url|` or `^url$`), or undefined for any other condition. */
export function exactUrlOf(rule: DnrRule): string | undefined {
  const { urlFilter, regexFilter, ...rest } = rule.condition;
  const others = Object.entries(rest).filter(([key, value]) => key !== 'isUrlFilterCaseSensitive' && !(key === 'excludedResourceTypes' && Array.isArray(value) && value.length === 0));
  if (others.length > 0) return undefined;
  if (urlFilter !== undefined) {
    const match = /^\|([^|*^]+)\|$/.exec(urlFilter);
    return match && URL.canParse(match[1]!) ? match[1] : undefined;
  }
  if (regexFilter !== undefined) {
    const match = /^\^(.*)\$$/.exec(regexFilter);
    if (!match) return undefined;
    const literal = match[1]!.replace(/\\(.)/g, '$1');
    // Only an escaped literal: re-escaping gives back the same pattern.
    return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') === match[1] && URL.canParse(literal) ? literal : undefined;
  }
  return undefined;
}

/** The rule file for `rule`; `dir` is the quick-rules folder (an answer's file is read from it). */
export async function quickRuleCode(rule: DnrRule, dir: string): Promise<{ ok: true; code: QuickRuleCode } | { ok: false; error: string }> {
  const pattern = exactUrlOf(rule);
  if (pattern === undefined) return { ok: false, error: `rule ${rule.id}'s condition is not one URL exactly (as w writes it); write its rule file by hand` };
  const url = new URL(pattern);
  const origin = `${url.protocol}//${url.host}/*`;
  const slug = `${url.hostname.replace(/[^a-z0-9]+/gi, '-')}${url.pathname.replace(/[^a-z0-9]+/gi, '-')}`.replace(/-+$/, '').slice(0, 40);
  const from = `quick rule ${rule.id} (quick-rules/rules.json)`;
  const { action } = rule;
  switch (action.type) {
    case 'block':
      return { ok: true, code: ruleSource(`block-${slug}`, `cancels ${pattern}`, from, origin, 'onBeforeRequest', ['blocking'], 'return { cancel: true };', pattern) };
    case 'redirect': {
      const redirect = action.redirect ?? {};
      if (redirect.url !== undefined) return { ok: true, code: ruleSource(`redirect-${slug}`, `redirects ${pattern} to ${redirect.url}`, from, origin, 'onBeforeRequest', ['blocking'], `return { redirectUrl: ${JSON.stringify(redirect.url)} };`, pattern) };
      if (redirect.extensionPath !== undefined) {
        const file = join(dir, redirect.extensionPath.replace(/^\/+/, ''));
        let bytes: Buffer;
        try {
          bytes = await readFile(file);
        } catch (error) {
          return { ok: false, error: `cannot read the answer ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
        }
        if (bytes.length > MAX_INLINE_BYTES) return { ok: false, error: `${file} is ${bytes.length} bytes; a rule file answers with a data: URL of at most ${MAX_INLINE_BYTES}` };
        const type = MIME_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
        const body = [
          `// webRequest cannot write a response body: a redirect to a data: URL is how an extension answers.`,
          `// The file's bytes, as they were when this rule was written (${file}):`,
          `return { redirectUrl: ${JSON.stringify(`data:${type};base64,${bytes.toString('base64')}`)} };`,
        ].join('\n      ');
        return { ok: true, code: ruleSource(`file-${slug}`, `answers ${pattern} with the file ${file}`, from, origin, 'onBeforeRequest', ['blocking'], body, pattern) };
      }
      return { ok: false, error: `rule ${rule.id} redirects by transform or regexSubstitution: write its rule file by hand` };
    }
    case 'modifyHeaders': {
      const request = (action.requestHeaders?.length ?? 0) > 0;
      const changes = (request ? action.requestHeaders : action.responseHeaders) ?? [];
      if (request && (action.responseHeaders?.length ?? 0) > 0) return { ok: false, error: `rule ${rule.id} changes request and response headers: write its rule files by hand` };
      if (changes.length === 0 || changes.some((change) => change.operation === 'append')) return { ok: false, error: `rule ${rule.id} appends headers: write its rule file by hand` };
      const field = request ? 'requestHeaders' : 'responseHeaders';
      const names = changes.map((change) => change.header.toLowerCase());
      const body = [
        `// Any ${changes.map((change) => change.header).join(', ')} already there is replaced (or removed).`,
        `const headers = (details.${field} ?? []).filter((header) => !${JSON.stringify(names)}.includes(header.name.toLowerCase()));`,
        `return { ${field}: [...headers, ${setHeaders(changes)}] };`,
      ].join('\n      ');
      const what = changes.map((change) => (change.operation === 'set' ? `sets the ${request ? 'request' : 'response'} header ${change.header}: ${change.value ?? ''}` : `removes the ${request ? 'request' : 'response'} header ${change.header}`)).join(', ');
      return { ok: true, code: ruleSource(`${request ? 'header' : 'response-header'}-${names[0]}-${slug}`, `${what} on ${pattern}`, from, origin, request ? 'onBeforeSendHeaders' : 'onHeadersReceived', ['blocking', field], body, pattern) };
    }
    default:
      return { ok: false, error: `rule ${rule.id} is an ${action.type} rule: webRequest has no such verdict; keep it declarative` };
  }
}

function setHeaders(changes: readonly ModifyHeaderInfo[]): string {
  return changes
    .filter((change) => change.operation === 'set')
    .map((change) => `{ name: ${JSON.stringify(change.header)}, value: ${JSON.stringify(change.value ?? '')} }`)
    .join(', ');
}

function ruleSource(name: string, what: string, from: string, origin: string, event: string, extraInfoSpec: string[], body: string, pattern: string): QuickRuleCode {
  const source = `// Written by wrtui from ${from}: ${what}.
// A rule like any other: edit it and save (wrtui reloads it), toggle dry-run in the Rules view,
// or delete this file to undo it.
import type { RuleContext, RuleManifest } from 'wrtui/rules';

export const manifest = {
  name: ${JSON.stringify(`quick-${name}`)},
  permissions: ['webRequest', 'webRequestBlocking'],
  host_permissions: [${JSON.stringify(origin)}],
} as const satisfies RuleManifest;

// The narrowest match pattern for that request: its URL.
const URLS = [${JSON.stringify(pattern)}];

export default function background({ chrome }: RuleContext<typeof manifest>): void {
  chrome.webRequest.${event}.addListener(
    (${body.includes('details') ? 'details' : ''}) => {
      ${body}
    },
    { urls: URLS },
    ${JSON.stringify(extraInfoSpec).replace(/"/g, "'").replace(/,/g, ', ')},
  );
}
`;
  return { name: `quick-${name}`, source };
}
