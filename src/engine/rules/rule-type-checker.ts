// Type-checks rules off the reload path. A reload only needs esbuild (which strips types without
// checking them); the TypeScript compiler runs in a child process (type-check-worker.ts), a short
// while after a rule's last reload, and its errors come back as warnings. A rule with type errors
// still runs, as it would in a browser after `tsc --noEmit` complained; reload latency and the
// proxy's memory are unaffected, and a crash of the checker costs nothing but the checks.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { TypeCheckRequest, TypeCheckResponse, TypeDiagnostic } from './type-check-protocol.js';

export type { TypeDiagnostic } from './type-check-protocol.js';

export interface RuleTypeCheckerOptions {
  rulesDir: string;
  /** Wait this long after a rule's last change before checking it (ms). */
  delayMs?: number;
  /** The diagnostics of one rule's files (empty when clean). */
  onResult: (ruleFile: string, diagnostics: TypeDiagnostic[]) => void;
  /** Checks are off (TypeScript missing, the process failed); said once. */
  onUnavailable: (reason: string) => void;
}

export class RuleTypeChecker {
  readonly #options: RuleTypeCheckerOptions;
  readonly #delayMs: number;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #pending = new Map<number, { ruleFile: string; resolve: () => void }>();
  #child: ChildProcess | undefined;
  #nextId = 1;
  #unavailable = false;
  #closed = false;

  constructor(options: RuleTypeCheckerOptions) {
    this.#options = options;
    this.#delayMs = options.delayMs ?? 300;
  }

  /** Checks `files` (a rule and its local helpers) for `ruleFile` once it has been quiet for the delay. */
  schedule(ruleFile: string, files: readonly string[]): void {
    if (this.#unavailable || this.#closed) return;
    clearTimeout(this.#timers.get(ruleFile));
    const timer = setTimeout(() => {
      this.#timers.delete(ruleFile);
      void this.check(ruleFile, files);
    }, this.#delayMs);
    timer.unref();
    this.#timers.set(ruleFile, timer);
  }

  /** Checks now; resolves when the result was delivered (or checks are off). */
  check(ruleFile: string, files: readonly string[]): Promise<void> {
    const child = this.#childProcess();
    if (!child) return Promise.resolve();
    const request: TypeCheckRequest = { id: this.#nextId++, rulesDir: this.#options.rulesDir, files: [...files], authorTypes: authorTypesFile() };
    return new Promise<void>((resolve) => {
      this.#pending.set(request.id, { ruleFile, resolve });
      child.ref();
      child.channel?.ref();
      try {
        child.send(request);
      } catch (error) {
        this.#disable(`the type checker is gone: ${(error as Error).message}`); // settles this check too
      }
    });
  }

  /** Stops pending checks and the process. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#stop();
  }

  async #stop(): Promise<void> {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#settleAll();
    const child = this.#child;
    this.#child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      // An idle child is unref'd: without this, a process with nothing else to do would quit
      // while waiting for the exit (top-level await never settling).
      child.ref();
      child.kill();
      await exited;
    }
  }

  #childProcess(): ChildProcess | undefined {
    if (this.#unavailable || this.#closed) return undefined;
    if (this.#child) return this.#child;
    let child: ChildProcess;
    try {
      child = fork(workerFile(), [], {
        // tsx runs the worker's TypeScript source (it is a runtime dependency of wrtui).
        execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href],
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        serialization: 'json',
      });
    } catch (error) {
      this.#disable(`could not start the type checker: ${(error as Error).message}`);
      return undefined;
    }
    let stderr = '';
    // Only the IPC channel, while a check is pending, may keep wrtui running.
    (child.stderr as (NodeJS.ReadableStream & { unref?: () => void }) | null)?.unref?.();
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    child.on('message', (message: TypeCheckResponse) => this.#onResponse(message));
    child.on('exit', (code, signal) => {
      if (this.#child !== child) return;
      this.#child = undefined;
      this.#settleAll();
      if (!this.#closed) this.#disable(`the type checker stopped (${signal ?? `exit code ${code}`})${stderr ? `: ${stderr.trim()}` : ''}`);
    });
    child.on('error', (error) => this.#disable(`the type checker failed: ${error.message}`));
    this.#child = child;
    return child;
  }

  #onResponse(message: TypeCheckResponse): void {
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    // Idle between checks: the process must not keep wrtui alive.
    if (this.#pending.size === 0) {
      this.#child?.unref();
      this.#child?.channel?.unref();
    }
    if ('error' in message) this.#disable(message.error);
    else if (!this.#closed) this.#options.onResult(pending.ruleFile, message.diagnostics);
    pending.resolve();
  }

  #settleAll(): void {
    for (const pending of this.#pending.values()) pending.resolve();
    this.#pending.clear();
  }

  #disable(reason: string): void {
    if (this.#unavailable || this.#closed) return;
    this.#unavailable = true;
    this.#options.onUnavailable(reason);
    void this.#stop();
  }
}

/** A file of wrtui's rules source folder: next to this module, or under src/ when running from the dist bundle. */
function wrtuiRulesSource(name: string): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [path.join(here, name), path.join(here, '..', 'src', 'engine', 'rules', name)]) {
    if (existsSync(candidate)) return candidate;
  }
  return path.join(here, name);
}

const workerFile = () => wrtuiRulesSource('type-check-worker.ts');
/** What `wrtui/rules` means to the type checker. */
export const authorTypesFile = () => wrtuiRulesSource('author-types.ts');
