// Searching the open tab of the detail pane: every line that contains the term (case-insensitive)
// with the term highlighted, and the line numbers to step through with n and N. Lines are
// searched as drawn; bodyMatchCount counts in the whole decoded body (the pane shows at most
// MAX_PREVIEW_LINES of it), so a user knows when there is more than the screen holds.
import { searchableText } from './body-preview.js';
import { lineText, type Segment, type StyledLine } from './styled-line.js';

export interface SearchResult {
  lines: StyledLine[];
  /** Indexes of the lines with a match, in order. */
  matches: number[];
}

export function searchLines(lines: readonly StyledLine[], term: string): SearchResult {
  const needle = term.toLowerCase();
  if (needle === '') return { lines: [...lines], matches: [] };
  const matches: number[] = [];
  const out = lines.map((styled, index) => {
    const text = lineText(styled).toLowerCase();
    if (!text.includes(needle)) return styled;
    matches.push(index);
    return highlight(styled, text, needle);
  });
  return { lines: out, matches };
}

/** The line's segments split so that every occurrence of `needle` is its own inverse segment. */
function highlight(styled: StyledLine, lower: string, needle: string): StyledLine {
  const ranges: [number, number][] = [];
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, at + needle.length)) ranges.push([at, at + needle.length]);
  const out: Segment[] = [];
  let offset = 0;
  for (const segment of styled) {
    const end = offset + segment.text.length;
    let cursor = offset;
    for (const [from, to] of ranges) {
      if (to <= cursor || from >= end) continue;
      const start = Math.max(from, cursor);
      if (start > cursor) out.push({ ...segment, text: segment.text.slice(cursor - offset, start - offset) });
      const stop = Math.min(to, end);
      out.push({ ...segment, text: segment.text.slice(start - offset, stop - offset), inverse: true, bold: true, color: 'yellow' });
      cursor = stop;
    }
    if (cursor < end) out.push({ ...segment, text: segment.text.slice(cursor - offset) });
    offset = end;
  }
  return out;
}

/** Occurrences of `term` in a whole body, decoded (case-insensitive); undefined when binary. */
export function bodyMatchCount(bytes: Uint8Array | undefined, contentEncoding: string | undefined, term: string): number | undefined {
  return bodySearch(bytes, contentEncoding, term)?.count;
}

/** Context shown around each match of the whole body, and how many matches get one. */
const EXCERPT_CONTEXT = 40;
const MAX_EXCERPTS = 50;

/**
 * The whole body searched: how many matches, and for the first ones their line number and a
 * line of context, so a hit far past what the pane draws (a 5 MB body) can be read too.
 */
export function bodySearch(bytes: Uint8Array | undefined, contentEncoding: string | undefined, term: string): { count: number; excerpts: { line: number; text: string }[] } | undefined {
  if (!bytes || bytes.length === 0 || term === '') return undefined;
  const original = searchableText(bytes, contentEncoding, 64 * 1024 * 1024);
  if (original === undefined) return undefined;
  const text = original.toLowerCase();
  const needle = term.toLowerCase();
  let count = 0;
  let line = 1;
  let lineCounted = 0;
  const excerpts: { line: number; text: string }[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    count++;
    if (excerpts.length >= MAX_EXCERPTS) continue;
    for (let index = text.indexOf('\n', lineCounted); index !== -1 && index < at; index = text.indexOf('\n', index + 1)) {
      line++;
      lineCounted = index + 1;
    }
    const from = Math.max(0, at - EXCERPT_CONTEXT);
    const to = Math.min(original.length, at + needle.length + EXCERPT_CONTEXT);
    excerpts.push({ line, text: `${from > 0 ? '…' : ''}${original.slice(from, to).replace(/\s+/g, ' ')}${to < original.length ? '…' : ''}` });
  }
  return { count, excerpts };
}
