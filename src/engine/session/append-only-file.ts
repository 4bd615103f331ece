// A file that only ever grows, line by line: the session recorder's output. Lines are buffered in
// memory and appended every `flushIntervalMs` (or as soon as 64 KiB are waiting), each append whole
// lines in one O_APPEND write, and fdatasync'd every `syncIntervalMs` beside the writes (a slow
// sync never holds one back). A crashing process loses at most the lines of the last interval; whatever reached the file is complete lines (a write cut
// short by the kernel or a full disk can leave one partial last line, which readers skip).
//
// The file is created, never reused (private-file.ts: an existing name, a symbolic link included,
// is an error, so a recording cannot clobber an older one or write through a link), with mode 0600
// from the start: sessions hold cookies and headers.
// With `gzip`, each append is one gzip member of whole lines (gzip-file.ts).
import type { FileHandle } from 'node:fs/promises';
import { createPrivateFile, PRIVATE_FILE_MODE } from '../private-file.js';
import { gzipMember } from './gzip-file.js';

export const SESSION_FILE_MODE = PRIVATE_FILE_MODE;
const FLUSH_THRESHOLD_BYTES = 64 * 1024;

export interface AppendOnlyFileOptions {
  flushIntervalMs?: number;
  syncIntervalMs?: number;
  /** A write failed (disk full, file system gone): the file stops growing, the session goes on. */
  onError?: (error: Error) => void;
  /** Write gzip members instead of text. */
  gzip?: boolean;
}

export class AppendOnlyFile {
  readonly path: string;
  readonly #handle: FileHandle;
  readonly #onError: (error: Error) => void;
  readonly #gzip: boolean;
  readonly #flushTimer: NodeJS.Timeout;
  readonly #syncTimer: NodeJS.Timeout;
  #pending: string[] = [];
  #pendingBytes = 0;
  #chain: Promise<void> = Promise.resolve();
  /** The fdatasync in progress, beside the chain of writes, never in it. */
  #syncing: Promise<void> | undefined;
  #unsynced = false;
  #failed: Error | undefined;
  #closed = false;
  /** Bytes handed to the file system so far (compressed, with gzip). */
  bytesWritten = 0;

  private constructor(path: string, handle: FileHandle, options: AppendOnlyFileOptions) {
    this.path = path;
    this.#handle = handle;
    this.#onError = options.onError ?? ((error) => process.emitWarning(error.message));
    this.#gzip = options.gzip ?? false;
    this.#flushTimer = setInterval(() => void this.flush(), options.flushIntervalMs ?? 100).unref();
    this.#syncTimer = setInterval(() => this.#sync(), options.syncIntervalMs ?? 1000).unref();
  }

  /** Creates `path` (mode 0600); fails (FileExistsError, code EEXIST) if anything has that name. */
  static async create(path: string, options: AppendOnlyFileOptions = {}): Promise<AppendOnlyFile> {
    return new AppendOnlyFile(path, await createPrivateFile(path), options);
  }

  /** Queues one line (without its newline). */
  appendLine(line: string): void {
    if (this.#closed || this.#failed) return;
    this.#pending.push(line, '\n');
    this.#pendingBytes += line.length + 1;
    if (this.#pendingBytes >= FLUSH_THRESHOLD_BYTES) void this.flush();
  }

  /** Appends what is queued; resolves once it is in the file. */
  flush(): Promise<void> {
    if (this.#pending.length === 0) return this.#chain;
    const chunk = this.#pending.join('');
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#chain = this.#chain.then(async () => {
      if (this.#failed) return;
      try {
        const bytes = this.#gzip ? await gzipMember(chunk) : Buffer.from(chunk, 'utf8');
        await this.#handle.appendFile(bytes);
        this.bytesWritten += bytes.length;
        this.#unsynced = true;
      } catch (error) {
        this.#fail(error);
      }
    });
    return this.#chain;
  }

  /** Flushes, syncs and closes. */
  async close(): Promise<void> {
    if (this.#closed) return this.#chain;
    clearInterval(this.#flushTimer);
    clearInterval(this.#syncTimer);
    await this.flush();
    this.#closed = true;
    await this.#syncing;
    this.#sync();
    await this.#syncing;
    await this.#handle.close();
  }

  /**
   * Asks the disk to keep what was written, without holding later writes: a sync on a loaded
   * machine can take seconds, and a write queued behind it was still in this process's memory,
   * lost to a kill -9 (one run kept 79.8 % of what it had served). Writes reach the kernel within
   * the flush interval whatever the disk does; a sync covers what was written when it began.
   */
  #sync(): void {
    if (!this.#unsynced || this.#syncing) return;
    this.#unsynced = false;
    this.#syncing = this.#handle
      .datasync()
      .catch((error: unknown) => this.#fail(error))
      .finally(() => (this.#syncing = undefined));
  }

  #fail(error: unknown): void {
    if (this.#failed) return;
    this.#failed = error instanceof Error ? error : new Error(String(error));
    this.#onError(new Error(`Cannot write the session file ${this.path}: ${this.#failed.message}`, { cause: error }));
  }
}
