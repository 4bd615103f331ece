// WebSocket messages read off the bytes a spliced connection carries (RFC 6455 §5), one reader
// per direction, without changing a byte: the proxy pipes the sockets as before and lets this
// watch. Fragments are joined into messages; control frames (close, ping, pong) may come between
// them and are messages of their own. A message keeps its first `maxBytes` bytes (the rest is
// counted, not held), so a large binary stream costs a bounded amount of memory.

export type WebSocketOpcode = 'text' | 'binary' | 'close' | 'ping' | 'pong';

export interface WebSocketMessage {
  opcode: WebSocketOpcode;
  /** Payload bytes in all (unmasked; still compressed when `compressed`). */
  size: number;
  /** The first maxBytes of the payload, unmasked. */
  data: Buffer;
  /** `data` is the whole payload. */
  complete: boolean;
  /** RSV1 set: permessage-deflate compressed the payload. */
  compressed: boolean;
}

interface Frame {
  fin: boolean;
  opcode: number;
  rsv1: boolean;
  mask: Buffer | undefined;
  /** Payload bytes still to come. */
  left: number;
  /** Payload bytes read so far (where the mask is). */
  offset: number;
}

const OPCODES: Readonly<Record<number, WebSocketOpcode>> = { 1: 'text', 2: 'binary', 8: 'close', 9: 'ping', 10: 'pong' };

export class WebSocketFrameReader {
  readonly #maxBytes: number;
  readonly #onMessage: (message: WebSocketMessage) => void;
  /** Header bytes not yet whole. */
  #head = Buffer.alloc(0);
  /** The frame whose payload is being read. */
  #frame: Frame | undefined;
  /** The data message being assembled from fragments. */
  #message: { opcode: WebSocketOpcode; compressed: boolean; size: number; chunks: Buffer[]; held: number } | undefined;
  /** A control frame's payload (never fragmented, at most 125 bytes). */
  #control: { opcode: WebSocketOpcode; chunks: Buffer[]; size: number; held: number } | undefined;
  /** The stream is not WebSocket framing (or lost its place): nothing more is read. */
  #broken = false;

  constructor(options: { maxBytes: number; onMessage: (message: WebSocketMessage) => void }) {
    this.#maxBytes = options.maxBytes;
    this.#onMessage = options.onMessage;
  }

  get broken(): boolean {
    return this.#broken;
  }

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && !this.#broken) {
      if (!this.#frame) {
        const used = this.#readHead(chunk.subarray(at));
        at += used;
        const started = this.#frame as Frame | undefined;
        if (!started) return; // the header continues in the next chunk (or the stream broke)
        if (started.left === 0) this.#endFrame();
        continue;
      }
      const frame = this.#frame;
      const take = Math.min(frame.left, chunk.length - at);
      this.#payload(chunk.subarray(at, at + take), frame);
      at += take;
      frame.left -= take;
      if (frame.left === 0) this.#endFrame();
    }
  }

  /** Reads a frame header from the start of `bytes` (with what an earlier chunk left); returns the bytes used. */
  #readHead(bytes: Buffer): number {
    const before = this.#head.length;
    const head = before > 0 ? Buffer.concat([this.#head, bytes.subarray(0, 14)]) : bytes;
    if (head.length < 2) {
      this.#head = Buffer.from(head);
      return bytes.length;
    }
    const masked = (head[1]! & 0x80) !== 0;
    const short = head[1]! & 0x7f;
    const lengthBytes = short === 126 ? 2 : short === 127 ? 8 : 0;
    const needed = 2 + lengthBytes + (masked ? 4 : 0);
    if (head.length < needed) {
      this.#head = Buffer.from(head.subarray(0, Math.min(head.length, 14)));
      return bytes.length;
    }
    let left = short;
    if (short === 126) left = head.readUInt16BE(2);
    else if (short === 127) {
      const big = head.readBigUInt64BE(2);
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) return this.#break();
      left = Number(big);
    }
    const opcode = head[0]! & 0x0f;
    if (OPCODES[opcode] === undefined && opcode !== 0) return this.#break();
    this.#frame = { fin: (head[0]! & 0x80) !== 0, opcode, rsv1: (head[0]! & 0x40) !== 0, mask: masked ? Buffer.from(head.subarray(2 + lengthBytes, needed)) : undefined, left, offset: 0 };
    this.#head = Buffer.alloc(0);
    if (opcode >= 8) this.#control = { opcode: OPCODES[opcode]!, chunks: [], size: 0, held: 0 };
    else if (opcode !== 0) this.#message = { opcode: OPCODES[opcode]!, compressed: this.#frame.rsv1, size: 0, chunks: [], held: 0 };
    else if (!this.#message) return this.#break(); // a continuation of nothing
    return needed - before;
  }

  #break(): number {
    this.#broken = true;
    return 0;
  }

  #payload(bytes: Buffer, frame: Frame): void {
    const target = frame.opcode >= 8 ? this.#control! : this.#message!;
    target.size += bytes.length;
    const room = frame.opcode >= 8 ? bytes.length : Math.max(0, this.#maxBytes - target.held);
    if (room > 0) {
      const kept = Buffer.from(bytes.subarray(0, room));
      if (frame.mask) for (let index = 0; index < kept.length; index++) kept[index] = kept[index]! ^ frame.mask[(frame.offset + index) & 3]!;
      target.chunks.push(kept);
      target.held += kept.length;
    }
    frame.offset += bytes.length;
  }

  #endFrame(): void {
    const frame = this.#frame!;
    this.#frame = undefined;
    if (frame.opcode >= 8) {
      const control = this.#control!;
      this.#control = undefined;
      this.#onMessage({ opcode: control.opcode, size: control.size, data: Buffer.concat(control.chunks), complete: true, compressed: false });
      return;
    }
    if (!frame.fin) return;
    const message = this.#message!;
    this.#message = undefined;
    this.#onMessage({ opcode: message.opcode, size: message.size, data: Buffer.concat(message.chunks), complete: message.held === message.size, compressed: message.compressed });
  }
}
