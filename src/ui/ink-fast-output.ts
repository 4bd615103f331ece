// Ink composes every frame in an `Output`: each written line becomes one object per character
// (via @alcalzone/ansi-tokenize), and each screen row is turned back into a string by comparing
// every character's styles with its neighbour's. At 120×40 with the list scrolling under load,
// that was most of a frame (15 of 20 ms; measured with bench/tui/frame-cost.tsx), while React's
// share was small. Three changes, each leaving Ink's output byte for byte the same:
//   1. its per-frame caches (a line's styled characters, a string's width) outlive the frame, so
//      a row that only moved up the screen is not tokenized again;
//   2. characters of a line that share a style share one styles array, and blank cells are one
//      shared object, so a row turns back into a string by comparing references, not style sets;
//   3. a line of printable ASCII and SGR codes (every row wrtui draws) is split without the
//      tokenizer's grapheme segmentation, which cost ~1 µs a character; anything else goes
//      through the tokenizer as before;
//   4. single-column characters skip the width lookup.
// Output is not exported by Ink, so this checks the shape it relies on and changes nothing when
// a future Ink differs (frames are then as slow as before, never wrong). test/ui/ink-fast-output
// renders real screens both ways and requires identical bytes.
import { ansiCodesToString, diffAnsiCodes, reduceAnsiCodesIncremental, tokenize, type AnsiCode, type StyledChar } from '@alcalzone/ansi-tokenize';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import sliceAnsi from 'slice-ansi';

/** Lines (and string widths) kept across frames: a few screens of the tallest terminals (~120 KB a line of styled characters). */
const MAX_CACHED = 1024;

type Transformer = (line: string, index: number) => string;
type Clip = { x1?: number; x2?: number; y1?: number; y2?: number };
type Operation = { type: 'write'; x: number; y: number; text: string; transformers: Transformer[] } | { type: 'clip'; clip: Clip } | { type: 'unclip' };

interface OutputCaches {
  getStyledChars(line: string): StyledChar[];
  getStringWidth(text: string): number;
  getWidestLine(text: string): number;
}

interface OutputInstance {
  width: number;
  height: number;
  operations: Operation[];
  caches: OutputCaches;
}

type Get = (this: OutputInstance) => { output: string; height: number };

export interface InkOutputPatch {
  /** Ink's own composition, and caches with Ink's own methods, kept for the test that compares the two. */
  inkGet: Get;
  inkCaches(): OutputCaches;
  fastGet: Get;
  prototype: { get: Get };
  /** Switches between Ink's own composition and this one (the benchmark compares them in one run). */
  use(composition: 'ink' | 'fast'): void;
}

let installing: Promise<InkOutputPatch | undefined> | undefined;

/** Installs the faster composition; resolves to undefined when Ink's shape was not the expected one. */
export function installFastInkOutput(): Promise<InkOutputPatch | undefined> {
  installing ??= install().catch(() => undefined);
  return installing;
}

