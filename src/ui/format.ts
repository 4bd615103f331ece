// Small text helpers for fixed-width terminal columns. Everything the screen shows goes through
// fit() so that no line is ever wider than its column (a wrapped line would push the frame past
// the terminal's height, and Ink would then redraw the whole screen every frame).

/** Cuts or pads `text` to exactly `width` columns (an ellipsis marks a cut). */
export function fit(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  if (width <= 0) return '';
  const clean = printable(text);
  if (clean.length > width) return width === 1 ? '…' : `${clean.slice(0, width - 1)}…`;
  return align === 'left' ? clean.padEnd(width) : clean.padStart(width);
}

/** Cuts `text` to at most `width` columns, no padding. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  const clean = printable(text);
  return clean.length > width ? (width === 1 ? '…' : `${clean.slice(0, width - 1)}…`) : clean;
}

/**
 * Control characters (a header value or a body could hold escape sequences) shown as visible
 * symbols, and characters of uncertain width replaced, so that the string's length is its width.
 */
export function printable(text: string): string {
  // Fast path: plain ASCII and Latin-1 letters, the usual case.
  if (!/[^\x20-\x7e\xa0-\xff]/.test(text)) return text;
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code === 0x09) out += ' ';
    else if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)) out += '·';
    else if (isNarrow(code)) out += char;
    else out += '?';
  }
  return out;
}

// Box drawing, arrows, bullets, general punctuation and Latin/Greek/Cyrillic are one column in
// every terminal; wide (CJK, emoji) and zero-width characters would break column math.
function isNarrow(code: number): boolean {
  return (
    (code >= 0x20 && code < 0x300) ||
    (code >= 0x370 && code < 0x530) ||
    (code >= 0x2000 && code < 0x2070 && code !== 0x200b && code !== 0x200c && code !== 0x200d) ||
    (code >= 0x2190 && code < 0x2200) ||
    (code >= 0x2500 && code < 0x2600)
  );
}

export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return '';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} kB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GB`;
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 1) return '<1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;
}

/** Local wall-clock time HH:MM:SS (with .mmm when asked). */
export function formatClock(epochMs: number, withMillis = false): string {
  const date = new Date(epochMs);
  const two = (n: number) => String(n).padStart(2, '0');
  const base = `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
  return withMillis ? `${base}.${String(date.getMilliseconds()).padStart(3, '0')}` : base;
}

/** "in 9m12s", "in 45s", "now" — how long until an epoch time. */
export { countdown as formatCountdown } from '../engine/web-request/quota-description.js';

/** "net::ERR_BLOCKED_BY_CLIENT" → "BLOCKED_BY_CLIENT". */
export function shortError(error: string): string {
  return error.replace(/^net::ERR_/, '');
}

/** Splits text into lines of at most `width` columns (hard wrap, for the detail pane). */
export function wrapLine(text: string, width: number): string[] {
  const clean = printable(text);
  if (width <= 0) return [''];
  if (clean.length <= width) return [clean];
  const lines: string[] = [];
  for (let index = 0; index < clean.length; index += width) lines.push(clean.slice(index, index + width));
  return lines;
}

/** "1 line", "2 lines": a count with its noun, singular for one. */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : pluralNoun}`;
}

export { shortPath } from '../engine/path-text.js';
