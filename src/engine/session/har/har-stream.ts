// A HAR document read from its bytes as they come: each element of `log.entries` is handed out as
// soon as it is complete, parsed on its own, and the document is never one string. (A HAR is one
// JSON document; read whole, a file past V8's longest string, ~512 MB, could not be read at all,
// and the text and its parse would sit in memory together.) What is left, the document with
// `log.entries` empty, is small and parsed at the end.
//
// A scanner over bytes is enough: JSON's structure is ASCII, and no byte of a multi-byte UTF-8
// character can be mistaken for a quote, a backslash or a bracket.
import { HarFormatError } from './har-validation.js';

type Frame = { kind: 'object'; key: string | undefined; expectKey: boolean } | { kind: 'array' };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/** The bytes that make JSON's structure outside strings. */
const STRUCTURAL = new Uint8Array(256);
for (const byte of [QUOTE, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, COLON, COMMA]) STRUCTURAL[byte] = 1;

/** Keys are only kept this deep: `log` (depth 1) and `entries` (depth 2) are all that matter. */
const KEY_DEPTH = 2;

/** Where an entry's JSON text sits in what was read: bytes [start, end). */
export interface ByteRange {
  start: number;
  end: number;
}

type EntryListener = (entry: unknown, index: number, range: ByteRange) => void;

/** One element of `log.entries`, parsed, with its place in the file. */
export interface HarEntryRead {
  entry: unknown;
  index: number;
  range: ByteRange;
}

/**
 * Reads the document from `chunks`, pulled: the elements of `log.entries` each chunk completes, in
 * order, as one batch (none for a chunk that completes none), so a reader reads on only when
 * asked; returns the document whose `log.entries` is empty. Throws HarFormatError for text that
 * is not JSON.
 */
