// The Timeline tab: each webRequest event with its offset from the first and its key details,
// what rules answered to it, and a waterfall bar of the phases between events.
import { madeByLine } from './request-lines.js';
import type {
  OnAuthRequiredDetails,
  OnBeforeRedirectDetails,
  OnBeforeRequestDetails,
  OnCompletedDetails,
  OnErrorOccurredDetails,
  OnHeadersReceivedDetails,
  OnResponseStartedDetails,
  WebRequestEventName,
} from '../../engine/types.js';
import { formatDuration } from '../format.js';
import type { RequestRecord, TimelineEvent } from '../store/request-record.js';
import { blank, heading, line, type StyledLine } from './styled-line.js';
import { describeOutcome, STATUS_COLORS } from './verdict-text.js';

/** The phase that runs from an event until the next one. */
const PHASE_AFTER: Readonly<Record<WebRequestEventName, Phase>> = {
  onBeforeRequest: 'request',
  onBeforeSendHeaders: 'request',
  onSendHeaders: 'waiting',
  onHeadersReceived: 'headers',
  onAuthRequired: 'headers',
  onResponseStarted: 'receiving',
  onBeforeRedirect: 'redirect',
  onCompleted: 'receiving',
  onErrorOccurred: 'receiving',
};

type Phase = 'request' | 'waiting' | 'headers' | 'receiving' | 'redirect';

/** Distinct characters as well as colours: the phases must read without colour too. */
export const PHASES: Readonly<Record<Phase, { char: string; color: string; label: string }>> = {
  request: { char: '▓', color: 'yellow', label: 'request listeners' },
  waiting: { char: '░', color: 'blue', label: 'waiting for the server' },
  headers: { char: '▒', color: 'magenta', label: 'response headers' },
  receiving: { char: '█', color: 'green', label: 'receiving' },
  redirect: { char: '»', color: 'gray', label: 'redirect' },
};

const EVENT_COLUMN = 20;

const NOTE_COLORS: Partial<Record<RequestRecord['notes'][number]['level'], string>> = { warn: 'yellow', error: 'red' };

export function timelineLines(record: RequestRecord, width: number): StyledLine[] {
  const lines: StyledLine[] = [];
  if (record.pausedAt) lines.push(...pausedLines(record), blank);
  const first = record.events[0]?.timeStamp ?? record.startedAt;
  const last = record.events[record.events.length - 1]?.timeStamp ?? first;
  lines.push(line({ text: `${record.method} `, bold: true }, record.firstUrl));
  if (record.hops > 1) lines.push(line({ text: `${record.hops} hops, now ${record.url}`, dim: true }));
  if (record.madeBy) lines.push(madeByLine(record.madeBy));
  if (record.resentFrom) lines.push(line({ text: `resent by wrtui from #${record.resentFrom.requestId} (R selects it)`, color: 'blue' }));
  if (record.inferred) lines.push(line({ text: 'inferred: the attached browser did not report this request; its type, frame and tab are guessed from its headers', color: 'yellow', dim: true }));
  lines.push(blank);

  let hop = 0;
  for (const event of record.events) {
    const offset = `+${formatDuration(event.timeStamp - first) || '0 ms'}`.padStart(10);
    // Each hop of a redirect chain says where it went.
    if (event.event === 'onBeforeRequest' && ++hop > 1) lines.push(line({ text: `  hop ${hop}: `, dim: true }, { text: event.details.url, bold: true }));
    lines.push(line({ text: offset, dim: true }, '  ', { text: event.event.padEnd(EVENT_COLUMN), color: event.ending ? 'yellow' : eventColor(event.event), bold: true }, summary(event)));
    for (const outcome of event.outcomes) {
      lines.push(line(' '.repeat(14), { text: outcome.owner, bold: true }, ' ', { text: outcome.status, color: STATUS_COLORS[outcome.status] }, ` ${describeOutcome(outcome)}`));
    }
  }
  if (record.phase === 'pending') lines.push(line(' '.repeat(12), { text: '… in progress', dim: true }));
  if (record.notes.length > 0) {
    lines.push(blank, heading('Notes'));
    for (const note of record.notes) lines.push(line({ text: `  ${note.source}: `, dim: true }, { text: note.message, ...(NOTE_COLORS[note.level] && { color: NOTE_COLORS[note.level] }) }));
  }

  const total = last - first;
  if (record.events.length > 1 && total > 0) {
    lines.push(blank);
    lines.push(heading(`Waterfall  ${formatDuration(total)}`));
    lines.push(waterfall(record.events, Math.max(10, width - 4), first, total));
    lines.push(...legend(record.events));
  }
  return lines;
}

