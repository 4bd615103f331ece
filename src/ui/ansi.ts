// Styled lines to ANSI strings. A whole row is one Ink <Text> holding one string with SGR codes:
// far fewer nodes for Ink to lay out than one <Text color> per cell, which is what lets the
// screen redraw 30 times a second while thousands of requests a second arrive.
import { fit } from './format.js';
import type { Segment, StyledLine } from './detail/styled-line.js';

const COLORS: Readonly<Record<string, number>> = {
  black: 30,
  red: 31,
  green: 32,
  yellow: 33,
  blue: 34,
  magenta: 35,
  cyan: 36,
  white: 37,
  gray: 90,
  grey: 90,
};

/** NO_COLOR (no-color.org) turns colours off; bold, dim and inverse stay (they are not colour). */
const useColor = !('NO_COLOR' in process.env && process.env.NO_COLOR !== '');

function sgr(segment: Segment): string {
  const codes: number[] = [];
  if (segment.bold) codes.push(1);
  if (segment.dim) codes.push(2);
  if (segment.inverse) codes.push(7);
  if (useColor && segment.color && COLORS[segment.color] !== undefined) codes.push(COLORS[segment.color]!);
  return codes.length > 0 ? `\x1b[${codes.join(';')}m` : '';
}

/**
 * The line as an ANSI string at most `width` columns wide, cut with an ellipsis, so the frame's
 * geometry never depends on what the text holds. `base` styles the whole line (the selected
 * row's inverse video), padded to the full width. Otherwise trailing blanks are left out: Ink
 * turns every character of a frame into an object, and invisible ones cost as much as the rest.
 */
export function renderLine(styled: StyledLine, width: number, base?: Omit<Segment, 'text'>): string {
  let out = '';
  let used = 0;
  for (const segment of styled) {
    if (used >= width) break;
    const room = width - used;
    const text = segment.text.length > room ? fit(segment.text, room) : fit(segment.text, segment.text.length);
    if (text.length === 0) continue;
    const style = sgr({ ...base, ...segment, inverse: Boolean(base?.inverse) !== Boolean(segment.inverse) });
    out += style ? `${style}${text}\x1b[0m` : text;
    used += text.length;
  }
  if (base && used < width) {
    const style = sgr({ ...base, text: '' });
    out += style ? `${style}${' '.repeat(width - used)}\x1b[0m` : ' '.repeat(width - used);
  }
  return base ? out : out.replace(/ +$/, '');
}

/** Removes SGR sequences (tests, width checks). */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}
