// The README's picture is a tmux capture rendered to SVG (scripts/ansi-to-svg.ts): what the
// terminal showed must survive, colours, inverse and columns included.
import { describe, expect, it } from 'vitest';
import { ansiToSvg, paletteColour, parseAnsiScreen } from '../../scripts/ansi-to-svg.js';

const ESC = '\x1b';

/** The <text> elements of an SVG as { x, fill, text }. */
function texts(svg: string) {
  return [...svg.matchAll(/<text ([^>]*)>([^<]*)<\/text>/g)].map((match) => ({
    x: Number(/x="([\d.]+)"/.exec(match[1] as string)?.[1]),
    fill: /fill="([^"]+)"/.exec(match[1] as string)?.[1],
    bold: (match[1] as string).includes('font-weight="bold"'),
    text: (match[2] as string).replace(/\u00a0/g, ' '),
  }));
}

describe('a tmux capture rendered to SVG', () => {
  it('keeps the colours: 16, 256 and true colour, bold', () => {
    const svg = ansiToSvg(`${ESC}[32mGET${ESC}[0m ${ESC}[38;5;208m404${ESC}[39m ${ESC}[1;38;2;1;2;3mx${ESC}[0m\n`, { columns: 10, rows: 1 });
    expect(texts(svg)).toEqual([
      { x: expect.any(Number), fill: '#4e9a06', bold: false, text: 'GET' },
      { x: expect.any(Number), fill: paletteColour(208), bold: false, text: '404' },
      { x: expect.any(Number), fill: '#010203', bold: true, text: 'x' },
    ]);
    expect(paletteColour(208)).toBe('#ff8700');
    expect(paletteColour(244)).toBe('#808080');
  });

  it('draws inverse as a coloured background behind dark text', () => {
    const svg = ansiToSvg(`${ESC}[7;32m LIVE ${ESC}[0m\n`, { columns: 8, rows: 1 });
    expect(svg).toMatch(/<rect x="[\d.]+" y="\d+" width="[\d.]+" height="\d+" fill="#4e9a06"\/>/);
    expect(texts(svg)).toEqual([{ x: expect.any(Number), fill: '#1c1c1c', bold: false, text: 'LIVE' }]);
  });

  it('puts every run at its column, spaces inside a run kept, whatever came before on the line', () => {
    const [plain, styled] = texts(ansiToSvg(`a  b${ESC}[31m   c d${ESC}[0m\n`, { columns: 12, rows: 1 }));
    expect(plain?.text).toBe('a  b');
    expect(styled?.text).toBe('c d');
    const cell = ((styled?.x ?? 0) - (plain?.x ?? 0)) / 7; // "c" is in column 7, "a" in column 0
    expect(cell).toBeCloseTo(8.4, 5);
  });

  it('skips escape sequences that are not colours and escapes markup', () => {
    const rows = parseAnsiScreen(`${ESC}[?25l<b>&${ESC}]0;title\x07!\n`);
    expect(rows[0]?.map((cell) => cell.char).join('')).toBe('<b>&!');
    expect(ansiToSvg('<b>&\n')).toContain('&lt;b&gt;&amp;');
  });

  it('is as large as the terminal it was taken from', () => {
    const svg = ansiToSvg('x\n', { columns: 120, rows: 32 });
    expect(svg).toMatch(/width="1032.0" height="568"/);
  });
});
