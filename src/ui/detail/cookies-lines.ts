// The Cookies tab: the Cookie header sent, the Set-Cookie headers received, and the cookie
// changes (onChanged) they caused, by time.
import { formatClock } from '../format.js';
import { headerValues, type RequestRecord } from '../store/request-record.js';
import { blank, heading, line, type StyledLine } from './styled-line.js';

export function cookiesLines(record: RequestRecord): StyledLine[] {
  const lines: StyledLine[] = [];
  const sent = headerValues(record.sentHeaders ?? record.requestHeaders, 'cookie');
  const pairs = sent.flatMap((header) => header.split(/;\s*/)).filter(Boolean);
  lines.push(heading(`Cookie header sent (${pairs.length} cookie${pairs.length === 1 ? '' : 's'})`));
  if (pairs.length === 0) lines.push(line({ text: '  none', dim: true }));
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    lines.push(equals === -1 ? line('  ', pair) : line('  ', { text: pair.slice(0, equals), color: 'cyan' }, ' = ', pair.slice(equals + 1)));
  }
  lines.push(blank);
  lines.push(heading(`Set-Cookie received (${record.setCookieHeaders.length})`));
  if (record.setCookieHeaders.length === 0) lines.push(line({ text: '  none', dim: true }));
  // The jar takes the final headers: a Set-Cookie a rule removed (onHeadersReceived, DNR) never reached it.
  const removed = new Set(record.responseHeaderChanges?.removed.filter((header) => header.name.toLowerCase() === 'set-cookie').map((header) => header.value));
  for (const header of record.setCookieHeaders) lines.push(removed.has(header) ? line('  ', { text: header, dim: true }, { text: '  removed by a rule: the jar never saw it', color: 'yellow' }) : line('  ', header));
  lines.push(blank);
  lines.push(heading(`Cookie changes it caused (${record.cookieChanges.length})`));
  if (record.cookieChanges.length === 0) {
    const why = record.setCookieHeaders.length === 0 ? '' : record.setCookieHeaders.every((header) => removed.has(header)) ? ' (rules removed every Set-Cookie; the Response tab says which)' : ' (rejected, or no change; see the log view for why)';
    lines.push(line({ text: `  none${why}`, dim: true }));
  }
  for (const { time, changeInfo } of record.cookieChanges) {
    const { cookie, removed, cause } = changeInfo;
    lines.push(
      line(
        { text: `  ${formatClock(time, true)} `, dim: true },
        { text: removed ? '- ' : '+ ', color: removed ? 'red' : 'green' },
        { text: cookie.name, color: 'cyan' },
        `=${cookie.value}  ${cookie.domain}${cookie.path}  store ${cookie.storeId}  `,
        { text: cause, color: removed ? 'red' : 'green' },
      ),
    );
  }
  return lines;
}
