// --record: a journal subscriber that writes the session file (format in README.md here). It
// writes the header at once (with the cookie stores as they are now, so replay starts from the
// same state), then every journal entry as it is appended, redacted when asked. Bodies are the
// proxy's `body` entries (CaptureProxy's journalBodies), already capped at --max-body-size. The
// recording is listed in <state-dir>/sessions.json when it starts and when it ends.
import { resolve } from 'node:path';
import type { Engine } from '../engine.js';
import type { JournalEntry } from '../journal.js';
import { AppendOnlyFile } from './append-only-file.js';
import { redactEntry, redactSerializedCookies } from './redaction.js';
import { SessionIndex } from './session-index.js';
import { SESSION_FORMAT, SESSION_FORMAT_VERSION, type SessionHeader } from './session-format.js';
import { encodeLine } from './session-json.js';
import { DeltaEncoder } from './webrequest-delta.js';
import { wantsGzip } from './gzip-file.js';
import { wrtuiVersion } from './wrtui-version.js';

export interface SessionRecorderOptions {
  file: string;
  redact: boolean;
  /** The size above which the proxy journals no body (header information only). */
  maxBodySize: number;
  /** Where sessions.json lives; without it the recording is not indexed. */
  stateDir?: string;
  flushIntervalMs?: number;
  syncIntervalMs?: number;
}

export class SessionRecorder {
  readonly file: string;
  readonly redacted: boolean;
  readonly #output: AppendOnlyFile;
  readonly #index: SessionIndex | undefined;
  readonly #unsubscribe: () => void;
  readonly #requestIds = new Set<string>();
  #closing: Promise<void> | undefined;

  private constructor(engine: Engine, output: AppendOnlyFile, index: SessionIndex | undefined, redact: boolean) {
    this.file = output.path;
    this.redacted = redact;
    this.#output = output;
    this.#index = index;
    const prepare = redact ? redactEntry : (entry: JournalEntry) => entry;
    const lines = new DeltaEncoder();
    // Serialised at once: the line is a snapshot, whatever happens to the entry's objects later.
    this.#unsubscribe = engine.journal.subscribe((entry) => {
      if (entry.kind === 'webRequest' && entry.event === 'onBeforeRequest') this.#requestIds.add(entry.details.requestId);
      // What StreamFilters wrote is the TUI's to show; a replay runs the filters again.
      if (entry.kind === 'body' && entry.filteredBy) return;
      // A cut body's beginning is for the screen; the file says only that it was cut, as before.
      const kept = entry.kind === 'body' && !entry.complete && entry.bytes.length > 0 ? { ...entry, bytes: new Uint8Array() } : entry;
      output.appendLine(lines.line(prepare(kept)));
    }, { fromStart: true });
  }

  /** Creates the file (refusing an existing one), writes the header and starts recording. */
  static async start(engine: Engine, options: SessionRecorderOptions): Promise<SessionRecorder> {
    const file = resolve(options.file);
    const output = await AppendOnlyFile.create(file, {
      gzip: wantsGzip(file),
      ...(options.flushIntervalMs !== undefined && { flushIntervalMs: options.flushIntervalMs }),
      ...(options.syncIntervalMs !== undefined && { syncIntervalMs: options.syncIntervalMs }),
      onError: (error) => engine.journal.append({ kind: 'log', level: 'error', source: 'recorder', message: error.message }),
    });
    const startedAt = engine.cookies.now();
    const cookies = Object.fromEntries(
      engine.cookies.storeIds.map((storeId) => {
        const serialized = engine.cookies.allCookies(storeId).map((cookie) => cookie.toJSON());
        return [storeId, options.redact ? redactSerializedCookies(serialized) : serialized];
      }),
    );
    const header: SessionHeader = {
      format: SESSION_FORMAT,
      version: SESSION_FORMAT_VERSION,
      started: new Date(startedAt).toISOString(),
      startedAt,
      wrtui: wrtuiVersion(),
      node: process.version,
      redacted: options.redact,
      maxBodySize: options.maxBodySize,
      listenerTimeoutMs: engine.lifecycle.listenerTimeoutMs,
      cookies,
    };
    output.appendLine(encodeLine(header));
    await output.flush();
    const index = options.stateDir ? SessionIndex.forStateDir(options.stateDir, (message) => engine.journal.append({ kind: 'log', level: 'warn', source: 'state', message })) : undefined;
    const recorder = new SessionRecorder(engine, output, index, options.redact);
    try {
      await index?.add({ file, started: header.started, ended: null, requests: 0, redacted: options.redact });
    } catch (error) {
      engine.journal.append({ kind: 'log', level: 'warn', source: 'recorder', message: `cannot index the session in ${index!.file}: ${(error as Error).message}` });
    }
    return recorder;
  }

  /** Requests seen so far (distinct requestIds). */
  get requestCount(): number {
    return this.#requestIds.size;
  }

  /** Stops recording, writes what is pending, syncs, closes the file and indexes how it ended. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#unsubscribe();
      await this.#output.close();
      try {
        await this.#index?.finish(this.file, new Date().toISOString(), this.requestCount);
      } catch {
        // The recording itself is complete; a stale index entry only shows it as unfinished.
      }
    })();
    return this.#closing;
  }
}
