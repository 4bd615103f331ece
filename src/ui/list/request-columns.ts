// The request list's columns, sized to the terminal, and one request as a row of them:
// time, method, status or error, type, host and path, size, duration, and what rules did.
//
// Rows are plain ASCII ("..." where a URL is cut in the middle, "->" in a redirect chain): the
// list is what Ink redraws most, and its width measuring (string-width) takes a fast path only
// for ASCII; a "…" in most rows made every frame a quarter slower. The detail pane shows
// everything in full.
import { formatBytes, formatClock, formatDuration, printable } from '../format.js';
import type { Segment, StyledLine } from '../detail/styled-line.js';
import { statusColor } from '../detail/response-lines.js';
import { dryRunKinds, type RequestRecord } from '../store/request-record.js';
import { splitUrl } from '../store/split-url.js';

export interface RequestColumns {
  /** 0 when the column is left out (narrow screens keep the URL's room instead). */
  time: number;
  method: number;
  status: number;
  type: number;
  url: number;
  size: number;
  duration: number;
  marks: number;
  /** Show milliseconds in the time column. */
  millis: boolean;
  /** Full type names instead of short ones. */
  longTypes: boolean;
}

const GAP = 1;
/** Width of the selection marker at the start of each row. */
export const MARKER_WIDTH = 2;
/** Columns left out, in this order, while the URL has less than its share of the width. */
const DROPPED_FIRST = ['time', 'type', 'duration'] as const;

/**
 * Column widths for a list `width` columns wide. The URL is what a user reads first, so it keeps
 * at least 40 % of the row: the clock goes first, then the type, then the duration.
 */
export function requestColumns(width: number): RequestColumns {
  const wide = width >= 150;
  const columns: RequestColumns = {
    time: wide ? 12 : 8,
    method: 7,
    status: wide ? STATUS_WIDE : STATUS_NARROW,
    type: wide ? 10 : 5,
    url: 0,
    size: 7,
    duration: 7,
    marks: wide ? 24 : 10,
    millis: wide,
    longTypes: wide,
  };
  const urlWidth = () => {
    const shown = [columns.time, columns.method, columns.status, columns.type, columns.size, columns.duration, columns.marks].filter((cell) => cell > 0);
    return width - MARKER_WIDTH - shown.reduce((sum, cell) => sum + cell + GAP, 0);
  };
  const minimum = Math.max(20, Math.floor(width * 0.4));
  for (const column of DROPPED_FIRST) {
    if (urlWidth() >= minimum) break;
    columns[column] = 0;
  }
  return { ...columns, url: Math.max(10, urlWidth()) };
}

const SHORT_TYPES: Readonly<Record<string, string>> = {
  main_frame: 'doc',
  sub_frame: 'frame',
  stylesheet: 'css',
  script: 'js',
  image: 'img',
  xmlhttprequest: 'xhr',
  websocket: 'ws',
  csp_report: 'csp',
  web_manifest: 'manif',
  imageset: 'imgset',
  xml_dtd: 'dtd',
};

export function headerRow(columns: RequestColumns): StyledLine {
  const cell = (text: string, width: number, align: 'left' | 'right' = 'left') => (align === 'left' ? text.padEnd(width) : text.padStart(width)).slice(0, width);
  const cells = [
    ' '.repeat(MARKER_WIDTH - GAP),
    columns.time > 0 && cell('time', columns.time),
    cell('method', columns.method),
    cell('status', columns.status),
    columns.type > 0 && cell('type', columns.type),
    cell('host and path', columns.url),
    cell('size', columns.size, 'right'),
    columns.duration > 0 && cell('time', columns.duration, 'right'),
    cell('marks', columns.marks),
  ];
  const text = cells.filter((text): text is string => text !== false).join(' ');
  return [{ text, bold: true, dim: true }];
}

