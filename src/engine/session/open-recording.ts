// Opens whatever `wrtui replay <file>` is given: a wrtui session file, a `wrtui headless --json`
// capture (NDJSON journal without a header) or a HAR 1.2 file. The first line tells: NDJSON lines
// are whole JSON objects with `format` or `kind`; anything else is read as one JSON document, HAR.
// Any of them may be gzip-compressed (gzip-file.ts): the first decompressed bytes tell.
import { open, stat } from 'node:fs/promises';
import { fileChunks, isGzipFile } from './gzip-file.js';
import { readHarFile } from './har/har-import.js';
import type { ProgressListener } from './progress.js';
import type { RecordedSession } from './recorded-session.js';
import { sessionFromJournal } from './session-from-journal.js';
import { readSessionFile } from './session-reader.js';

const SNIFF_BYTES = 64 * 1024;

export type RecordingKind = 'ndjson' | 'har';

/** What a recording's first bytes tell. */
export interface Sniffed {
  kind: RecordingKind;
  gzipped: boolean;
}

/** `sniffed`: what sniff() already told of the file, when the caller asked it first. */
export async function openRecording(file: string, options: { onProgress?: ProgressListener; sniffed?: Sniffed } = {}): Promise<RecordedSession> {
  const { kind, gzipped } = options.sniffed ?? (await sniff(file));
  const reading = { gzipped, ...(options.onProgress && { onProgress: options.onProgress }) };
  if (kind === 'har') return readHarFile(file, reading);
  return sessionFromJournal(file, await readSessionFile(file, reading));
}

/** A file `wrtui replay` cannot take, said in a user's words (a folder, an empty file, neither NDJSON nor HAR). */
export class RecordingFormatError extends Error {
  constructor(readonly file: string, problem: string) {
    super(`${file} ${problem}`);
    this.name = 'RecordingFormatError';
  }
}

/**
 * NDJSON when the first line is a JSON object with `format` (a session header) or `kind` (a journal
 * entry); HAR when the file is some other JSON object. Anything else is refused here, with what it
 * is, rather than reported later as a broken HAR.
 */
export async function sniff(file: string): Promise<Sniffed> {
  if ((await stat(file)).isDirectory()) throw new RecordingFormatError(file, 'is a folder, not a recording');
  const gzipped = await isGzipFile(file);
  const head = gzipped ? await gunzippedHead(file) : await plainHead(file);
  // trimStart drops a byte-order mark too (it counts as white space).
  const start = head.trimStart();
  if (start === '') throw new RecordingFormatError(file, `is empty${gzipped ? ' (once decompressed)' : ''}: nothing to replay`);
  if (!start.startsWith('{')) {
    throw new RecordingFormatError(file, `is neither a wrtui recording (NDJSON) nor a HAR file (JSON): it starts with ${JSON.stringify(start.slice(0, 16))}`);
  }
  return { kind: kindOf(start), gzipped };
}

function kindOf(head: string): RecordingKind {
  const firstLine = head.split('\n', 1)[0] ?? '';
  // wrtui writes `format` (the header) or `kind` (an entry) first; a header with many cookies can be
  // longer than what was read, so the start of the line decides before any parsing.
  if (/^\{\s*"(format|kind)"\s*:/.test(firstLine)) return 'ndjson';
  try {
    const value = JSON.parse(firstLine) as Record<string, unknown> | null;
    if (value && typeof value === 'object' && ('format' in value || 'kind' in value) && !('log' in value)) return 'ndjson';
  } catch {
    // Not one JSON value on the first line: a (pretty-printed) JSON document.
  }
  return 'har';
}

async function plainHead(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** The first SNIFF_BYTES of what a gzip file holds (or all of it, if less). */
async function gunzippedHead(file: string): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of fileChunks(file, { gzipped: true })) {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= SNIFF_BYTES) break;
  }
  return Buffer.concat(chunks).subarray(0, SNIFF_BYTES).toString('utf8');
}
