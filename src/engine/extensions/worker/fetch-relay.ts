// A dedicated Worker's own requests to the network, on their way through the threads above it: a
// Worker's thread makes them as the extension's does (network-fetch.ts: its items 'fetch',
// 'fetchRead', 'fetchCancel'), and each thread above passes them up under an id of its own (negative,
// so never one of its own fetches'), until the extension's thread hands them to the host, whose
// lifecycle sends them through the proxy as the extension's requests. The answers ('fetched',
// 'fetchBody', 'fetchEnd') come back down the same way. Runs on a worker thread's Node side.

/** One child thread's end of the relay: how items reach it. */
export type RelayChild = (item: unknown[]) => void;

const UP = new Set(['fetch', 'fetchRead', 'fetchCancel']);
const DOWN = new Set(['fetched', 'fetchBody', 'fetchEnd']);

export class FetchRelay {
  readonly #up: (item: unknown[]) => void;
  #next = -1;
  /** This thread's id for a relayed fetch → the child and the child's own id. */
  readonly #routes = new Map<number, { child: RelayChild; id: number }>();
  /** A child's ids → this thread's. */
  readonly #ids = new Map<RelayChild, Map<number, number>>();

  /** `up`: how this thread sends an item on (to the host, or to its own parent). */
  constructor(up: (item: unknown[]) => void) {
    this.#up = up;
  }

  /** Whether `item` of a child is one of its fetch items, and if so sends it on under this thread's id. */
  fromChild(child: RelayChild, item: unknown[]): boolean {
    if (!UP.has(item[0] as string)) return false;
    const childId = item[1] as number;
    let ids = this.#ids.get(child);
    if (!ids) this.#ids.set(child, (ids = new Map()));
    let id = ids.get(childId);
    if (id === undefined) {
      if (item[0] !== 'fetch') return true; // about a fetch that already ended
      id = this.#next--;
      ids.set(childId, id);
      this.#routes.set(id, { child, id: childId });
    }
    this.#up([item[0], id, ...item.slice(2)]);
    return true;
  }

  /** Whether `item` from above answers a relayed fetch; if so it goes down to its child. */
  toChild(item: readonly unknown[]): boolean {
    if (!DOWN.has(item[0] as string)) return false;
    const route = this.#routes.get(item[1] as number);
    if (!route) return (item[1] as number) < 0;
    // The answer's end: a failure with no response, or the body's end.
    if (item[0] === 'fetchEnd' || (item[0] === 'fetched' && item[2] === undefined)) this.#forget(item[1] as number);
    route.child([item[0], route.id, ...item.slice(2)]);
    return true;
  }

  /** A child ended: the requests it still had open are given up above. */
  childEnded(child: RelayChild): void {
    for (const id of this.#ids.get(child)?.values() ?? []) {
      this.#routes.delete(id);
      this.#up(['fetchCancel', id]);
    }
    this.#ids.delete(child);
  }

  #forget(id: number): void {
    const route = this.#routes.get(id);
    if (!route) return;
    this.#routes.delete(id);
    this.#ids.get(route.child)?.delete(route.id);
  }
}