/** One request's row; a request still waiting shows how long it has waited so far (at `now`). */
export function requestRow(record: RequestRecord, columns: RequestColumns, now?: number): StyledLine {
  const cells: Segment[] = [];
  const push = (text: string, width: number, style: Omit<Segment, 'text'> = {}, align: 'left' | 'right' = 'left') => {
    if (width === 0) return;
    const cut = printable(text).slice(0, width);
    cells.push({ ...style, text: align === 'left' ? cut.padEnd(width) : cut.padStart(width) });
    cells.push({ text: ' '.repeat(GAP) });
  };
  cells.push({ text: ' '.repeat(MARKER_WIDTH) });
  push(formatClock(record.startedAt, columns.millis), columns.time, { dim: true });
  push(record.method, columns.method, { bold: true });
  push(...statusCell(record, columns.status));
  push(columns.longTypes ? record.type : (SHORT_TYPES[record.type] ?? record.type), columns.type, { dim: true });
  // The scheme first, always: plain http (and ws) in yellow, as traffic anyone on the path can read.
  const scheme = schemeOf(record.url);
  if (columns.url > 0) {
    const shown = cutMiddle(`${scheme}${urlCell(record)}`, columns.url, scheme.length + record.host.length);
    const schemeShown = shown.startsWith(scheme) ? scheme : '';
    cells.push({ text: schemeShown, ...(SECURE_SCHEMES.has(scheme) ? { dim: true } : { color: 'yellow' }) });
    push(shown.slice(schemeShown.length), columns.url - schemeShown.length);
  }
  push(formatBytes(record.responseSize), columns.size, {}, 'right');
  if (record.endedAt !== undefined) push(formatDuration(record.endedAt - record.startedAt), columns.duration, {}, 'right');
  else if (now !== undefined && now - record.startedAt >= 1000) push(`${formatDuration(now - record.startedAt)}…`, columns.duration, { color: 'yellow' }, 'right');
  else push('', columns.duration, {}, 'right');
  cells.push(...marksCell(record, columns.marks));
  // The last run's row while a re-run has not reached it: dim, so the replayed ones stand out.
  return record.replayStale ? cells.map((cell) => ({ ...cell, dim: true })) : cells;
}

/**
 * Host and path; a redirect chain as first -> latest (the host said once when it does not
 * change), with the hop count past two; a redirect the client did not follow names its target.
 */
export function urlCell(record: RequestRecord): string {
  const latest = `${record.host}${record.path}`;
  let text = latest;
  if (record.hops > 1) {
    const first = splitUrl(record.firstUrl);
    const arrow = record.hops > 2 ? ` -(${record.hops} hops)-> ` : ' -> ';
    text = `${first.host}${first.path}${arrow}${first.host === record.host ? record.path : latest}`;
  }
  if (record.redirectNotFollowed && record.redirectTarget) {
    const target = splitUrl(record.redirectTarget);
    text += ` -/-> ${target.host === record.host ? target.path : `${target.host}${target.path}`}`;
  }
  return text;
}

const SECURE_SCHEMES: ReadonlySet<string> = new Set(['https://', 'wss://']);

/** "https://", "http://", "ws://"…: what the row's URL starts with ("" for data: and about: URLs). */
export function schemeOf(url: string): string {
  const end = url.indexOf('://');
  return end === -1 || end > 8 ? '' : url.slice(0, end + 3).toLowerCase();
}

/** Cuts text to `width` in the middle, so the host and the end of the path both stay: "host/a...z". */
export function cutMiddle(text: string, width: number, keepHead = 0): string {
  if (text.length <= width) return text;
  if (width < 12) return text.slice(0, width);
  // The first `keepHead` characters (the scheme and host) stay whole while they take at most 75 %.
  const head = Math.max(width - 3 - Math.floor((width - 3) * 0.4), Math.min(keepHead, Math.floor(width * 0.75)));
  const tail = width - 3 - head;
  return `${text.slice(0, head)}...${tail > 0 ? text.slice(text.length - tail) : ''}`;
}

/** Wide enough for the common net::ERR_* names whole (CONNECTION_REFUSED, BLOCKED_BY_CLIENT). */
const STATUS_WIDE = 18;
/** Wide enough for every short form in ERROR_SHORT_FORMS. */
const STATUS_NARROW = 8;

/** Short forms of net::ERR_* names for narrow status cells; the help screen shows this legend. */
export const ERROR_SHORT_FORMS: Readonly<Record<string, string>> = {
  ABORTED: 'aborted',
  BLOCKED_BY_CLIENT: 'blocked',
  CONNECTION_REFUSED: 'refused',
  CONNECTION_RESET: 'reset',
  CONNECTION_CLOSED: 'closed',
  CONNECTION_ABORTED: 'dropped',
  CONNECTION_TIMED_OUT: 'timeout',
  TIMED_OUT: 'timeout',
  NAME_NOT_RESOLVED: 'no-dns',
  ADDRESS_UNREACHABLE: 'unreach',
  EMPTY_RESPONSE: 'empty',
  INVALID_HTTP_RESPONSE: 'bad-http',
  INVALID_CHUNKED_ENCODING: 'chunking',
  CONTENT_LENGTH_MISMATCH: 'bad-len',
  RESPONSE_HEADERS_TOO_BIG: 'hdrs-big',
  TOO_MANY_REDIRECTS: 'loop',
  TUNNEL_CONNECTION_FAILED: 'tunnel',
  FAILED: 'failed',
};

