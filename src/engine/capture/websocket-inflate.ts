// permessage-deflate (RFC 7692) messages made readable: one inflater per direction, keeping the
// sliding window between messages as the endpoints do (context takeover; with no takeover the old
// window is simply never referred to). Messages come out in the order they went in. A message cut
// at the journal's cap cannot be inflated, nor can any after it (the window is lost): those stay
// compressed, marked so.
import { constants, createInflateRaw, type InflateRaw } from 'node:zlib';

/** What RFC 7692 §7.2.2 says the sender took off the end of each message. */
const TAIL = Buffer.from([0x00, 0x00, 0xff, 0xff]);

export class MessageInflater {
  readonly #maxBytes: number;
  #inflate: InflateRaw | undefined = createInflateRaw();
  #queue: Promise<void> = Promise.resolve();

  /** `maxBytes`: the inflated bytes kept of one message (its size is counted whole). */
  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
    this.#inflate!.on('error', () => this.#lose());
  }

  /**
   * Runs `then` with the message inflated (or undefined when it cannot be), after every message
   * given before it: the order of the stream is kept.
   */
  inflate(data: Buffer, complete: boolean, then: (inflated: { data: Buffer; size: number; complete: boolean } | undefined) => void): void {
    this.#queue = this.#queue.then(async () => {
      if (!complete) this.#lose();
      then(this.#inflate ? await this.#run(data).catch(() => (this.#lose(), undefined)) : undefined);
    });
  }

  /** Runs `then` in turn (a message that needs no inflating, kept in order with the rest). */
  inOrder(then: () => void): void {
    this.#queue = this.#queue.then(then);
  }

  close(): void {
    this.#lose();
  }

  #lose(): void {
    this.#inflate?.close();
    this.#inflate = undefined;
  }

  #run(data: Buffer): Promise<{ data: Buffer; size: number; complete: boolean }> {
    const inflate = this.#inflate!;
    return new Promise((resolve, reject) => {
      const kept: Buffer[] = [];
      let size = 0;
      let held = 0;
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (held < this.#maxBytes) {
          const part = chunk.subarray(0, this.#maxBytes - held);
          kept.push(part);
          held += part.length;
        }
      };
      const onError = (error: Error) => {
        inflate.off('data', onData);
        reject(error);
      };
      inflate.on('data', onData);
      inflate.once('error', onError);
      inflate.write(Buffer.concat([data, TAIL]));
      inflate.flush(constants.Z_SYNC_FLUSH, () => {
        inflate.off('data', onData);
        inflate.off('error', onError);
        resolve({ data: Buffer.concat(kept), size, complete: held === size });
      });
    });
  }
}
