// S in the TUI: the session so far as a HAR 1.2 file, whether or not wrtui records. The records
// the TUI holds are turned back into the journal entries they were folded from (events, bodies),
// then into a session and a HAR by the same code `wrtui replay --export-har` uses, so the file
// replays with `wrtui replay <file>` like any other.
import type { JournalEntry, JournalEntryBody } from '../../engine/journal.js';
import { sessionToHar } from '../../engine/session/har/har-export.js';
import { sessionFromJournal } from '../../engine/session/session-from-journal.js';
import type { RequestRecord } from '../store/request-record.js';

export function recordsAsHar(records: readonly RequestRecord[]): { har: ReturnType<typeof sessionToHar>; requests: number } {
  const timed: { time: number; order: number; body: JournalEntryBody }[] = [];
  let order = 0;
  for (const record of records) {
    if (record.events.length === 0) continue; // paused before its first event: nothing happened yet
    let sawBeforeRequest = false;
    for (const event of record.events) {
      // A request body comes just before its hop's onBeforeRequest; a response body just before the end.
      if (event.event === 'onBeforeRequest' && !sawBeforeRequest && record.requestBytes?.complete) {
        timed.push({ time: event.timeStamp, order: order++, body: { kind: 'body', requestId: record.requestId, direction: 'request', url: event.details.url, bytes: record.requestBytes.bytes, complete: true } });
      }
      if ((event.event === 'onCompleted' || event.event === 'onErrorOccurred') && record.responseBytes && !record.responseBytes.dropped) {
        timed.push({ time: event.timeStamp, order: order++, body: { kind: 'body', requestId: record.requestId, direction: 'response', url: event.details.url, bytes: record.responseBytes.complete ? record.responseBytes.bytes : new Uint8Array(), complete: record.responseBytes.complete, ...(record.responseBytes.decoded && { decoded: true }) } });
      }
      if (event.event === 'onBeforeRequest') sawBeforeRequest = true;
      timed.push({ time: event.timeStamp, order: order++, body: { kind: 'webRequest', event: event.event, details: event.details, outcomes: event.outcomes, ...(event.ending && { ending: event.ending }) } });
    }
  }
  timed.sort((a, b) => a.time - b.time || a.order - b.order);
  const entries = timed.map(({ time, body }, index) => ({ ...body, seq: index + 1, time: Math.round(time) }) as JournalEntry);
  const session = sessionFromJournal('the TUI', { source: 'wrtui-journal', header: undefined, entries, warnings: [] });
  return { har: sessionToHar(session), requests: session.requests.length };
}
