// The bodies the TUI holds, bounded in total bytes: when a new body would pass the budget, the
// oldest bodies are let go first (their records say so: `dropped`), so RSS stays under a bound
// a user chose (--body-memory) however long wrtui runs.
import type { CapturedBody, RequestRecord } from './request-record.js';

/** 256 MiB: thousands of typical responses, and a bound a laptop does not notice. */
export const DEFAULT_BODY_BUDGET_BYTES = 256 * 1024 * 1024;

interface Held {
  record: RequestRecord;
  direction: 'request' | 'response';
  body: CapturedBody;
}

export class BodyBudget {
  readonly maxBytes: number;
  /** Oldest first; an entry whose record no longer holds that body is skipped when reached. */
  readonly #held: Held[] = [];
  /** Each record's entries in #held, so releasing one is not a walk through them all. */
  readonly #byRecord = new Map<RequestRecord, Held[]>();
  #head = 0;
  #bytes = 0;
  #dropped = 0;

  constructor(maxBytes = DEFAULT_BODY_BUDGET_BYTES) {
    this.maxBytes = maxBytes;
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Bodies let go so far to stay in budget. */
  get droppedCount(): number {
    return this.#dropped;
  }

  /** `record` now holds `body`: counted, and the oldest bodies let go while over budget. */
  hold(record: RequestRecord, direction: 'request' | 'response', body: CapturedBody): void {
    this.#bytes += body.bytes.byteLength;
    const held: Held = { record, direction, body };
    this.#held.push(held);
    const mine = this.#byRecord.get(record);
    if (mine) mine.push(held);
    else this.#byRecord.set(record, [held]);
    while (this.#bytes > this.maxBytes && this.#head < this.#held.length) {
      const oldest = this.#held[this.#head]!;
      // The queue must not keep what it lets go: the slot is emptied at once.
      this.#held[this.#head++] = SPENT;
      this.#forget(oldest);
      if (!holds(oldest)) continue;
      this.#bytes -= oldest.body.bytes.byteLength;
      const dropped: CapturedBody = { bytes: new Uint8Array(), size: oldest.body.size, complete: false, dropped: true };
      if (oldest.direction === 'request') oldest.record.requestBytes = dropped;
      else oldest.record.responseBytes = dropped;
      oldest.record.revision++;
      this.#dropped++;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#held.length) this.#held.splice(0, this.#head), (this.#head = 0);
  }

  /** Forgets every body (the list was cleared). */
  clear(): void {
    this.#held.length = 0;
    this.#byRecord.clear();
    this.#head = 0;
    this.#bytes = 0;
  }

  /** A record left the store, or replaces its body in `direction`: those bytes no longer count. */
  release(record: RequestRecord, direction?: 'request' | 'response'): void {
    for (const held of this.#byRecord.get(record) ?? []) {
      if ((direction !== undefined && held.direction !== direction) || !holds(held)) continue;
      this.#bytes -= held.body.bytes.byteLength;
      held.body = EMPTY;
    }
    if (direction === undefined) this.#byRecord.delete(record);
  }

  #forget(held: Held): void {
    const mine = this.#byRecord.get(held.record);
    if (!mine) return;
    const index = mine.indexOf(held);
    if (index !== -1) mine.splice(index, 1);
    if (mine.length === 0) this.#byRecord.delete(held.record);
  }
}

const EMPTY: CapturedBody = { bytes: new Uint8Array(), size: 0, complete: true };
const SPENT: Held = { record: { requestBytes: undefined, responseBytes: undefined } as RequestRecord, direction: 'response', body: EMPTY };

function holds(held: Held): boolean {
  return (held.direction === 'request' ? held.record.requestBytes : held.record.responseBytes) === held.body;
}
