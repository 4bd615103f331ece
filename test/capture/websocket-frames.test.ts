// WebSocket frames read off the wire as the proxy sees them: masked client frames, fragments,
// control frames between fragments, a frame split across reads, a message past the cap.
import { describe, expect, it } from 'vitest';
import { WebSocketFrameReader, type WebSocketMessage } from '../../src/engine/capture/websocket-frames.js';

function frame(opcode: number, payload: Buffer, options: { fin?: boolean; mask?: boolean } = {}): Buffer {
  const { fin = true, mask = false } = options;
  const length = payload.length;
  const head = length < 126 ? Buffer.from([0, length]) : length < 65536 ? Buffer.from([0, 126, length >> 8, length & 255]) : Buffer.concat([Buffer.from([0, 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(length)); return b; })()]);
  head[0] = (fin ? 0x80 : 0) | opcode;
  if (!mask) return Buffer.concat([head, payload]);
  head[1]! |= 0x80;
  const key = Buffer.from([1, 2, 3, 4]);
  const masked = Buffer.from(payload.map((byte, index) => byte ^ key[index & 3]!));
  return Buffer.concat([head, key, masked]);
}

function read(chunks: Buffer[], maxBytes = 1024): WebSocketMessage[] {
  const messages: WebSocketMessage[] = [];
  const reader = new WebSocketFrameReader({ maxBytes, onMessage: (message) => messages.push(message) });
  for (const chunk of chunks) reader.push(chunk);
  return messages;
}

describe('WebSocket frames', () => {
  it('a masked text frame from the client reads as its text; a binary frame from the server as its bytes', () => {
    const [text, binary] = read([frame(1, Buffer.from('hello'), { mask: true }), frame(2, Buffer.from([0, 255, 7]))]);
    expect(text).toMatchObject({ opcode: 'text', size: 5, complete: true, compressed: false });
    expect(text!.data.toString()).toBe('hello');
    expect([...binary!.data]).toEqual([0, 255, 7]);
  });

  it('fragments join into one message; a ping between them is a message of its own', () => {
    const messages = read([frame(1, Buffer.from('hel'), { fin: false, mask: true }), frame(9, Buffer.from('p'), { mask: true }), frame(0, Buffer.from('lo'), { mask: true })]);
    expect(messages.map((message) => [message.opcode, message.data.toString()])).toEqual([
      ['ping', 'p'],
      ['text', 'hello'],
    ]);
  });

  it('a frame split across reads at every byte still reads whole', () => {
    const bytes = Buffer.concat([frame(1, Buffer.from('x'.repeat(300)), { mask: true }), frame(8, Buffer.from([3, 232, 0x62, 0x79, 0x65]))]);
    const messages = read([...bytes].map((byte) => Buffer.from([byte])));
    expect(messages.map((message) => [message.opcode, message.size])).toEqual([
      ['text', 300],
      ['close', 5],
    ]);
    expect(messages[0]!.data.toString()).toBe('x'.repeat(300));
  });

  it('a message past the cap keeps its first bytes and its whole size', () => {
    const [big] = read([frame(2, Buffer.alloc(70_000, 9), { mask: true })], 1000);
    expect(big).toMatchObject({ opcode: 'binary', size: 70_000, complete: false });
    expect(big!.data.length).toBe(1000);
    expect(big!.data.every((byte) => byte === 9)).toBe(true);
  });

  it('bytes that are not WebSocket framing stop the reader (the bytes still flow, the proxy does not read them)', () => {
    const reader = new WebSocketFrameReader({ maxBytes: 10, onMessage: () => {} });
    reader.push(Buffer.from([0x83, 0x01, 0x00])); // opcode 3 is reserved
    expect(reader.broken).toBe(true);
  });
});

describe('a recorded message', () => {
  it('a websocketMessage entry is one line of the session file (its bytes as base64) and reads back the same', async () => {
    const { encodeLine, decodeLine } = await import('../../src/engine/session/session-json.js');
    const entry = { kind: 'websocketMessage', requestId: '4', direction: 'receive', opcode: 'binary', size: 3, data: new Uint8Array([0, 1, 255]), complete: true, seq: 9, time: 1 };
    const line = encodeLine(entry);
    expect(line).not.toContain('\n');
    expect(line).toContain('"base64"');
    const back = decodeLine(line) as typeof entry;
    expect({ ...back, data: [...back.data] }).toEqual({ ...entry, data: [0, 1, 255] });
  });
});
