// The cookies view's content as lines: a store's cookies grouped by domain, every field of the
// selected cookie, and the onChanged log with causes.
import type { Cookie } from '../../engine/types.js';
import { formatClock } from '../format.js';
import { line, type Segment, type StyledLine } from '../detail/styled-line.js';
import type { CookieLogLine } from '../store/traffic-store.js';

export type CookieListEntry = { kind: 'domain'; domain: string; count: number } | { kind: 'cookie'; cookie: Cookie; key: string };

export function cookieKey(cookie: Cookie): string {
  return `${cookie.storeId}|${cookie.domain}|${cookie.path}|${cookie.name}`;
}

/** Cookies grouped by domain (without the leading dot), domains and names in order. */
export function groupByDomain(cookies: readonly Cookie[]): CookieListEntry[] {
  const byDomain = new Map<string, Cookie[]>();
  for (const cookie of cookies) {
    const domain = cookie.domain.replace(/^\./, '');
    let group = byDomain.get(domain);
    if (!group) byDomain.set(domain, (group = []));
    group.push(cookie);
  }
  const entries: CookieListEntry[] = [];
  for (const domain of [...byDomain.keys()].sort()) {
    const group = byDomain.get(domain)!.sort((a, b) => a.name.localeCompare(b.name) || a.path.localeCompare(b.path));
    entries.push({ kind: 'domain', domain, count: group.length });
    for (const cookie of group) entries.push({ kind: 'cookie', cookie, key: cookieKey(cookie) });
  }
  return entries;
}

export function cookieRow(cookie: Cookie, width: number): StyledLine {
  const nameWidth = Math.max(8, Math.floor(width * 0.22));
  const pathWidth = Math.min(16, Math.max(4, Math.floor(width * 0.12)));
  const flagsWidth = 6;
  const expiresWidth = width >= 100 ? 19 : 10;
  const valueWidth = Math.max(4, width - nameWidth - pathWidth - flagsWidth - expiresWidth - 8);
  const cell = (text: string, size: number) => (text.length > size ? `${text.slice(0, size - 1)}…` : text.padEnd(size));
  return line(
    '  ',
    { text: cell(cookie.name, nameWidth), color: 'cyan' },
    ' ',
    cell(cookie.value, valueWidth),
    ' ',
    { text: cell(cookie.path, pathWidth), dim: true },
    ' ',
    { text: cell(flags(cookie), flagsWidth), color: 'magenta' },
    ' ',
    { text: cell(expires(cookie, expiresWidth >= 19), expiresWidth), dim: true },
  );
}

/** S secure, H httpOnly, h host-only, s session. */
function flags(cookie: Cookie): string {
  return `${cookie.secure ? 'S' : '-'}${cookie.httpOnly ? 'H' : '-'}${cookie.hostOnly ? 'h' : '-'}${cookie.session ? 's' : '-'}`;
}

function expires(cookie: Cookie, long: boolean): string {
  if (cookie.session || cookie.expirationDate === undefined) return 'session';
  if (!Number.isFinite(cookie.expirationDate) || cookie.expirationDate > 253402300799) return 'far future';
  const iso = new Date(cookie.expirationDate * 1000).toISOString();
  return long ? iso.slice(0, 19).replace('T', ' ') : iso.slice(0, 10);
}

/** Every field of the Cookie type (spec §2.1). */
export function cookieFieldLines(cookie: Cookie | undefined): StyledLine[] {
  if (!cookie) return [line({ text: 'No cookie selected.', dim: true })];
  const field = (name: string, value: string): Segment[] => [{ text: `${name} `, dim: true }, { text: value, bold: true }, { text: '  ' }];
  return [
    line(...field('name', JSON.stringify(cookie.name)), ...field('value', JSON.stringify(cookie.value))),
    line(...field('domain', cookie.domain), ...field('hostOnly', String(cookie.hostOnly)), ...field('path', cookie.path), ...field('storeId', JSON.stringify(cookie.storeId))),
    line(
      ...field('secure', String(cookie.secure)),
      ...field('httpOnly', String(cookie.httpOnly)),
      ...field('session', String(cookie.session)),
      ...field('expirationDate', cookie.expirationDate === undefined ? '—' : `${cookie.expirationDate} (${expires(cookie, true)} UTC)`),
    ),
  ];
}

export function cookieLogRow(entry: CookieLogLine): StyledLine {
  const { cookie, removed, cause } = entry.changeInfo;
  return line(
    { text: `${formatClock(entry.time, true)} `, dim: true },
    { text: removed ? '- ' : '+ ', color: removed ? 'red' : 'green', bold: true },
    { text: cause.padEnd(17), color: removed ? 'red' : 'green' },
    { text: `store ${cookie.storeId} `, dim: true },
    { text: cookie.name, color: 'cyan' },
    `=${cookie.value}  `,
    { text: `${cookie.domain}${cookie.path}`, dim: true },
    entry.request !== undefined && { text: `  ← Set-Cookie of #${entry.request.requestId} ${entry.request.url}`, color: 'magenta' },
  );
}