export async function* harEntryBatches(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<HarEntryRead[], unknown> {
  let batch: HarEntryRead[] = [];
  const scanner = new HarScanner((entry, index, range) => batch.push({ entry, index, range }));
  for await (const chunk of chunks) {
    scanner.write(chunk);
    if (batch.length === 0) continue;
    const full = batch;
    batch = [];
    yield full;
  }
  return scanner.end();
}

class HarScanner {
  readonly #onEntry: EntryListener;
  readonly #stack: Frame[] = [];
  /**
   * The document's bytes but for the entries' own (and the spaces between entries), copied: a view
   * would keep each chunk it was cut from, so the file itself, alive.
   */
  #skeleton = new Uint8Array(1024);
  #skeletonLength = 0;
  /** The bytes of the entry being read, while one is. */
  #entry: Uint8Array[] | undefined;
  #entries = 0;
  /** Bytes read before the current chunk, and where the entry being read starts. */
  #consumed = 0;
  #entryStart = 0;
  #inString = false;
  /** The stack is the root's `log.entries` array itself: an entry starts or ends here. */
  #atEntries = false;
  #escaped = false;
  #backslashChunk: Uint8Array | undefined;
  #backslashAt = -1;
  /** A key string being read at a depth where keys are kept, and where it starts in this chunk. */
  #key: Uint8Array[] | undefined;
  #keyFrom = 0;
  #decoder = new TextDecoder();

  constructor(onEntry: EntryListener) {
    this.#onEntry = onEntry;
  }

  write(chunk: Uint8Array): void {
    /** Where the current run of bytes (to the skeleton or the entry) began. */
    let from = 0;
    const keep = (to: number) => {
      if (to > from) {
        if (this.#entry) this.#entry.push(chunk.subarray(from, to));
        else this.#toSkeleton(chunk.subarray(from, to));
      }
      from = to;
    };
    for (let i = 0; i < chunk.length; i++) {
      if (this.#inString) {
        // Most of a HAR is long strings (bodies): jump to the next quote or backslash.
        i = this.#stringEnd(chunk, i);
        if (i === chunk.length) break;
        continue;
      }
      const byte = chunk[i]!;
      if (this.#atEntries) {
        if (this.#entry && (byte === COMMA || byte === CLOSE_ARRAY)) {
          // The entry ends here; the comma between entries goes nowhere, the bracket to the skeleton.
          keep(i);
          this.#finishEntry(this.#consumed + i);
          if (byte === COMMA) {
            from = i + 1;
            continue;
          }
        } else if (!this.#entry && byte !== COMMA && byte !== CLOSE_ARRAY && !isSpace(byte)) {
          // What lies between the last entry's comma and this one is only spaces: it goes nowhere.
          if (onlySpaces(chunk, from, i)) from = i;
          keep(i);
          this.#entry = [];
          this.#entryStart = this.#consumed + i;
        }
      }
      // Only structure matters outside strings: numbers, literals and spaces pass by.
      if (STRUCTURAL[byte] === 0) continue;
      const top = this.#stack.at(-1);
      switch (byte) {
        case QUOTE:
          this.#inString = true;
          if (top?.kind === 'object' && top.expectKey && this.#stack.length <= KEY_DEPTH) {
            this.#key = [];
            this.#keyFrom = i + 1;
          }
          break;
        case OPEN_OBJECT:
          this.#push({ kind: 'object', key: undefined, expectKey: true });
          break;
        case OPEN_ARRAY:
          this.#push({ kind: 'array' });
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          this.#stack.pop();
          this.#atEntries = this.#inEntries();
          break;
        case COLON:
          if (top?.kind === 'object') top.expectKey = false;
          break;
        case COMMA:
          if (top?.kind === 'object') {
            top.expectKey = true;
            top.key = undefined;
          }
          break;
        default:
          break;
      }
    }
    keep(chunk.length);
    if (this.#key && this.#inString) this.#key.push(chunk.subarray(this.#keyFrom));
    this.#keyFrom = 0;
    this.#consumed += chunk.length;
  }

  #push(frame: Frame): void {
    this.#stack.push(frame);
    this.#atEntries = this.#inEntries();
  }

  end(): unknown {
    if (this.#entry) throw new HarFormatError(`log.entries[${this.#entries}]`, 'not JSON (the file ends inside it)');
    const bytes = Buffer.from(this.#skeleton.buffer, 0, this.#skeletonLength);
    try {
      const text = bytes.toString('utf8');
      // A byte-order mark (HAR files saved by some Windows tools) is not JSON.
      return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_STRING_TOO_LONG') throw new HarFormatError('(file)', `too large to read outside log.entries (${bytes.length} bytes)`);
      throw new HarFormatError('(file)', `not JSON: ${(error as Error).message}`);
    }
  }

  #toSkeleton(bytes: Uint8Array): void {
    if (this.#skeletonLength + bytes.length > this.#skeleton.length) {
      const grown = new Uint8Array(Math.max(this.#skeleton.length * 2, this.#skeletonLength + bytes.length));
      grown.set(this.#skeleton.subarray(0, this.#skeletonLength));
      this.#skeleton = grown;
    }
    this.#skeleton.set(bytes, this.#skeletonLength);
    this.#skeletonLength += bytes.length;
  }

  /** Inside a string from `i`: returns its closing quote's index, or the chunk's length when it goes on. */
  #stringEnd(chunk: Uint8Array, i: number): number {
    let at = i;
    if (this.#escaped) {
      this.#escaped = false;
      at++;
    }
    for (;;) {
      const quote = chunk.indexOf(QUOTE, at);
      const backslash = this.#nextBackslash(chunk, at);
      if (backslash !== -1 && (quote === -1 || backslash < quote)) {
        // An escape: the byte after the backslash is never the string's end.
        at = backslash + 2;
        if (at > chunk.length) {
          this.#escaped = true;
          return chunk.length;
        }
        continue;
      }
      if (quote === -1) return chunk.length;
      this.#inString = false;
      if (this.#key) this.#takeKey(chunk, quote);
      return quote;
    }
  }

  /**
   * The first backslash at or after `at` in this chunk (-1: none). Remembered across the chunk's
   * strings: most strings have none, and searching the rest of a 1 MiB chunk for each would be
   * quadratic.
   */
  #nextBackslash(chunk: Uint8Array, at: number): number {
    if (this.#backslashChunk !== chunk || (this.#backslashAt !== -1 && this.#backslashAt < at)) {
      this.#backslashChunk = chunk;
      this.#backslashAt = chunk.indexOf(BACKSLASH, at);
    }
    return this.#backslashAt;
  }

  #takeKey(chunk: Uint8Array, quote: number): void {
    const parts = this.#key!;
    parts.push(chunk.subarray(this.#keyFrom, quote));
    this.#key = undefined;
    const top = this.#stack.at(-1);
    if (top?.kind === 'object') top.key = this.#decoder.decode(Buffer.concat(parts));
    this.#atEntries = this.#inEntries();
  }

  /** A value starting now would be an element of the root's `log.entries`. */
  #inEntries(): boolean {
    const [root, log, entries] = this.#stack;
    return this.#stack.length === 3 && root?.kind === 'object' && root.key === 'log' && log?.kind === 'object' && log.key === 'entries' && entries?.kind === 'array';
  }

  #finishEntry(end: number): void {
    const index = this.#entries++;
    const bytes = Buffer.concat(this.#entry!);
    this.#entry = undefined;
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      // One entry past V8's longest string (a body of ~512 MB) cannot be read either.
      const tooLong = (error as NodeJS.ErrnoException).code === 'ERR_STRING_TOO_LONG';
      throw new HarFormatError(`log.entries[${index}]`, tooLong ? `too large to read (${bytes.length} bytes)` : `not JSON: ${(error as Error).message}`);
    }
    this.#onEntry(value, index, { start: this.#entryStart, end });
  }
}

function onlySpaces(chunk: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isSpace(chunk[i]!)) return false;
  return true;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}
