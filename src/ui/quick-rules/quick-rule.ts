// Quick rules from a request: "block this URL", "redirect it to …", "set a request or response
// header", "answer from a local file", written as a real rule file a user can read and edit (the
// rules folder hot-reloads it like any other). The match pattern is the narrowest that fits: the
// request's URL itself, without its fragment.
import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';

export type QuickRuleKind = 'block' | 'redirect' | 'header' | 'response-header' | 'file';

export interface QuickRuleRequest {
  requestId: string;
  method: string;
  url: string;
}

export interface QuickRule {
  /** Suggested file name (the caller picks a free one). */
  name: string;
  source: string;
}

/** "block", "redirect https://…", "header X-Debug: 1", "response-header Cache-Control: no-store", "file ./mock.json". */
export async function quickRuleFrom(command: string, request: QuickRuleRequest): Promise<{ ok: true; rule: QuickRule } | { ok: false; error: string }> {
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
  const pattern = url.href;
  const origin = `${url.protocol}//${url.host}/*`;
  const slug = `${url.hostname.replace(/[^a-z0-9]+/gi, '-')}${url.pathname.replace(/[^a-z0-9]+/gi, '-')}`.replace(/-+$/, '').slice(0, 40);
  const from = `request #${request.requestId} (${request.method} ${request.url})`;
  switch (kind) {
    case 'block':
      return { ok: true, rule: ruleSource(`block-${slug}`, `cancels ${pattern}`, from, origin, 'onBeforeRequest', ['blocking'], 'return { cancel: true };', pattern) };
    case 'redirect': {
      if (!URL.canParse(argument)) return { ok: false, error: 'redirect needs a URL: redirect https://example.test/other' };
      return { ok: true, rule: ruleSource(`redirect-${slug}`, `redirects ${pattern} to ${argument}`, from, origin, 'onBeforeRequest', ['blocking'], `return { redirectUrl: ${JSON.stringify(argument)} };`, pattern) };
    }
    case 'header':
    case 'response-header': {
      const colon = argument.indexOf(':');
      const name = colon === -1 ? '' : argument.slice(0, colon).trim();
      if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) return { ok: false, error: `${kind} needs "Name: value": ${kind} X-Debug: 1` };
      const value = argument.slice(colon + 1).trim();
      const request = kind === 'header';
      const field = request ? 'requestHeaders' : 'responseHeaders';
      const body = [
        `// Any ${name} already there is replaced.`,
        `const headers = (details.${field} ?? []).filter((header) => header.name.toLowerCase() !== ${JSON.stringify(name.toLowerCase())});`,
        `return { ${field}: [...headers, { name: ${JSON.stringify(name)}, value: ${JSON.stringify(value)} }] };`,
      ].join('\n      ');
      return {
        ok: true,
        rule: ruleSource(`${request ? 'header' : 'response-header'}-${name.toLowerCase()}-${slug}`, `sets the ${request ? 'request' : 'response'} header ${name}: ${value} on ${pattern}`, from, origin, request ? 'onBeforeSendHeaders' : 'onHeadersReceived', ['blocking', field], body, pattern),
      };
    }
    case 'file': {
      if (argument === '') return { ok: false, error: 'file needs a path: file ./mock.json' };
      const path = resolve(argument);
      let bytes: Buffer;
      try {
        bytes = await readFile(path);
      } catch (error) {
        return { ok: false, error: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
      }
      if (bytes.length > MAX_FILE_BYTES) return { ok: false, error: `${path} is ${bytes.length} bytes; an answer from a file is a data: URL, at most ${MAX_FILE_BYTES} bytes` };
      const type = MIME_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
      const body = [
        `// webRequest cannot write a response body: a redirect to a data: URL is how an extension answers.`,
        `// The file's bytes, as they were when this rule was written (${path}):`,
        `return { redirectUrl: ${JSON.stringify(`data:${type};base64,${bytes.toString('base64')}`)} };`,
      ].join('\n      ');
      return { ok: true, rule: ruleSource(`file-${slug}`, `answers ${pattern} with the file ${path}`, from, origin, 'onBeforeRequest', ['blocking'], body, pattern) };
    }
    default:
      return { ok: false, error: 'one of: block, redirect URL, header Name: value, response-header Name: value, file PATH' };
  }
}

const MAX_FILE_BYTES = 2 * 1024 * 1024;
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

function ruleSource(name: string, what: string, from: string, origin: string, event: string, extraInfoSpec: string[], body: string, pattern: string): QuickRule {
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
