// Renders a terminal screen as `tmux capture-pane -e -p` prints it (text with SGR escape
// sequences: colours, bold, inverse, …) to an SVG image, so that the README's picture of the TUI
// is made from the real program and can be regenerated (scripts/screenshot.ts).
// One cell per character; each run of cells with the same style is one <text> whose width is
// pinned (textLength), so columns stay aligned whatever monospace font the viewer substitutes.

const CELL_WIDTH = 8.4;
const LINE_HEIGHT = 17;
const FONT_SIZE = 14;
const PADDING = 12;
const DEFAULT_FG = '#d0d0d0';
const DEFAULT_BG = '#1c1c1c';

/** xterm's 16 colours (the "Tango"-like defaults most terminals ship). */
const BASE_COLOURS = [
  '#2e3436', '#cc0000', '#4e9a06', '#c4a000', '#3465a4', '#75507b', '#06989a', '#d3d7cf',
  '#555753', '#ef2929', '#8ae234', '#fce94f', '#729fcf', '#ad7fa8', '#34e2e2', '#eeeeec',
];

/** The 256-colour palette's entry `index`. */
export function paletteColour(index: number): string {
  if (index < 16) return BASE_COLOURS[index] ?? DEFAULT_FG;
  if (index < 232) {
    const n = index - 16;
    const level = (v: number) => (v === 0 ? 0 : 55 + v * 40);
    return hex(level(Math.floor(n / 36)), level(Math.floor(n / 6) % 6), level(n % 6));
  }
  const grey = 8 + (index - 232) * 10;
  return hex(grey, grey, grey);
}

