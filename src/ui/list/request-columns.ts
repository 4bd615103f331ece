// The request list's columns, sized to the terminal, and one request as a row of them:
// time, method, status or error, type, host and path, size, duration, and what rules did.
//
// Rows are plain ASCII, cells cut without an ellipsis: the list is what Ink redraws most, and
// its width measuring (string-width) takes a fast path only for ASCII; a "…" in most rows made
// every frame a quarter slower. The detail pane shows everything in full.
import { formatBytes, formatClock, formatDuration, printable, shortError } from '../format.js';
import type { Segment, StyledLine } from '../detail/styled-line.js';
import { statusColor } from '../detail/response-lines.js';
import { dryRunKinds, type RequestRecord } from '../store/request-record.js';

export interface RequestColumns {
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

export function requestColumns(width: number): RequestColumns {
  const wide = width >= 120;
  const columns = {
    time: wide ? 12 : 8,
    method: 7,
    status: wide ? 14 : 3,
    type: wide ? 10 : 5,
    size: 7,
    duration: 7,
    marks: wide ? 16 : 10,
    millis: wide,
    longTypes: wide,
  };
  const fixed = columns.time + columns.method + columns.status + columns.type + columns.size + columns.duration + columns.marks;
  const gaps = 7 * GAP + MARKER_WIDTH;
  return { ...columns, url: Math.max(10, width - fixed - gaps) };
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
  const text = [
    ' '.repeat(MARKER_WIDTH - GAP),
    cell('time', columns.time),
    cell('method', columns.method),
    cell(columns.status >= 6 ? 'status' : 'st', columns.status),
    cell('type', columns.type),
    cell('host and path', columns.url),
    cell('size', columns.size, 'right'),
    cell('time', columns.duration, 'right'),
    cell('rules', columns.marks),
  ].join(' ');
  return [{ text, bold: true, dim: true }];
}

/** One request's row; a request still waiting shows how long it has waited so far (at `now`). */
export function requestRow(record: RequestRecord, columns: RequestColumns, now?: number): StyledLine {
  const cells: Segment[] = [];
  const push = (text: string, width: number, style: Omit<Segment, 'text'> = {}, align: 'left' | 'right' = 'left') => {
    const cut = printable(text).slice(0, width);
    cells.push({ ...style, text: align === 'left' ? cut.padEnd(width) : cut.padStart(width) });
    cells.push({ text: ' '.repeat(GAP) });
  };
  cells.push({ text: ' '.repeat(MARKER_WIDTH) });
  push(formatClock(record.startedAt, columns.millis), columns.time, { dim: true });
  push(record.method, columns.method, { bold: true });
  push(...statusCell(record, columns.status));
  push(columns.longTypes ? record.type : (SHORT_TYPES[record.type] ?? record.type), columns.type, { dim: true });
  push(`${record.host}${record.path}`, columns.url);
  push(formatBytes(record.responseSize), columns.size, {}, 'right');
  if (record.endedAt !== undefined) push(formatDuration(record.endedAt - record.startedAt), columns.duration, {}, 'right');
  else if (now !== undefined && now - record.startedAt >= 1000) push(`${formatDuration(now - record.startedAt)}…`, columns.duration, { color: 'yellow' }, 'right');
  else push('', columns.duration, {}, 'right');
  cells.push(...marksCell(record, columns.marks));
  return cells;
}

function statusCell(record: RequestRecord, width: number): [string, number, Omit<Segment, 'text'>] {
  if (record.error) return [width >= 6 ? shortError(record.error) : 'ERR', width, { color: 'red', bold: true }];
  if (record.statusCode !== undefined) return [String(record.statusCode), width, { color: statusColor(record.statusCode) }];
  return ['…', width, { dim: true }];
}

/** What rules did, most important first: failed, cancelled, redirected, auth, headers, dry-run. */
export function ruleMarks(record: RequestRecord): Segment[] {
  const marks: Segment[] = [];
  const verdicts = record.verdicts;
  if (verdicts.has('failed')) marks.push({ text: 'FAIL', color: 'red', bold: true });
  if (verdicts.has('cancelled')) marks.push({ text: 'cancel', color: 'red' });
  if (verdicts.has('redirected')) marks.push({ text: 'redir', color: 'magenta' });
  if (verdicts.has('auth')) marks.push({ text: 'auth', color: 'blue' });
  if (verdicts.has('request-headers') || verdicts.has('response-headers')) marks.push({ text: 'hdrs', color: 'cyan' });
  if (verdicts.has('dry-run')) {
    const kinds = dryRunKinds(record);
    for (const kind of kinds.length > 0 ? kinds : ['dry-run']) marks.push({ text: `~${kind}`, color: 'yellow' });
  }
  if (marks.length === 0 && verdicts.has('ignored')) marks.push({ text: 'ignored', dim: true });
  return marks;
}

function marksCell(record: RequestRecord, width: number): Segment[] {
  const out: Segment[] = [];
  let used = 0;
  for (const mark of ruleMarks(record)) {
    const text = used === 0 ? mark.text : ` ${mark.text}`;
    if (used + text.length > width) {
      if (used < width) out.push({ ...mark, text: text.slice(0, width - used) });
      return out;
    }
    out.push({ ...mark, text });
    used += text.length;
  }
  if (used < width) out.push({ text: ' '.repeat(width - used) });
  return out;
}