/** The status cell's text for an error: the whole name when it fits, else a short form, never a cut word. */
export function errorLabel(error: string, width: number): string {
  const name = error.replace(/^net::ERR_/, '');
  if (name.length <= width) return name;
  const short = ERROR_SHORT_FORMS[name] ?? (/^(CERT|SSL|BAD_SSL)_/.test(name) ? (name.startsWith('CERT') ? 'cert' : 'tls') : 'error');
  return short.length <= width ? short : 'ERR';
}

function statusCell(record: RequestRecord, width: number): [string, number, Omit<Segment, 'text'>] {
  if (record.error) return [errorLabel(record.error, width), width, { color: 'red', bold: true }];
  if (record.statusCode !== undefined) return [String(record.statusCode), width, { color: statusColor(record.statusCode) }];
  return ['…', width, { dim: true }];
}

/** What rules did, most important first: failed, cancelled, redirected, auth, headers, dry-run. */
export function ruleMarks(record: RequestRecord): Segment[] {
  const marks: Segment[] = [];
  const verdicts = record.verdicts;
  if (record.pausedAt) marks.push({ text: 'PAUSED', color: 'yellow', bold: true });
  if (record.replayDiff) {
    // A re-run not yet at this request: the last run's verdict, said as such.
    if (record.replayStale) marks.push({ text: record.replayDiff.identical ? '…same' : '…CHANGED', dim: true });
    else marks.push(record.replayDiff.identical ? { text: 'same', dim: true } : { text: 'CHANGED', color: 'magenta', bold: true });
  }
  if (verdicts.has('failed')) marks.push({ text: 'FAIL', color: 'red', bold: true });
  // A request wrtui resent (r / e): R selects the request it resent.
  if (record.resentFrom) marks.push({ text: 'resent', color: 'blue' });
  if (verdicts.has('cancelled')) marks.push({ text: 'cancel', color: 'red' });
  if (verdicts.has('redirected')) marks.push({ text: 'redir', color: 'magenta' });
  if (verdicts.has('auth')) marks.push({ text: 'auth', color: 'blue' });
  if (verdicts.has('request-headers') || verdicts.has('response-headers')) marks.push({ text: 'hdrs', color: 'cyan' });
  if (verdicts.has('dry-run')) {
    const kinds = dryRunKinds(record);
    for (const kind of kinds.length > 0 ? kinds : ['dry-run']) marks.push({ text: `~${kind}`, color: 'yellow' });
  }
  if (verdicts.has('ignored')) marks.push({ text: 'ignored', dim: true });
  if (record.redirectNotFollowed) marks.push({ text: 'unfollowed', dim: true });
  if (record.fromCache) marks.push({ text: 'cached', color: 'blue', dim: true });
  // An extension's own request (its fetch), not a client's: by:NAME filters them.
  if (record.madeBy) marks.push({ text: 'ext', color: 'magenta', dim: true });
  // Under `wrtui browser`: the browser did not describe it, so its type, frame and tab are guesses.
  if (record.inferred) marks.push({ text: 'guess', color: 'yellow', dim: true });
  return marks;
}

/** The marks that fit, then "+N" for those that did not: a mark is never dropped silently. */
function marksCell(record: RequestRecord, width: number): Segment[] {
  const marks = ruleMarks(record);
  const out: Segment[] = [];
  let used = 0;
  for (let index = 0; index < marks.length; index++) {
    const mark = marks[index]!;
    const text = used === 0 ? mark.text : ` ${mark.text}`;
    const left = marks.length - index - 1;
    const room = left > 0 ? width - ` +${left}`.length : width;
    if (used + text.length > room) {
      const overflow = `${used === 0 ? '' : ' '}+${marks.length - index}`;
      out.push({ text: overflow.slice(0, width - used), dim: true });
      used += Math.min(overflow.length, width - used);
      break;
    }
    out.push({ ...mark, text });
    used += text.length;
  }
  if (used < width) out.push({ text: ' '.repeat(width - used) });
  return out;
}
