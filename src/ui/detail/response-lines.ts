// The Response tab: status line, headers, and the body (decoded for viewing; the TUI keeps bodies
// up to --max-body-size each, within its body memory), saying when it was cut or let go.
import { formatBytes } from '../format.js';
import { bodyEncoding, headerValue, type CapturedBody, type RequestRecord } from '../store/request-record.js';
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
  lines.push(heading(`Headers (${headers.length})`));
  for (const header of headers) {
    lines.push(line('  ', { text: `${header.name}: `, color: 'cyan' }, header.value ?? `<binary ${Buffer.from(header.binaryValue ?? []).toString('hex')}>`));
  }
  lines.push(blank);
  const body = record.responseBytes;
  if (body) {
    lines.push(heading(`Body (${bodySizeText(body)})`));
    if (body.dropped) lines.push(line({ text: "Dropped: the TUI lets go of the oldest bodies to stay within its body memory (--body-memory).", color: 'yellow' }));
    else {
      if (!body.complete) lines.push(line({ text: `Cut: wrtui kept the first ${formatBytes(body.bytes.length)} of ${formatBytes(body.size)} (--max-body-size); the client got all of it.`, color: 'yellow' }));
      lines.push(...bodyPreviewLines({ ...body, contentType: headerValue(headers, 'content-type'), contentEncoding: bodyEncoding(body, headers), unfold }));
    }
  } else if (record.phase === 'pending') {
    lines.push(line({ text: 'The body has not arrived yet.', dim: true }));
  } else {
    lines.push(line({ text: 'No body (none was sent, or this session does not keep bodies: headless keeps them only with --record).', dim: true }));
  }
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
