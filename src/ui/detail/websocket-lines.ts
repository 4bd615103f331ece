// A WebSocket's messages in the Response tab, as mitmproxy and Chrome's DevTools list them: one
// line each, with its direction, time, size and its text (binary as hex). The detail search and
// the ws: filter see the same text.
import { formatBytes, formatClock, printable } from '../format.js';
import type { RequestRecord, WebSocketMessageRecord } from '../store/request-record.js';
import { blank, heading, line, type StyledLine } from './styled-line.js';

/** Characters of one message shown on its line (the search still matches all it holds). */
const SHOWN_CHARS = 400;
const HEX_BYTES = 48;

/** The message's payload as text: UTF-8 for text, close code and reason, hex for the rest. */
export function messageText(message: WebSocketMessageRecord): string {
  if (message.dropped) return '(let go: --body-memory)';
  if (message.compressed) return `(permessage-deflate compressed) ${hex(message.bytes)}`;
  const bytes = Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength);
  if (message.opcode === 'text') return bytes.toString('utf8');
  if (message.opcode === 'close') return bytes.length >= 2 ? `code ${bytes.readUInt16BE(0)}${bytes.length > 2 ? ` ${bytes.subarray(2).toString('utf8')}` : ''}` : '';
  return hex(bytes);
}

function hex(bytes: Uint8Array): string {
  const shown = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, HEX_BYTES)).toString('hex').replace(/(..)/g, '$1 ').trim();
  return bytes.byteLength > HEX_BYTES ? `${shown} …` : shown;
}

export function websocketLines(record: RequestRecord): StyledLine[] {
  const messages = record.wsMessages ?? [];
  const sent = messages.filter((message) => message.direction === 'send');
  const bytes = (list: WebSocketMessageRecord[]) => list.reduce((sum, message) => sum + message.size, 0);
  const lines: StyledLine[] = [
    heading(`Messages (${messages.length}: ${sent.length} sent, ${formatBytes(bytes(sent))}; ${messages.length - sent.length} received, ${formatBytes(bytes(messages) - bytes(sent))})`),
  ];
  if (record.wsMessagesDropped) lines.push(line({ text: `${record.wsMessagesDropped} older messages let go (the TUI keeps the last ${messages.length})`, color: 'yellow' }));
  if (messages.length === 0) lines.push(line({ text: 'No message yet.', dim: true }));
  for (const message of messages) {
    const send = message.direction === 'send';
    const text = printable(messageText(message)).slice(0, SHOWN_CHARS);
    lines.push(
      line(
        { text: send ? '→ ' : '← ', color: send ? 'green' : 'blue', bold: true },
        { text: `${formatClock(message.time, true)} `, dim: true },
        { text: `${formatBytes(message.size).padStart(7)} `, dim: true },
        { text: `${message.opcode.padEnd(6)} `, color: message.opcode === 'text' || message.opcode === 'binary' ? 'cyan' : 'magenta' },
        text,
        !message.complete && !message.dropped && { text: ' (cut)', color: 'yellow' },
      ),
    );
  }
  lines.push(blank);
  return lines;
}
