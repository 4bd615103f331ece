// A body as it streams by, kept for the journal (the recorder, the TUI) and the cache: all of it
// up to `max` bytes, else its first `max` bytes and the total.

export class KeptBody {
  readonly #max: number;
  readonly #chunks: Uint8Array[] = [];
  #kept = 0;
  /** Bytes seen in all. */
  size = 0;
  whole = true;

  constructor(max: number) {
    this.#max = max;
  }

  add(chunk: Uint8Array): void {
    this.size += chunk.length;
    if (this.#kept >= this.#max) {
      this.whole = false;
      return;
    }
    const room = this.#max - this.#kept;
    if (chunk.length > room) {
      this.whole = false;
      chunk = chunk.subarray(0, room);
    }
    this.#chunks.push(chunk);
    this.#kept += chunk.length;
  }

  /** The whole body, or its beginning when `whole` is false, in an array of its own (no pooled buffer kept alive). */
  bytes(): Uint8Array {
    const bytes = new Uint8Array(this.#kept);
    let offset = 0;
    for (const chunk of this.#chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    return bytes;
  }
}
