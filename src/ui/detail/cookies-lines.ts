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
  for (const header of record.setCookieHeaders) lines.push(line('  ', header));
  lines.push(blank);
  lines.push(heading(`Cookie changes it caused (${record.cookieChanges.length})`));
  if (record.cookieChanges.length === 0) {
    lines.push(line({ text: record.setCookieHeaders.length > 0 ? '  none (rejected, or no change; see the log view for why)' : '  none', dim: true }));
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
