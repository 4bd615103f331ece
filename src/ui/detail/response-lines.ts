// The Response tab: status line, headers, and the body (decoded for viewing; the TUI keeps bodies
// up to --max-body-size each, within its body memory), saying when it was cut or let go.
import { websocketLines } from './websocket-lines.js';
import type { HttpHeaders } from '../../engine/types.js';
import { formatBytes } from '../format.js';
import { bodyEncoding, headerLineKey, headerValue, hopDnrEntries, latestOutcomes, shownHeaderValue, type CapturedBody, type RequestRecord } from '../store/request-record.js';
import { bodyPreviewLines } from './body-preview.js';
import { blank, heading, line, type StyledLine } from './styled-line.js';

export function responseLines(record: RequestRecord, unfold = false): StyledLine[] {
  const lines: StyledLine[] = [];
  if (record.error) lines.push(line({ text: `Failed: ${record.error}`, color: 'red', bold: true }));
  if (record.redirectNotFollowed) lines.push(line({ text: `The client took this ${record.statusCode ?? '3xx'} as its answer and did not follow it to ${record.redirectTarget ?? 'its Location'}.`, color: 'yellow' }));
  if (!record.statusLine && !record.responseHeaders) {
    lines.push(line({ text: record.phase === 'pending' ? 'No response yet.' : 'No response was received.', dim: true }));
    return lines;
  }
  if (record.statusLine) lines.push(line({ text: record.statusLine, bold: true, color: statusColor(record.statusCode) }));
  const headers = record.responseHeaders ?? [];
  lines.push(blank);
  const changes = record.responseHeaderChanges;
  lines.push(heading(`Headers (${headers.length})${changes ? ': as the client got them, with what rules changed' : ''}`));
  const added = new Set(changes?.added.map(headerLineKey));
  for (const header of headers) {
    if (added.has(headerLineKey(header))) lines.push(line({ text: '+ ', color: 'green' }, { text: `${header.name}: `, color: 'green' }, shownHeaderValue(header)));
    else lines.push(line('  ', { text: `${header.name}: `, color: 'cyan' }, shownHeaderValue(header)));
  }
  if (changes) {
    for (const header of changes.removed) lines.push(line({ text: '- ', color: 'red' }, { text: `${header.name}: ${shownHeaderValue(header)}`, color: 'red', dim: true }, { text: '  removed', color: 'red' }));
    const by = responseHeaderChangers(record);
    if (by.length > 0) lines.push(line({ text: `  changed by ${by.join(', ')} (onHeadersReceived)`, dim: true }));
  }
  lines.push(blank);
  // A WebSocket's 101 has no body: its messages are what went through.
  if (record.type === 'websocket' && record.statusCode === 101) return [...lines, ...websocketLines(record)];
  const body = record.responseBytes;
  const delivered = record.deliveredBytes;
  if (delivered) {
    // A StreamFilter rewrote the body: what the client got first, then what the server sent.
    const owners = delivered.filteredBy ?? [];
    lines.push(heading(`Body the client got (${formatBytes(delivered.size)}, written by the StreamFilter${owners.length > 1 ? 's' : ''}${owners.length > 0 ? ` of ${owners.join(', then ')}` : ''}${delivered.complete ? '' : delivered.dropped ? ', dropped' : ', cut'})`));
    lines.push(...bodyLines(delivered, headers, unfold));
    lines.push(blank);
  }
  if (body) {
    lines.push(heading(`${delivered ? 'Body as the server sent it' : 'Body'} (${bodySizeText(body)})`));
    lines.push(...bodyLines(body, headers, unfold));
  } else if (record.phase === 'pending') {
    lines.push(line({ text: 'The body has not arrived yet.', dim: true }));
  } else {
    lines.push(line({ text: 'No body (none was sent, or this session does not keep bodies: headless keeps them only with --record).', dim: true }));
  }
  return lines;
}

function bodyLines(body: CapturedBody, headers: HttpHeaders, unfold: boolean): StyledLine[] {
  if (body.dropped) return [line({ text: 'Dropped: the TUI lets go of the oldest bodies to stay within its body memory (--body-memory).', color: 'yellow' })];
  const lines: StyledLine[] = [];
  if (!body.complete) lines.push(line({ text: `Cut: wrtui kept the first ${formatBytes(body.bytes.length)} of ${formatBytes(body.size)} (--max-body-size); the client got all of it.`, color: 'yellow' }));
  lines.push(...bodyPreviewLines({ ...body, contentType: headerValue(headers, 'content-type'), contentEncoding: bodyEncoding(body, headers), unfold }));
  return lines;
}

/** "1.2 kB as received", with ", cut" or ", dropped" when the TUI does not hold all of it. */
function bodySizeText(body: CapturedBody): string {
  return `${formatBytes(body.size)} ${body.decoded ? 'decoded (as the recording kept it)' : 'as received'}${body.complete ? '' : body.dropped ? ', dropped' : ', cut'}`;
}

export function statusColor(statusCode: number | undefined): string {
  if (statusCode === undefined) return 'gray';
  if (statusCode >= 500) return 'red';
  if (statusCode >= 400) return 'yellow';
  if (statusCode >= 300) return 'cyan';
  return 'green';
}

/** Who changed this hop's response headers: listeners whose answer did, declarativeNetRequest rules that did. */
function responseHeaderChangers(record: RequestRecord): string[] {
  const owners = new Set<string>();
  for (const outcome of latestOutcomes(record, 'onHeadersReceived')) if (outcome.status === 'applied' && outcome.response?.responseHeaders) owners.add(outcome.owner);
  for (const entry of hopDnrEntries(record, 'onHeadersReceived')) for (const change of entry.headerChanges ?? []) owners.add(`DNR ${change.extension}`);
  return [...owners];
}
