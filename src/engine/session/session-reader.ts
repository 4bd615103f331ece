// Reads a session file back: the header line, then journal entries, streamed line by line so
// progress can be shown on big files. A file without a header whose lines are journal entries
// (`wrtui headless --json` output) reads too, without bodies or starting cookies.
//
// Crash tolerance: the recorder only appends whole lines, but a process killed mid-write can
// leave a partial last line. A last line that is not JSON and has no newline is skipped with a
// warning; a broken line anywhere else is an error naming the line. A gzip recording (gzip-file.ts)
// cut off inside its last member reads up to where it stops, with the same warning.
import { StringDecoder } from 'node:string_decoder';
import { fileChunks, isGzipFile } from './gzip-file.js';
import { stat } from 'node:fs/promises';
import type { JournalEntry } from '../journal.js';
import { readingProgress, type ProgressListener } from './progress.js';
import { isSessionHeader, SESSION_FORMAT, SESSION_FORMAT_VERSION, type SessionHeader } from './session-format.js';
import { decodeLine } from './session-json.js';
import { entryProblem } from './entry-shape.js';
import { DeltaDecoder, DeltaError } from './webrequest-delta.js';

export interface SessionFileContents {
  source: 'wrtui-session' | 'wrtui-journal';
  header: SessionHeader | undefined;
  entries: JournalEntry[];
  warnings: string[];
}

export class SessionFileError extends Error {
  constructor(readonly file: string, readonly line: number, problem: string) {
    super(`${file}:${line}: ${problem}`);
    this.name = 'SessionFileError';
  }
}

/** What a session file holds, read whole (small files, tests, the TUI's re-runs). */
export async function readSessionFile(file: string, options: ReadingOptions = {}): Promise<SessionFileContents> {
  const reading = readSessionEntries(file, options);
  const entries: JournalEntry[] = [];
  for await (const batch of reading.batches()) for (const entry of batch) entries.push(entry);
  return { source: reading.source, header: reading.header, entries, warnings: reading.warnings };
}

/**
 * A session file read as a stream of journal entries, a batch per chunk read, so that a replay
 * need not hold the file: `header` and `source` are known once the first batch is out (or the
 * file ended), `warnings` once it has ended.
 */
export interface SessionEntryStream {
  source: 'wrtui-session' | 'wrtui-journal';
  header: SessionHeader | undefined;
  warnings: string[];
  batches(): AsyncGenerator<JournalEntry[]>;
}

export interface ReadingOptions {
  onProgress?: ProgressListener;
  /** Whether the file is gzip-compressed, when the caller already knows (sniff()); else its first bytes are read. */
  gzipped?: boolean;
}

const BYTE_ORDER_MARK = 0xfeff;

export function readSessionEntries(file: string, options: ReadingOptions = {}): SessionEntryStream {
  const stream: SessionEntryStream = {
    source: 'wrtui-journal',
    header: undefined,
    warnings: [],
    async *batches() {
      const total = (await stat(file)).size;
      let lineNumber = 0;
      const carry = new LineStart(file);
      const deltas = new DeltaDecoder();
      let batch: JournalEntry[] = [];

      const handle = (text: string, isLast: boolean) => {
        lineNumber++;
        // A byte-order mark (a file saved by some Windows editors) is not part of the first line's JSON.
        const line = lineNumber === 1 && text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
        if (line.trim() === '') return;
        let value: unknown;
        try {
          value = decodeLine(line);
        } catch (error) {
          if (isLast) {
            stream.warnings.push(`${file}:${lineNumber}: the last line is incomplete (the recording was cut off); ignored`);
            return;
          }
          throw new SessionFileError(file, lineNumber, `not JSON (${(error as Error).message})`);
        }
        if (lineNumber === 1 && isSessionHeader(value)) {
          if (value.version > SESSION_FORMAT_VERSION) {
            throw new SessionFileError(file, 1, `a version ${value.version} "${SESSION_FORMAT}" file, newer than this wrtui reads (${SESSION_FORMAT_VERSION})`);
          }
          stream.header = value;
          stream.source = 'wrtui-session';
          return;
        }
        if (typeof value !== 'object' || value === null || typeof (value as { kind?: unknown }).kind !== 'string') {
          throw new SessionFileError(file, lineNumber, 'not a journal entry (no "kind")');
        }
        let entry: Record<string, unknown>;
        try {
          entry = deltas.entry(value as Record<string, unknown>);
        } catch (error) {
          if (error instanceof DeltaError) throw new SessionFileError(file, lineNumber, error.message);
          throw error;
        }
        const problem = entryProblem(entry);
        if (problem) throw new SessionFileError(file, lineNumber, problem);
        batch.push(entry as unknown as JournalEntry);
      };

      const progress = readingProgress(total, options.onProgress);
      const decoder = new StringDecoder('utf8');
      let cutOff = false;
      for await (const bytes of fileChunks(file, { gzipped: options.gzipped ?? (await isGzipFile(file)), onRead: progress, onCutOff: () => (cutOff = true) })) {
        const text = decoder.write(bytes);
        let start = 0;
        for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
          // A line's start may be in earlier chunks: joined once, when its end comes (a long line is no quadratic re-split).
          handle(carry.take(text.slice(start, end)), false);
          start = end + 1;
        }
        carry.add(text.slice(start), lineNumber + 1);
        if (batch.length > 0) {
          yield batch;
          batch = [];
        }
      }
      const last = carry.take(decoder.end());
      if (cutOff) stream.warnings.push(`${file}: the compressed recording stops inside its last block (it was cut off); read up to there`);
      // Text after the last newline: a complete line if it parses, a cut-off write otherwise.
      if (last !== '') handle(last, true);
      if (batch.length > 0) yield batch;
      options.onProgress?.({ phase: 'reading', done: total, total, unit: 'bytes' });
    },
  };
  return stream;
}

/** The part of a line read so far, in pieces until its end comes. */
class LineStart {
  readonly #file: string;
  #pieces: string[] = [];
  #length = 0;

  constructor(file: string) {
    this.#file = file;
  }

  add(piece: string, lineNumber: number): void {
    if (piece === '') return;
    this.#length += piece.length;
    // Past V8's longest string (~512 MB) the line could never be joined: no recorder writes such a line.
    if (this.#length > MAX_LINE_CHARS) throw new SessionFileError(this.#file, lineNumber, 'a line too long to read');
    this.#pieces.push(piece);
  }

  /** The whole line, `end` its last piece; starts the next one. */
  take(end: string): string {
    if (this.#pieces.length === 0) return end;
    const line = this.#pieces.join('') + end;
    this.#pieces = [];
    this.#length = 0;
    return line;
  }
}

const MAX_LINE_CHARS = 2 ** 29 - 24;