async function install(): Promise<InkOutputPatch | undefined> {
  const inkEntry = createRequire(import.meta.url).resolve('ink');
  const module = (await import(pathToFileURL(join(dirname(inkEntry), 'output.js')).href)) as { default?: unknown };
  const Output = module.default as (new (options: { width: number; height: number }) => OutputInstance) | undefined;
  if (typeof Output !== 'function') return undefined;
  const sample = new Output({ width: 1, height: 1 });
  const prototype = Output.prototype as unknown as { get: Get };
  const caches = Object.getPrototypeOf(sample.caches ?? {}) as Partial<OutputCaches>;
  const shapeAsExpected =
    Array.isArray(sample.operations) &&
    typeof prototype.get === 'function' &&
    typeof caches.getStyledChars === 'function' &&
    typeof caches.getStringWidth === 'function' &&
    typeof caches.getWidestLine === 'function';
  if (!shapeAsExpected) return undefined;
  const styledChars = caches.getStyledChars!;
  const stringWidth = caches.getStringWidth!;
  const widestLine = caches.getWidestLine!;
  const inkCaches = (): OutputCaches =>
    Object.assign(Object.create(null) as object, { widths: new Map(), blockWidths: new Map(), styledChars: new Map(), getStyledChars: styledChars, getStringWidth: stringWidth, getWidestLine: widestLine });
  const fast = {
    getStyledChars: keptAcrossFrames(function (this: OutputCaches, line: string) {
      return asciiStyledChars(line) ?? shareStyles(styledChars.call(this, line));
    }),
    getStringWidth: keptAcrossFrames(stringWidth),
  };
  const inkGet = prototype.get;
  const use = (composition: 'ink' | 'fast'): void => {
    prototype.get = composition === 'fast' ? fastGet : inkGet;
    caches.getStyledChars = composition === 'fast' ? fast.getStyledChars : styledChars;
    caches.getStringWidth = composition === 'fast' ? fast.getStringWidth : stringWidth;
  };
  use('fast');
  return { inkGet, inkCaches, fastGet, prototype, use };
}

function keptAcrossFrames<Value>(compute: (this: OutputCaches, key: string) => Value): (this: OutputCaches, key: string) => Value {
  const cache = new Map<string, Value>();
  return function cached(this: OutputCaches, key: string): Value {
    let value = cache.get(key);
    if (value === undefined) {
      value = compute.call(this, key);
      if (cache.size >= MAX_CACHED) {
        // Drop the oldest half (a Map iterates in insertion order).
        let drop = MAX_CACHED / 2;
        for (const old of cache.keys()) {
          cache.delete(old);
          if (--drop === 0) break;
        }
      }
      cache.set(key, value);
    }
    return value;
  };
}

const NO_STYLES: AnsiCode[] = [];
const BLANK: StyledChar = Object.freeze({ type: 'char', value: ' ', fullWidth: false, styles: NO_STYLES }) as StyledChar;

/** Neighbours with the same styles get the same array (the characters are ours: fresh from the tokenizer). */
function shareStyles(characters: StyledChar[]): StyledChar[] {
  let previous: AnsiCode[] = NO_STYLES;
  for (const character of characters) {
    if (character.styles.length === 0) character.styles = NO_STYLES;
    else if (sameCodes(previous, character.styles)) character.styles = previous;
    previous = character.styles;
  }
  return characters;
}

const SGR = /\x1b\[[0-9;]*m/y;
const sgrTokens = new Map<string, AnsiCode[]>();

/**
 * The tokenizer's answer for a line holding only printable ASCII and SGR sequences, or undefined
 * for any other line. Each SGR sequence still goes through the tokenizer and its style reducer
 * (so compound codes and resets mean exactly what they mean to Ink); only the characters between
 * them are made here, one object each, sharing their styles array.
 */
export function asciiStyledChars(line: string): StyledChar[] | undefined {
  const characters: StyledChar[] = [];
  let styles: AnsiCode[] = NO_STYLES;
  for (let index = 0; index < line.length; ) {
    const code = line.charCodeAt(index);
    if (code === 0x1b) {
      SGR.lastIndex = index;
      const sequence = SGR.exec(line)?.[0];
      if (sequence === undefined) return undefined;
      let tokens = sgrTokens.get(sequence);
      if (tokens === undefined) {
        tokens = tokenize(sequence) as AnsiCode[];
        if (tokens.some((token) => token.type !== 'ansi')) return undefined;
        if (sgrTokens.size < 1024) sgrTokens.set(sequence, tokens);
      }
      const reduced = reduceAnsiCodesIncremental(styles, tokens);
      if (reduced.length === 0) styles = NO_STYLES;
      else if (!sameCodes(styles, reduced)) styles = reduced;
      index += sequence.length;
      continue;
    }
    if (code < 0x20 || code > 0x7e) return undefined;
    characters.push({ type: 'char', value: line[index]!, fullWidth: false, styles });
    index++;
  }
  return characters;
}

function sameCodes(a: readonly AnsiCode[], b: readonly AnsiCode[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index]!.code !== b[index]!.code || a[index]!.endCode !== b[index]!.endCode) return false;
  return true;
}

