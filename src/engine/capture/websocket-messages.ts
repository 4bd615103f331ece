// A spliced WebSocket connection's messages, both ways, into the journal: the proxy's sockets are
// watched (a 'data' listener beside the pipe), never changed. Frames are read by
// websocket-frames.ts; permessage-deflate messages are inflated by websocket-inflate.ts when the
// 101 agreed on it. Nothing here throws into the proxy: bytes that are not WebSocket framing are
// simply not read.
import type { Socket } from 'node:net';
import type { Journal } from '../journal.js';
import type { HttpHeaders } from '../types.js';
import { WebSocketFrameReader, type WebSocketMessage } from './websocket-frames.js';
import { MessageInflater } from './websocket-inflate.js';

/** A WebSocket message's bytes kept for the journal (its size is counted whole). */
export const MAX_WEBSOCKET_MESSAGE_BYTES = 256 * 1024;

export interface WatchedConnection {
  requestId: string;
  /** The client's socket and the upstream's, piped into each other. */
  client: Socket;
  upstream: Socket;
  /** Bytes each side sent with the handshake, before the splice. */
  clientHead: Buffer;
  upstreamHead: Buffer;
  /** The 101's headers as the client got them (Sec-WebSocket-Extensions says whether frames are deflated). */
  responseHeaders: HttpHeaders;
  /** At most this much of one message is kept. */
  maxBytes: number;
}

export function watchWebSocketMessages(journal: Journal, connection: WatchedConnection): void {
  const deflate = connection.responseHeaders.some((header) => header.name.toLowerCase() === 'sec-websocket-extensions' && /permessage-deflate/i.test(header.value ?? ''));
  const maxBytes = Math.min(connection.maxBytes, MAX_WEBSOCKET_MESSAGE_BYTES);
  const sent = watchDirection(journal, connection.requestId, 'send', deflate, maxBytes);
  const received = watchDirection(journal, connection.requestId, 'receive', deflate, maxBytes);
  if (connection.clientHead.length > 0) sent.push(connection.clientHead);
  if (connection.upstreamHead.length > 0) received.push(connection.upstreamHead);
  connection.client.on('data', sent.push);
  connection.upstream.on('data', received.push);
  connection.client.once('close', () => {
    sent.close();
    received.close();
  });
}

/** A reader of one direction's frames, journaling each message in order. */
function watchDirection(journal: Journal, requestId: string, direction: 'send' | 'receive', deflate: boolean, maxBytes: number): { push: (chunk: Buffer) => void; close: () => void } {
  const inflater = deflate ? new MessageInflater(maxBytes) : undefined;
  const append = (message: WebSocketMessage) =>
    journal.append({ kind: 'websocketMessage', requestId, direction, opcode: message.opcode, size: message.size, data: message.data, complete: message.complete, ...(message.compressed && { compressed: true as const }) });
  const reader = new WebSocketFrameReader({
    maxBytes,
    onMessage: (message) => {
      if (!inflater) return append(message);
      if (!message.compressed) return inflater.inOrder(() => append(message));
      // The size stays the bytes on the wire; the data is what the endpoint reads.
      inflater.inflate(message.data, message.complete, (inflated) => append(inflated ? { ...message, data: inflated.data, complete: inflated.complete, compressed: false } : message));
    },
  });
  return {
    push: (chunk) => {
      if (reader.broken) return;
      try {
        reader.push(chunk);
      } catch {
        // Not WebSocket framing after all: the bytes still flow, unread.
      }
    },
    // The inflater's window goes with the connection (after the messages still being inflated).
    close: () => inflater?.inOrder(() => inflater.close()),
  };
}
