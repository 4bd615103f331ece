// Resending a captured request: it goes through wrtui's own proxy like any client's, so today's
// rules, dry-run and cookie jar apply, and it shows up as a new request. And the text a user edits
// before resending (method and URL, headers, a blank line, the body), parsed back strictly.
import { readFileSync } from 'node:fs';
import { ProxyAgent, request as send, type Dispatcher } from 'undici';
import { CONNECTION_REQUEST_HEADERS } from '../engine/headers.js';
import type { HttpHeaders } from '../engine/types.js';

export interface ResendRequest {
  method: string;
  url: string;
  headers: HttpHeaders;
  body?: Uint8Array | undefined;
}

export type ResendResult = { ok: true; statusCode: number } | { ok: false; error: string };

/** Headers that describe the old connection or its framing: the new request makes its own. */
const CONNECTION_HEADERS: ReadonlySet<string> = new Set([...CONNECTION_REQUEST_HEADERS, 'trailer']);

/** Sends `request` through the proxy at `proxyUrl` (trusting wrtui's CA for https); resolves once the response is read. */
export async function resendThroughProxy(request: ResendRequest, proxyUrl: string, caCertPath: string): Promise<ResendResult> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { ok: false, error: `${JSON.stringify(request.url)} is not a URL` };
  }
  const agent = new ProxyAgent({ uri: proxyUrl, proxyTunnel: url.protocol === 'https:', requestTls: { ca: readFileSync(caCertPath, 'utf8') } });
  try {
    const headers: string[] = [];
    for (const header of request.headers) {
      if (CONNECTION_HEADERS.has(header.name.toLowerCase()) || header.name.startsWith(':')) continue;
      headers.push(header.name, header.value ?? Buffer.from(header.binaryValue ?? []).toString('latin1'));
    }
    const response = await send(url, {
      method: request.method.toUpperCase() as Dispatcher.HttpMethod,
      headers,
      ...(request.body && request.body.length > 0 && { body: Buffer.from(request.body) }),
      dispatcher: agent,
    });
    await response.body.dump();
    return { ok: true, statusCode: response.statusCode };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  } finally {
    await agent.close().catch(() => {});
  }
}

/** The request as text to edit: "METHOD URL", one "Name: value" per line, a blank line, the body. */
export function requestAsText(request: ResendRequest): string {
  const lines = [`${request.method} ${request.url}`];
  for (const header of request.headers) {
    if (CONNECTION_HEADERS.has(header.name.toLowerCase()) || header.name.startsWith(':')) continue;
    lines.push(`${header.name}: ${header.value ?? Buffer.from(header.binaryValue ?? []).toString('latin1')}`);
  }
  return `${lines.join('\n')}\n\n${request.body ? Buffer.from(request.body).toString('utf8') : ''}`;
}

/** Parses what requestAsText wrote (and the user changed); says in one line what is wrong. */
export function requestFromText(text: string): { ok: true; request: ResendRequest } | { ok: false; error: string } {
  const normalized = text.replace(/\r\n/g, '\n');
  const blank = normalized.indexOf('\n\n');
  const head = (blank === -1 ? normalized : normalized.slice(0, blank)).split('\n').filter((line) => line.trim() !== '');
  const body = blank === -1 ? '' : normalized.slice(blank + 2);
  const first = /^([A-Za-z]+)\s+(\S+)\s*$/.exec(head[0] ?? '');
  if (!first) return { ok: false, error: 'the first line must be "METHOD URL", e.g. GET https://example.com/' };
  try {
    new URL(first[2]!);
  } catch {
    return { ok: false, error: `"${first[2]}" on the first line is not a URL` };
  }
  const headers: HttpHeaders = [];
  for (const [index, line] of head.slice(1).entries()) {
    const colon = line.indexOf(':');
    if (colon <= 0 || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(line.slice(0, colon).trim())) return { ok: false, error: `line ${index + 2} is not a header ("Name: value"): ${line}` };
    headers.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
  }
  // The body is what follows the blank line, minus the newline an editor adds at the end of a file.
  const bodyText = body.replace(/\n$/, '');
  return { ok: true, request: { method: first[1]!.toUpperCase(), url: first[2]!, headers, ...(bodyText !== '' && { body: new Uint8Array(Buffer.from(bodyText, 'utf8')) }) } };
}
