// The StreamFilters (webRequest.filterResponseData, Firefox's) one extension's worker made, as the
// proxy thread keeps them: each is the engine's filter on its request's body, joined to the
// worker's by the worker's number for it (fid); the body goes to the worker, and what the
// extension writes comes back.
import type { Engine } from '../engine.js';
import type { Owner } from '../owner.js';
import type { FilterEndpoint, ResponseFilter } from '../web-request/stream-filter.js';
import type { HostItem, WorkerItem } from './protocol.js';

type FilterItem = Extract<WorkerItem, [('filterWrite' | 'filterAck' | 'filterCall'), ...unknown[]]>;

export class WorkerFilters {
  readonly #engine: Engine;
  readonly #send: (item: HostItem) => void;
  readonly #filters = new Map<number, ResponseFilter>();

  /** `send`: queues an item for the worker. */
  constructor(engine: Engine, send: (item: HostItem) => void) {
    this.#engine = engine;
    this.#send = send;
  }

  /** webRequest.filterResponseData: the engine's filter for the worker's, or Firefox's error for it. */
  created(fid: number, requestId: string, owner: Owner | undefined): void {
    const endpoint: FilterEndpoint = {
      start: () => this.#send(['filterStart', fid]),
      // Copied by postMessage (a view of a larger buffer cut to its own bytes first: postMessage
      // would copy the whole buffer); the recorder may keep the same chunk.
      data: (chunk) => this.#send(['filterData', fid, chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength ? chunk : Uint8Array.prototype.slice.call(chunk)]),
      stop: () => {
        this.#send(['filterStop', fid]);
        if (this.#filters.get(fid)?.state === 'closed') this.#filters.delete(fid); // abandoned: the request ended without a body
      },
      error: (message) => {
        this.#filters.delete(fid);
        this.#send(['filterError', fid, message]);
      },
    };
    const made = owner?.persona.hasFilterResponseData && owner.permissions.has('webRequestBlocking') ? this.#engine.lifecycle.attachFilter(owner, requestId, endpoint) : { error: 'Invalid request ID' };
    if ('error' in made) endpoint.error(made.error);
    else this.#filters.set(fid, made);
  }

  /** What the extension did with one of its filters: wrote, acknowledged data, called a method. */
  received(item: FilterItem): void {
    const filter = this.#filters.get(item[1]);
    if (!filter) return;
    if (item[0] === 'filterWrite') filter.written(item[2]);
    else if (item[0] === 'filterAck') filter.acknowledged(item[2]);
    else filter[item[2]]();
    if (filter.state === 'closed' || filter.state === 'disconnected' || filter.state === 'failed') this.#filters.delete(item[1]);
  }

  /** The worker stopped: Firefox cancels a request whose filter's extension went away mid-body. */
  brokenAll(): void {
    for (const filter of this.#filters.values()) filter.broken('its worker stopped');
    this.#filters.clear();
  }
}
