// The Response tab: status line, headers, and a body preview when the journal carried the body
// (wrtui journals bodies only while recording).
import { headerValue, type RequestRecord } from '../store/request-record.js';
import { bodyPreviewLines } from './body-preview.js';
import { blank, heading, line, type StyledLine } from './styled-line.js';

export function responseLines(record: RequestRecord): StyledLine[] {
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
  if (record.responseBytes) {
    lines.push(heading(`Body (${record.responseBytes.size} B as received${record.responseBytes.complete ? '' : ', cut'})`));
    lines.push(
      ...bodyPreviewLines({
        ...record.responseBytes,
        contentType: headerValue(headers, 'content-type'),
        contentEncoding: headerValue(headers, 'content-encoding'),
      }),
    );
  } else {
    lines.push(line({ text: 'No body preview: the journal carries bodies only while recording (--record).', dim: true }));
  }
  return lines;
}

export function statusColor(statusCode: number | undefined): string {
  if (statusCode === undefined) return 'gray';
  if (statusCode >= 500) return 'red';
  if (statusCode >= 400) return 'yellow';
  if (statusCode >= 300) return 'cyan';
  return 'green';
}