function hex(r: number, g: number, b: number): string {
  return `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

export interface CellStyle {
  fg: string | undefined;
  bg: string | undefined;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  inverse: boolean;
}

export interface Cell {
  char: string;
  style: CellStyle;
}

const PLAIN: Readonly<CellStyle> = Object.freeze({ fg: undefined, bg: undefined, bold: false, dim: false, italic: false, underline: false, inverse: false });

/** Applies one SGR sequence's parameters (`1;38;5;208`) to a style; returns the new style. */
export function applySgr(style: CellStyle, parameters: string): CellStyle {
  const codes = parameters === '' ? [0] : parameters.split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)));
  let next: CellStyle = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i] ?? 0;
    if (code === 0) next = { ...PLAIN };
    else if (code === 1) next.bold = true;
    else if (code === 2) next.dim = true;
    else if (code === 3) next.italic = true;
    else if (code === 4) next.underline = true;
    else if (code === 7) next.inverse = true;
    else if (code === 22) next = { ...next, bold: false, dim: false };
    else if (code === 23) next.italic = false;
    else if (code === 24) next.underline = false;
    else if (code === 27) next.inverse = false;
    else if (code >= 30 && code <= 37) next.fg = BASE_COLOURS[code - 30] ?? DEFAULT_FG;
    else if (code >= 90 && code <= 97) next.fg = BASE_COLOURS[code - 90 + 8] ?? DEFAULT_FG;
    else if (code === 39) next.fg = undefined;
    else if (code >= 40 && code <= 47) next.bg = BASE_COLOURS[code - 40] ?? DEFAULT_BG;
    else if (code >= 100 && code <= 107) next.bg = BASE_COLOURS[code - 100 + 8] ?? DEFAULT_BG;
    else if (code === 49) next.bg = undefined;
    else if (code === 38 || code === 48) {
      const key: 'fg' | 'bg' = code === 38 ? 'fg' : 'bg';
      if (codes[i + 1] === 5) {
        next[key] = paletteColour(codes[i + 2] ?? 0);
        i += 2;
      } else if (codes[i + 1] === 2) {
        next[key] = hex(codes[i + 2] ?? 0, codes[i + 3] ?? 0, codes[i + 4] ?? 0);
        i += 4;
      }
    }
  }
  return next;
}

/**
 * The screen as rows of cells `{ char, style }`: SGR sequences styled, any other escape sequence
 * (a cursor move tmux might leave in) skipped.
 */
export function parseAnsiScreen(text: string): Cell[][] {
  const rows: Cell[][] = [];
  for (const rawLine of text.replace(/\n$/, '').split('\n')) {
    const cells: Cell[] = [];
    let style: CellStyle = { ...PLAIN };
    for (let i = 0; i < rawLine.length; ) {
      if (rawLine[i] === '\x1b') {
        const sgr = /^\x1b\[([0-9;:]*)m/.exec(rawLine.slice(i));
        if (sgr) {
          style = applySgr(style, sgr[1] ?? '');
          i += sgr[0].length;
          continue;
        }
        const other = /^\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|.)/.exec(rawLine.slice(i));
        i += other ? other[0].length : 1;
        continue;
      }
      const char = String.fromCodePoint(rawLine.codePointAt(i) ?? 0x20);
      i += char.length;
      if (char === '\r') continue;
      cells.push({ char, style });
    }
    rows.push(cells);
  }
  return rows;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The colours a cell is drawn with, inverse and dim applied. */
function coloursOf(style: CellStyle): { fg: string; bg: string | undefined; opacity: number } {
  let fg = style.fg ?? DEFAULT_FG;
  let bg = style.bg;
  if (style.inverse) [fg, bg] = [bg ?? DEFAULT_BG, fg];
  return { fg, bg, opacity: style.dim ? 0.6 : 1 };
}

const sameStyle = (a: CellStyle, b: CellStyle): boolean =>
  a.fg === b.fg && a.bg === b.bg && a.bold === b.bold && a.dim === b.dim && a.italic === b.italic && a.underline === b.underline && a.inverse === b.inverse;

/** An SVG image of `text` (capture-pane -e output), `columns` × `rows` cells. */
export function ansiToSvg(text: string, { columns, rows: rowCount, title = 'wrtui' }: { columns?: number; rows?: number; title?: string } = {}): string {
  const screen = parseAnsiScreen(text);
  const width = columns ?? Math.max(1, ...screen.map((row) => row.length));
  const height = rowCount ?? screen.length;
  const backgrounds: string[] = [];
  const texts: string[] = [];
  screen.slice(0, height).forEach((cells, rowIndex) => {
    const y = PADDING + rowIndex * LINE_HEIGHT;
    let start = 0;
    while (start < cells.length && start < width) {
      const style = (cells[start] as Cell).style;
      let end = start + 1;
      while (end < cells.length && end < width && sameStyle((cells[end] as Cell).style, style)) end++;
      const { fg, bg, opacity } = coloursOf(style);
      const x = PADDING + start * CELL_WIDTH;
      const runWidth = (end - start) * CELL_WIDTH;
      if (bg) backgrounds.push(`<rect x="${x.toFixed(1)}" y="${y}" width="${runWidth.toFixed(1)}" height="${LINE_HEIGHT}" fill="${bg}"/>`);
      const content = cells.slice(start, end).map((cell) => cell.char).join('');
      if (content.trim() !== '') {
        // Spaces at a run's ends are left out (its x and width say where it is); those inside
        // become no-break spaces, which no SVG renderer collapses.
        const lead = content.length - content.trimStart().length;
        const shown = content.trim();
        const attributes = [
          `x="${(x + lead * CELL_WIDTH).toFixed(1)}"`,
          `y="${y + LINE_HEIGHT - 4}"`,
          `textLength="${([...shown].length * CELL_WIDTH).toFixed(1)}"`,
          'lengthAdjust="spacingAndGlyphs"',
          fg !== DEFAULT_FG && `fill="${fg}"`,
          style.bold && 'font-weight="bold"',
          style.italic && 'font-style="italic"',
          style.underline && 'text-decoration="underline"',
          opacity !== 1 && `fill-opacity="${opacity}"`,
        ].filter(Boolean);
        texts.push(`<text ${attributes.join(' ')}>${escapeXml(shown.replace(/ /g, '\u00a0'))}</text>`);
      }
      start = end;
    }
  });
  const pixelWidth = (PADDING * 2 + width * CELL_WIDTH).toFixed(1);
  const pixelHeight = PADDING * 2 + height * LINE_HEIGHT;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${pixelWidth}" height="${pixelHeight}" viewBox="0 0 ${pixelWidth} ${pixelHeight}" role="img" aria-label="${escapeXml(title)}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="100%" height="100%" rx="6" fill="${DEFAULT_BG}"/>`,
    ...backgrounds,
    `<g font-family="'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace" font-size="${FONT_SIZE}" fill="${DEFAULT_FG}">`,
    ...texts,
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}
