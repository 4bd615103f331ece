// Synthetic recordings for tests that need many requests: small GETs written as the proxy records
// them (a response body after each request's end), four at a time, interleaved.
import { writeFile } from 'node:fs/promises';
import type { JournalEntry } from '../../src/engine/journal.js';
import { encodeLine } from '../../src/engine/session/session-json.js';

export const BODY = new Uint8Array(2048).fill(97);

/** The journal entries of one small GET, as the proxy records it (a response body after its end). */
export function requestEntries(id: number, url: string): Omit<JournalEntry, 'seq' | 'time'>[] {
  const base = { requestId: String(id), url, method: 'GET', frameId: 0, parentFrameId: -1, tabId: -1, type: 'xmlhttprequest' as const, timeStamp: 0 };
  const requestHeaders = [{ name: 'Host', value: new URL(url).host }, { name: 'Accept', value: '*/*' }];
  const response = { statusCode: 200, statusLine: 'HTTP/1.1 200 OK', responseHeaders: [{ name: 'Content-Type', value: 'text/plain' }, { name: 'Content-Length', value: String(BODY.length) }] };
  const event = (name: string, details: object) => ({ kind: 'webRequest', event: name, details: { ...base, ...details }, outcomes: [] }) as unknown as JournalEntry;
  return [
    event('onBeforeRequest', {}),
    event('onBeforeSendHeaders', { requestHeaders }),
    event('onSendHeaders', { requestHeaders }),
    event('onHeadersReceived', response),
    event('onResponseStarted', { ...response, fromCache: false, ip: '127.0.0.1' }),
    event('onCompleted', { ...response, fromCache: false, ip: '127.0.0.1' }),
    { kind: 'body', requestId: String(id), direction: 'response', url, bytes: BODY, complete: true } as JournalEntry,
  ];
}

/** A session file's header line: recording started at 1,000 ms, no cookies. */
export function headerLine(extra: { redacted?: boolean } = {}): string {
  return encodeLine({ format: 'wrtui-session', version: 1, started: new Date(0).toISOString(), startedAt: 1_000, redacted: extra.redacted ?? false, maxBodySize: 1 << 20, listenerTimeoutMs: 5000, cookies: {} });
}

/** Writes a recording of `count` small GETs to `file`, four at a time (their entries interleaved). */
export async function writeSyntheticRecording(file: string, count: number): Promise<string> {
  const lines = [headerLine()];
  let seq = 0;
  for (let first = 0; first < count; first += 4) {
    const group = [0, 1, 2, 3].filter((k) => first + k < count).map((k) => requestEntries(first + k + 1, `http://site${(first + k) % 50}.test/item/${first + k}`));
    for (let step = 0; step < group[0]!.length; step++) for (const entries of group) lines.push(encodeLine({ ...entries[step]!, seq: ++seq, time: 1_000 + seq }));
  }
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

