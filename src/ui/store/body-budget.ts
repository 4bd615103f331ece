// The bodies the TUI holds, bounded in total bytes: when a new body would pass the budget, the
// oldest bodies are let go first (their records say so: `dropped`), so RSS stays under a bound
// a user chose (--body-memory) however long wrtui runs.
import type { CapturedBody, RequestRecord } from './request-record.js';

/** 256 MiB: thousands of typical responses, and a bound a laptop does not notice. */
export const DEFAULT_BODY_BUDGET_BYTES = 256 * 1024 * 1024;

/** Which of a record's bodies: the request's, the server's response, the response the client got (after StreamFilters). */
export type BodySlot = 'request' | 'response' | 'delivered' | 'message';

interface Held {
  record: RequestRecord;
  direction: BodySlot;
  body: CapturedBody;
}

export class BodyBudget {
  readonly maxBytes: number;
  /** Every body held, oldest first (a Set keeps insertion order and forgets one in O(1)). */
  readonly #byAge = new Set<Held>();
  /** Each record's bodies, so that a record leaving the list gives its bytes back at once. */
  readonly #byRecord = new Map<RequestRecord, Held[]>();
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
  hold(record: RequestRecord, direction: BodySlot, body: CapturedBody): void {
    const held: Held = { record, direction, body };
    this.#bytes += body.bytes.byteLength;
    this.#byAge.add(held);
    const mine = this.#byRecord.get(record);
    if (mine) mine.push(held);
    else this.#byRecord.set(record, [held]);
    for (const oldest of this.#byAge) {
      if (this.#bytes <= this.maxBytes) break;
      this.#forget(oldest);
      const dropped: CapturedBody = { bytes: new Uint8Array(), size: oldest.body.size, complete: false, dropped: true };
      // A WebSocket message is its own body: it keeps its place in the list, without its bytes.
      if (oldest.direction === 'message') Object.assign(oldest.body, dropped);
      else if (oldest.direction === 'request') oldest.record.requestBytes = dropped;
      else if (oldest.direction === 'delivered') oldest.record.deliveredBytes = { ...dropped, ...(oldest.record.deliveredBytes?.filteredBy && { filteredBy: oldest.record.deliveredBytes.filteredBy }) };
      else oldest.record.responseBytes = dropped;
      oldest.record.revision++;
      this.#dropped++;
    }
  }

  /** A record left the list, or replaces its body in `direction`: those bytes no longer count. */
  release(record: RequestRecord, direction?: BodySlot): void {
    for (const held of [...(this.#byRecord.get(record) ?? [])]) {
      if (direction === undefined || held.direction === direction) this.#forget(held);
    }
  }

  /** One body of `record` (a WebSocket message let go) no longer counts. */
  releaseBody(record: RequestRecord, body: CapturedBody): void {
    const held = this.#byRecord.get(record)?.find((one) => one.body === body);
    if (held) this.#forget(held);
  }

  /** Forgets every body (the list was cleared). */
  clear(): void {
    this.#byAge.clear();
    this.#byRecord.clear();
    this.#bytes = 0;
  }

  #forget(held: Held): void {
    if (!this.#byAge.delete(held)) return;
    this.#bytes -= held.body.bytes.byteLength;
    const mine = this.#byRecord.get(held.record)!;
    mine.splice(mine.indexOf(held), 1);
    if (mine.length === 0) this.#byRecord.delete(held.record);
  }
}
