// Lines of styled text: what the detail pane, the help screen and the rules view build, and one
// component (LinesView) draws a window of. Building lines as data keeps scrolling exact (a line
// is one terminal row) and lets tests read them without a terminal.
import { printable } from '../format.js';

export interface Segment {
  text: string;
  color?: string;
  bold?: boolean;
  dim?: boolean;
  inverse?: boolean;
}

export type StyledLine = Segment[];

export function line(...segments: (Segment | string | false | undefined)[]): StyledLine {
  return segments.filter((segment): segment is Segment | string => Boolean(segment)).map((segment) => (typeof segment === 'string' ? { text: segment } : segment));
}

export const blank: StyledLine = [];

export function heading(text: string): StyledLine {
  return [{ text, bold: true, color: 'cyan' }];
}

export function lineText(styled: StyledLine): string {
  return styled.map((segment) => segment.text).join('');
}

/** Hard-wraps each line to `width` columns, keeping styles; continuation lines are indented by `indent`. */
export function wrapLines(lines: readonly StyledLine[], width: number, indent = 2): StyledLine[] {
  const out: StyledLine[] = [];
  const room = Math.max(1, width);
  for (const styled of lines) {
    let current: StyledLine = [];
    let used = 0;
    for (const segment of styled) {
      let text = printable(segment.text);
      while (text.length > 0) {
        const space = room - used;
        if (space <= 0) {
          out.push(current);
          current = indent > 0 && indent < room ? [{ text: ' '.repeat(indent) }] : [];
          used = indent > 0 && indent < room ? indent : 0;
          continue;
        }
        const piece = text.slice(0, space);
        current.push({ ...segment, text: piece });
        used += piece.length;
        text = text.slice(piece.length);
      }
    }
    out.push(current);
  }
  return out;
}
