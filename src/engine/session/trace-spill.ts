// A HAR's replay without rules, kept on disk until the rules' replay of each request is compared
// with it. A HAR has no journal, so that replay is the baseline (session-replay.ts); held in
// memory, a replay of a huge HAR would hold every request's trace until the second pass took it.
// Each trace is one line in a private temporary file (private-temp-file.ts); what stays in memory
// per request is where its line is: 12 bytes.
import { closeSync, readSync, writeSync } from 'node:fs';
import { openPrivateTempFile } from './private-temp-file.js';
import type { RequestTrace } from './request-trace.js';
import { decodeLine, encodeLine } from './session-json.js';

/** Lines are written in batches this large: one write per trace would be a system call per request. */
const FLUSH_BYTES = 256 * 1024;

export class TraceSpill {
  readonly #fd: number;
  /** By request index: where its line starts, and its length (0: none, or taken). */
  #offsets = new Float64Array(1024);
  #lengths = new Uint32Array(1024);
  /** Bytes in the file, and lines put since, not yet written. */
  #written = 0;
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  private constructor(fd: number) {
    this.#fd = fd;
  }

  static async create(): Promise<TraceSpill> {
    return new TraceSpill(await openPrivateTempFile('wrtui-baseline-', 'traces.ndjson'));
  }

  put(index: number, trace: RequestTrace): void {
    const line = Buffer.from(encodeLine(trace));
    if (index >= this.#offsets.length) this.#grow(index);
    this.#offsets[index] = this.#written + this.#pendingBytes;
    this.#lengths[index] = line.length;
    this.#pending.push(line);
    this.#pendingBytes += line.length;
    if (this.#pendingBytes >= FLUSH_BYTES) this.#flush();
  }

  /** The trace put for `index`, once: it is forgotten as it is taken. */
  take(index: number): RequestTrace | undefined {
    const length = index < this.#lengths.length ? this.#lengths[index]! : 0;
    if (length === 0) return undefined;
    this.#lengths[index] = 0;
    const offset = this.#offsets[index]!;
    if (offset + length > this.#written) this.#flush();
    const bytes = Buffer.allocUnsafe(length);
    for (let read = 0; read < length; ) read += readSync(this.#fd, bytes, read, length - read, offset + read);
    return decodeLine(bytes.toString('utf8')) as RequestTrace;
  }

  close(): void {
    closeSync(this.#fd);
  }

  #grow(index: number): void {
    let size = this.#offsets.length;
    while (size <= index) size *= 2;
    const offsets = new Float64Array(size);
    const lengths = new Uint32Array(size);
    offsets.set(this.#offsets);
    lengths.set(this.#lengths);
    this.#offsets = offsets;
    this.#lengths = lengths;
  }

  #flush(): void {
    const data = Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    for (let done = 0; done < data.length; ) done += writeSync(this.#fd, data, done, data.length - done, this.#written + done);
    this.#written += data.length;
  }
}