/** A request waiting at a breakpoint: the keys that answer it, and what a listener there is given. */
function pausedLines(record: RequestRecord): StyledLine[] {
  const lines: StyledLine[] = [
    line({ text: ` PAUSED at ${record.pausedAt} `, color: 'yellow', bold: true, inverse: true }, { text: '  a continue · X cancel · u redirect · E edit headers · C credentials · A continue all', color: 'yellow' }),
    line({ text: 'It waits until answered (no timeout); quitting wrtui lets it go on unchanged. What a listener is given:', dim: true }),
  ];
  const json = JSON.stringify(record.pausedDetails ?? {}, (_key, value: unknown) => (value instanceof ArrayBuffer ? `<${value.byteLength} bytes>` : value), 2).split('\n');
  for (const text of json.slice(0, MAX_PAUSED_DETAIL_LINES)) lines.push(line({ text: `  ${text}`, color: 'cyan' }));
  if (json.length > MAX_PAUSED_DETAIL_LINES) lines.push(line({ text: `  … ${json.length - MAX_PAUSED_DETAIL_LINES} more lines`, dim: true }));
  return lines;
}

const MAX_PAUSED_DETAIL_LINES = 60;

function waterfall(events: readonly TimelineEvent[], width: number, first: number, total: number): StyledLine {
  const bar: StyledLine = [{ text: '  ' }];
  let drawn = 0;
  for (let index = 0; index < events.length - 1; index++) {
    const phase = PHASES[PHASE_AFTER[events[index]!.event]];
    const end = Math.round(((events[index + 1]!.timeStamp - first) / total) * width);
    const cells = Math.max(0, end - drawn);
    if (cells === 0) continue;
    bar.push({ text: phase.char.repeat(cells), color: phase.color });
    drawn += cells;
  }
  return bar;
}

function legend(events: readonly TimelineEvent[]): StyledLine[] {
  const durations = new Map<Phase, number>();
  for (let index = 0; index < events.length - 1; index++) {
    const phase = PHASE_AFTER[events[index]!.event];
    durations.set(phase, (durations.get(phase) ?? 0) + events[index + 1]!.timeStamp - events[index]!.timeStamp);
  }
  return [...durations].map(([phase, ms]) => line('  ', { text: PHASES[phase].char, color: PHASES[phase].color }, ` ${PHASES[phase].label.padEnd(24)} ${formatDuration(ms) || '0 ms'}`));
}

function summary(event: TimelineEvent): string {
  const details = event.details;
  switch (event.event) {
    case 'onBeforeRequest': {
      const before = details as OnBeforeRequestDetails;
      const body = before.requestBody;
      const bodyText = body?.formData ? `, form data (${Object.keys(body.formData).length} fields)` : body?.raw ? `, body (${body.raw.reduce((n, part) => n + (part.bytes?.byteLength ?? 0), 0)} B)` : body?.error ? `, body error: ${body.error}` : '';
      return `${before.method} ${before.type}${before.tabId !== -1 ? ` tab ${before.tabId}` : ''}${bodyText}`;
    }
    case 'onBeforeSendHeaders':
    case 'onSendHeaders': {
      const headers = (details as { requestHeaders?: unknown[] }).requestHeaders;
      return headers ? `${headers.length} request headers` : '';
    }
    case 'onHeadersReceived': {
      const received = details as OnHeadersReceivedDetails;
      return `${received.statusLine}${received.responseHeaders ? `, ${received.responseHeaders.length} headers` : ''}`;
    }
    case 'onAuthRequired': {
      const auth = details as OnAuthRequiredDetails;
      return `${auth.scheme}${auth.realm ? ` realm="${auth.realm}"` : ''} from ${auth.challenger.host}:${auth.challenger.port}${auth.isProxy ? ' (proxy)' : ''}`;
    }
    case 'onResponseStarted': {
      const started = details as OnResponseStartedDetails;
      return `${started.statusCode}${started.fromCache ? ' from cache' : ''}${started.ip ? ` ip ${started.ip}` : ''}`;
    }
    case 'onBeforeRedirect': {
      const redirect = details as OnBeforeRedirectDetails;
      return `${redirect.statusCode} → ${redirect.redirectUrl}`;
    }
    case 'onCompleted': {
      const completed = details as OnCompletedDetails;
      return `${completed.statusCode}${completed.fromCache ? ' from cache' : ''}`;
    }
    case 'onErrorOccurred':
      if (event.ending === 'redirect-not-followed') return `${(details as OnErrorOccurredDetails).error}: the client did not follow the redirect (Chrome reports it so)`;
      return (details as OnErrorOccurredDetails).error;
  }
}

function eventColor(event: WebRequestEventName): string {
  if (event === 'onErrorOccurred') return 'red';
  if (event === 'onCompleted') return 'green';
  if (event === 'onBeforeRedirect' || event === 'onAuthRequired') return 'magenta';
  return 'white';
}