/** Ink's composition (clips, transformers, wide characters, later writes over earlier ones), done with less work. */
function fastGet(this: OutputInstance): { output: string; height: number } {
  const rows: (StyledChar | undefined)[][] = [];
  for (let y = 0; y < this.height; y++) rows.push(new Array<StyledChar>(this.width).fill(BLANK));
  const clips: Clip[] = [];
  for (const operation of this.operations) {
    if (operation.type === 'clip') clips.push(operation.clip);
    else if (operation.type === 'unclip') clips.pop();
    else writeInto(rows, this.caches, operation, clips.at(-1));
  }
  return { output: rows.map(rowToString).join('\n'), height: rows.length };
}

function writeInto(rows: (StyledChar | undefined)[][], caches: OutputCaches, operation: Extract<Operation, { type: 'write' }>, clip: Clip | undefined): void {
  let { x, y } = operation;
  let lines = operation.text.split('\n');
  if (clip) {
    const clipsX = typeof clip.x1 === 'number' && typeof clip.x2 === 'number';
    const clipsY = typeof clip.y1 === 'number' && typeof clip.y2 === 'number';
    if (clipsX) {
      const widest = caches.getWidestLine(operation.text);
      if (x + widest < clip.x1! || x > clip.x2!) return;
    }
    if (clipsY && (y + lines.length < clip.y1! || y > clip.y2!)) return;
    if (clipsX) {
      lines = lines.map((line) => {
        const width = caches.getStringWidth(line);
        return sliceAnsi(line, x < clip.x1! ? clip.x1! - x : 0, x + width > clip.x2! ? clip.x2! - x : width);
      });
      if (x < clip.x1!) x = clip.x1!;
    }
    if (clipsY) {
      const from = y < clip.y1! ? clip.y1! - y : 0;
      const to = y + lines.length > clip.y2! ? clip.y2! - y : lines.length;
      lines = lines.slice(from, to);
      if (y < clip.y1!) y = clip.y1!;
    }
  }
  let offsetY = 0;
  for (let index = 0; index < lines.length; index++) {
    const row = rows[y + offsetY];
    if (!row) continue; // taller than the frame: Ink skips it without counting the line
    let line = lines[index]!;
    for (const transform of operation.transformers) line = transform(line, index);
    let offsetX = x;
    for (const character of caches.getStyledChars(line)) {
      row[offsetX] = character;
      const width = columnsOf(character.value, caches);
      // A wide character's second column holds an empty cell in the same style.
      for (let extra = 1; extra < width; extra++) row[offsetX + extra] = { type: 'char', value: '', fullWidth: false, styles: character.styles };
      offsetX += width;
    }
    offsetY++;
  }
}

/** Columns a character takes: at least one, as Ink counts it; below U+1100 nothing is wider. */
function columnsOf(value: string, caches: OutputCaches): number {
  if (value.length === 1 && value.charCodeAt(0) < 0x1100) return 1;
  return Math.max(1, caches.getStringWidth(value));
}

function rowToString(row: (StyledChar | undefined)[]): string {
  let out = '';
  let previous: StyledChar | undefined;
  for (const character of row) {
    if (character === undefined) continue; // a hole left past the end by a wide character
    if (previous === undefined) out += ansiCodesToString(character.styles);
    else if (character.styles !== previous.styles) out += ansiCodesToString(diffAnsiCodes(previous.styles, character.styles));
    out += character.value;
    previous = character;
  }
  if (previous && previous.styles.length > 0) out += ansiCodesToString(diffAnsiCodes(previous.styles, []));
  return out.trimEnd();
}
