// S in the TUI: the session so far as a HAR 1.2 file, whether or not wrtui records. The records
// the TUI holds are turned back into the journal entries they were folded from (events, bodies),
// then into a session and a HAR by the same code `wrtui replay --export-har` uses, so the file
// replays with `wrtui replay <file>` like any other.
import type { JournalEntry, JournalEntryBody } from '../../engine/journal.js';
import { sessionToHar } from '../../engine/session/har/har-export.js';
import { sessionFromJournal } from '../../engine/session/session-from-journal.js';
import type { RequestRecord, WebSocketMessageRecord } from '../store/request-record.js';

export function recordsAsHar(records: readonly RequestRecord[]): { har: ReturnType<typeof sessionToHar>; requests: number } {
  const timed: { time: number; order: number; body: JournalEntryBody }[] = [];
  let order = 0;
  for (const record of records) {
    if (record.events.length === 0) continue; // paused before its first event: nothing happened yet
    let sawBeforeRequest = false;
    for (const event of record.events) {
      // A request body comes just before its hop's onBeforeRequest; a response body just before the end.
      if (event.event === 'onBeforeRequest' && !sawBeforeRequest && record.requestBytes?.complete) {
        timed.push({ time: event.timeStamp, order: order++, body: { kind: 'body', requestId: record.requestId, direction: 'request', url: event.details.url, bytes: record.requestBytes.bytes, complete: true } });
      }
      if ((event.event === 'onCompleted' || event.event === 'onErrorOccurred') && record.responseBytes && !record.responseBytes.dropped) {
        timed.push({ time: event.timeStamp, order: order++, body: { kind: 'body', requestId: record.requestId, direction: 'response', url: event.details.url, bytes: record.responseBytes.complete ? record.responseBytes.bytes : new Uint8Array(), complete: record.responseBytes.complete, ...(record.responseBytes.decoded && { decoded: true }) } });
      }
      if (event.event === 'onBeforeRequest') sawBeforeRequest = true;
      timed.push({ time: event.timeStamp, order: order++, body: { kind: 'webRequest', event: event.event, details: event.details, outcomes: event.outcomes, ...(event.ending && { ending: event.ending }) } });
    }
  }
  timed.sort((a, b) => a.time - b.time || a.order - b.order);
  const entries = timed.map(({ time, body }, index) => ({ ...body, seq: index + 1, time: Math.round(time) }) as JournalEntry);
  const session = sessionFromJournal('the TUI', { source: 'wrtui-journal', header: undefined, entries, warnings: [] });
  const har = sessionToHar(session);
  // WebSocket messages as Chrome's DevTools exports them: _webSocketMessages on the 101's entry.
  const sockets = new Map(records.filter((record) => record.wsMessages && record.wsMessages.length > 0).map((record) => [record.requestId, record.wsMessages!]));
  if (sockets.size > 0) {
    for (const entry of har.log.entries as (HarEntryWithWebRequest & { _webSocketMessages?: unknown })[]) {
      const messages = entry._webRequest?.requestId === undefined ? undefined : sockets.get(entry._webRequest.requestId);
      if (messages && entry.response?.status === 101) entry._webSocketMessages = messages.map(chromeWebSocketMessage);
    }
  }
  return { har, requests: session.requests.length };
}

type HarEntryWithWebRequest = { _webRequest?: { requestId?: string }; response?: { status?: number } };

const OPCODE_NUMBERS: Readonly<Record<WebSocketMessageRecord['opcode'], number>> = { text: 1, binary: 2, close: 8, ping: 9, pong: 10 };

/** Chrome's shape: type send/receive, time in seconds, opcode, data (text as is, binary as base64). */
export function chromeWebSocketMessage(message: WebSocketMessageRecord): { type: 'send' | 'receive'; time: number; opcode: number; data: string } {
  const bytes = Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength);
  const text = message.opcode === 'text' && !message.compressed;
  return { type: message.direction, time: message.time / 1000, opcode: OPCODE_NUMBERS[message.opcode], data: text ? bytes.toString('utf8') : bytes.toString('base64') };
}
