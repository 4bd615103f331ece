// A WebSocket's messages on its record: kept in order, their bytes within the TUI's body budget
// (--body-memory), at most MAX_WEBSOCKET_MESSAGES of them; the row's size is the bytes exchanged.
import type { WebSocketMessageEntry } from '../../engine/journal.js';
import type { BodyBudget } from './body-budget.js';
import { MAX_WEBSOCKET_MESSAGES, type RequestRecord, type WebSocketMessageRecord } from './request-record.js';

export function applyWebSocketMessage(record: RequestRecord, entry: WebSocketMessageEntry & { time: number }, bodies: BodyBudget): void {
  const message: WebSocketMessageRecord = { direction: entry.direction, opcode: entry.opcode, time: entry.time, bytes: entry.data, size: entry.size, complete: entry.complete, ...(entry.compressed && { compressed: true }) };
  const messages = (record.wsMessages ??= []);
  messages.push(message);
  if (messages.length > MAX_WEBSOCKET_MESSAGES) {
    const oldest = messages.shift()!;
    bodies.releaseBody(record, oldest);
    record.wsMessagesDropped = (record.wsMessagesDropped ?? 0) + 1;
  }
  // The row's size: the bytes exchanged both ways since the 101.
  record.responseSize = (record.responseSize ?? 0) + entry.size;
  bodies.hold(record, 'message', message);
  record.revision++;
}
