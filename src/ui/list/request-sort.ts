// Sorting the request list by a column, as mitmproxy's `o` does: arrival (the default, and the
// only order that follows new requests), duration, size or status. Pure: a sorted copy.
import type { RequestRecord } from '../store/request-record.js';

export type SortKey = 'arrival' | 'duration' | 'size' | 'status';
export const SORT_KEYS: readonly SortKey[] = ['arrival', 'duration', 'size', 'status'];

/** The next key `o` gives. */
export function nextSortKey(key: SortKey): SortKey {
  return SORT_KEYS[(SORT_KEYS.indexOf(key) + 1) % SORT_KEYS.length]!;
}

/**
 * `records` (arrival order) in `key` order, largest first unless `reversed`; ties keep arrival
 * order. Unknown values (a request still waiting, a size never learned) go last.
 */
export function sortRequests(records: readonly RequestRecord[], key: SortKey, reversed: boolean): readonly RequestRecord[] {
  if (key === 'arrival') return reversed ? [...records].reverse() : records;
  const value = VALUE_OF[key];
  const decorated = records.map((record, index) => ({ record, index, value: value(record) }));
  decorated.sort((a, b) => {
    if (a.value === undefined || b.value === undefined) return a.value === b.value ? a.index - b.index : a.value === undefined ? 1 : -1;
    return (reversed ? a.value - b.value : b.value - a.value) || a.index - b.index;
  });
  return decorated.map(({ record }) => record);
}

const VALUE_OF: Readonly<Record<Exclude<SortKey, 'arrival'>, (record: RequestRecord) => number | undefined>> = {
  duration: (record) => (record.endedAt === undefined ? undefined : record.endedAt - record.startedAt),
  size: (record) => record.responseSize,
  // Errors after every status: they are what one sorts by status to find.
  status: (record) => (record.error !== undefined ? 1000 : record.statusCode),
};
