// The Request tab: the request line, headers as sent upstream (with what rules changed marked),
// and the body: form data, pretty JSON or text, capped.
import type { HttpHeader, HttpHeaders } from '../../engine/types.js';
import { headerValue, type RequestRecord } from '../store/request-record.js';
import { bodyPreviewLines } from './body-preview.js';
import { blank, heading, line, type StyledLine } from './styled-line.js';

export function requestLines(record: RequestRecord): StyledLine[] {
  const lines: StyledLine[] = [];
  lines.push(line({ text: `${record.method} `, bold: true }, record.url));
  lines.push(line({ text: `type ${record.type} · requestId ${record.requestId}${record.hops > 1 ? ` · ${record.hops} hops` : ''}`, dim: true }));
  lines.push(blank);

  const sent = record.sentHeaders ?? record.requestHeaders;
  if (!sent) {
    lines.push(line({ text: record.phase === 'pending' ? 'Headers not sent yet.' : 'No headers were sent (the request ended before onSendHeaders).', dim: true }));
  } else {
    const changed = record.sentHeaders && record.requestHeaders ? headerChanges(record.requestHeaders, record.sentHeaders) : undefined;
    lines.push(heading(`Headers sent (${sent.length})${changed && changed.size > 0 ? '  — rules changed the marked ones' : ''}`));
    for (const header of sent) {
      const mark = changed?.get(headerKey(header)) === 'added';
      lines.push(line(mark ? { text: '+ ', color: 'green' } : '  ', { text: `${header.name}: `, color: 'cyan' }, valueOf(header)));
    }
    for (const [key, change] of changed ?? []) {
      if (change !== 'removed') continue;
      lines.push(line({ text: `- ${key}`, color: 'red' }));
    }
  }

  const body = requestBodyLines(record, sent);
  if (body.length > 0) {
    lines.push(blank);
    lines.push(...body);
  }
  return lines;
}

function requestBodyLines(record: RequestRecord, headers: HttpHeaders | undefined): StyledLine[] {
  const contentType = headerValue(headers, 'content-type');
  const contentEncoding = headerValue(headers, 'content-encoding');
  if (record.requestBytes) {
    return [heading(`Body (${record.requestBytes.size} B, as sent)`), ...bodyPreviewLines({ ...record.requestBytes, contentType, contentEncoding })];
  }
  const body = record.requestBody;
  if (!body) return [];
  const lines: StyledLine[] = [];
  if (body.error) lines.push(line({ text: `requestBody error: ${body.error}`, color: 'red' }));
  if (body.formData) {
    lines.push(heading(`Body (form data, ${Object.keys(body.formData).length} fields)`));
    for (const [name, values] of Object.entries(body.formData)) {
      for (const value of values) lines.push(line('  ', { text: name, color: 'cyan' }, ' = ', value));
    }
  }
  if (body.raw) {
    for (const [index, part] of body.raw.entries()) {
      if (part.file !== undefined) {
        lines.push(line({ text: `part ${index + 1}: file ${part.file}`, dim: true }));
        continue;
      }
      const bytes = part.bytes ? new Uint8Array(part.bytes) : new Uint8Array();
      lines.push(heading(`Body${body.raw.length > 1 ? ` part ${index + 1}` : ''} (${bytes.length} B, raw)`));
      lines.push(...bodyPreviewLines({ bytes, contentType, contentEncoding, complete: true }));
    }
  }
  return lines;
}

function valueOf(header: HttpHeader): string {
  return header.value ?? `<binary ${Buffer.from(header.binaryValue ?? []).toString('hex')}>`;
}

function headerKey(header: HttpHeader): string {
  return `${header.name.toLowerCase()}: ${valueOf(header)}`;
}

/** Which header lines rules added or removed between what listeners were shown and what was sent. */
function headerChanges(shown: HttpHeaders, sent: HttpHeaders): Map<string, 'added' | 'removed'> {
  const changes = new Map<string, 'added' | 'removed'>();
  const before = new Set(shown.map(headerKey));
  const after = new Set(sent.map(headerKey));
  for (const key of after) if (!before.has(key)) changes.set(key, 'added');
  for (const key of before) if (!after.has(key)) changes.set(key, 'removed');
  return changes;
}
