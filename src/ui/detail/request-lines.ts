// The Request tab: the request line, headers as sent upstream, each marked with where it came from
// (the client, wrtui's jar, credentials, a rule; what rules removed and what dry-run would do),
// and the body: form data, pretty JSON or text, capped.
import type { HttpHeaders } from '../../engine/types.js';
import { headerOrigins, type HeaderOrigin } from './header-origins.js';
import { bodyEncoding, headerValue, shownHeaderValue, type RequestRecord } from '../store/request-record.js';
import { bodyPreviewLines } from './body-preview.js';
import { blank, heading, line, type StyledLine } from './styled-line.js';

export function requestLines(record: RequestRecord, unfold = false): StyledLine[] {
  const lines: StyledLine[] = [];
  lines.push(line({ text: `${record.method} `, bold: true }, record.url));
  lines.push(line({ text: `type ${record.type} · requestId ${record.requestId}${record.hops > 1 ? ` · ${record.hops} hops` : ''}`, dim: true }));
  if (record.madeBy) lines.push(madeByLine(record.madeBy));
  lines.push(blank);

  const sent = record.sentHeaders ?? record.requestHeaders;
  const origins = headerOrigins(record);
  if (!origins) {
    lines.push(line({ text: record.phase === 'pending' ? 'Headers not sent yet.' : 'No headers were sent (the request ended before onSendHeaders).', dim: true }));
  } else {
    const fromWrtui = origins.sent.some(({ origin }) => origin.kind !== 'client') || origins.removed.length > 0;
    lines.push(heading(`Headers sent (${origins.sent.length})${fromWrtui ? ': where each came from (client, jar, auth, rule)' : ''}`));
    for (const { header, origin } of origins.sent) {
      lines.push(line(originCell(origin, record.madeBy !== undefined), { text: `${header.name}: `, color: 'cyan' }, shownHeaderValue(header), origin.kind === 'jar' && { text: `  (from the jar: ${origin.cookies.join(', ')})`, color: 'yellow', dim: true }));
    }
    for (const { header, owners } of origins.removed) lines.push(line({ text: `${'- removed'.padEnd(ORIGIN_WIDTH)}`, color: 'red' }, { text: `${header.name}: ${shownHeaderValue(header)}`, color: 'red', dim: true }, { text: `  by ${owners.join(', ')}`, color: 'red' }));
    for (const note of origins.dryRun) lines.push(line({ text: '~ dry-run'.padEnd(ORIGIN_WIDTH), color: 'yellow' }, { text: note, color: 'yellow' }));
    if (origins.sent.some(({ origin }) => origin.kind === 'jar')) lines.push(line({ text: "  jar: wrtui added cookies from its jar (the client did not send them); --cookies observe turns that off", dim: true }));
  }

  const body = requestBodyLines(record, sent, unfold);
  if (body.length > 0) {
    lines.push(blank);
    lines.push(...body);
  }
  return lines;
}

/** A request an extension made itself: which, from where, and that its headers are wrtui's for it (Timeline and Request tabs). */
export function madeByLine(madeBy: { extension: string; origin: string }): StyledLine {
  return line({ text: `made by ${madeBy.extension} itself (its own fetch, from ${madeBy.origin}): wrtui sent it as its browser would`, color: 'magenta' });
}

function requestBodyLines(record: RequestRecord, headers: HttpHeaders | undefined, unfold: boolean): StyledLine[] {
  const contentType = headerValue(headers, 'content-type');
  const contentEncoding = bodyEncoding(record.requestBytes, headers);
  if (record.requestBytes) {
    return [heading(`Body (${record.requestBytes.size} B, as sent)`), ...bodyPreviewLines({ ...record.requestBytes, contentType, contentEncoding, unfold })];
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
      lines.push(...bodyPreviewLines({ bytes, contentType, contentEncoding, complete: true, unfold }));
    }
  }
  return lines;
}

const ORIGIN_WIDTH = 16;

/** A fixed-width cell saying where a header line came from. */
/** `byExtension`: the request is an extension's own, so what "the client" sent is what wrtui sent for it. */
function originCell(origin: HeaderOrigin, byExtension: boolean) {
  switch (origin.kind) {
    case 'client':
      return { text: (byExtension ? 'extension' : 'client').padEnd(ORIGIN_WIDTH), dim: true };
    case 'jar':
      return { text: `${origin.withClient ? 'client+jar' : 'jar'}`.padEnd(ORIGIN_WIDTH), color: 'yellow' };
    case 'credentials':
      return { text: 'wrtui (auth)'.padEnd(ORIGIN_WIDTH), color: 'magenta' };
    case 'rule': {
      const label = `+ ${origin.owners.join(',')}`;
      return { text: label.length >= ORIGIN_WIDTH ? `${label.slice(0, ORIGIN_WIDTH - 2)}… ` : label.padEnd(ORIGIN_WIDTH), color: 'green' };
    }
  }
}
