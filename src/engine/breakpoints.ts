// Breakpoints: a request that matches pauses at a chosen stage until a person answers it. The
// pausing is an extension like any other, named "breakpoint": a blocking listener whose answer
// comes from the keyboard, so it goes through the same verdict merging, journal outcomes and
// dry-run as any rule's, and recordings and replays show it. It has the highest precedence (the
// person at the keyboard wins a conflict) and no listener timeout: a paused request waits until
// it is answered, and closing (quitting wrtui) lets every paused request go on unchanged.
import type { Engine } from './engine.js';
import { createTrustedOwner, type Owner } from './owner.js';
import type { BlockingResponse, WebRequestDetails } from './types.js';

export const BREAKPOINT_OWNER = 'breakpoint';
export const BREAKPOINT_STAGES = ['onBeforeRequest', 'onBeforeSendHeaders', 'onHeadersReceived', 'onAuthRequired'] as const;
export type BreakpointStage = (typeof BREAKPOINT_STAGES)[number];

const EXTRA_INFO: Readonly<Record<BreakpointStage, string[]>> = {
  onBeforeRequest: ['blocking', 'requestBody'],
  onBeforeSendHeaders: ['blocking', 'requestHeaders'],
  onHeadersReceived: ['blocking', 'responseHeaders'],
  onAuthRequired: ['blocking', 'responseHeaders'],
};

export interface Breakpoint {
  stage: BreakpointStage;
  /** As the user wrote it (the filter), for the screen. */
  description: string;
  matches: (details: WebRequestDetails) => boolean;
}

export interface PausedRequest {
  requestId: string;
  stage: BreakpointStage;
  /** What a listener at that stage is given. */
  details: WebRequestDetails;
  since: number;
}

export class Breakpoints {
  readonly #engine: Engine;
  readonly #owner: Owner;
  readonly #paused = new Map<string, PausedRequest & { answer: (response: BlockingResponse | undefined) => void }>();
  readonly #listeners = new Set<() => void>();
  #current: Breakpoint | undefined;
  #unregister: (() => void) | undefined;
  /** Watches the journal for paused requests that end (only while some request is paused). */
  #unwatchEnds: (() => void) | undefined;

  constructor(engine: Engine) {
    this.#engine = engine;
    this.#owner = createTrustedOwner(BREAKPOINT_OWNER, { precedence: Number.MAX_SAFE_INTEGER });
    this.#owner.answersByHand = true;
  }

  get current(): Breakpoint | undefined {
    return this.#current;
  }

  /** Paused requests, the longest waiting first. */
  paused(): PausedRequest[] {
    return [...this.#paused.values()].map(({ answer: _answer, ...paused }) => paused);
  }

  isPaused(requestId: string): BreakpointStage | undefined {
    return this.#paused.get(requestId)?.stage;
  }

  /** Sets the breakpoint (replacing the one before), or with undefined clears it; paused requests stay paused. */
  set(breakpoint: Breakpoint | undefined): void {
    this.#unregister?.();
    this.#unregister = undefined;
    this.#current = breakpoint;
    if (breakpoint) {
      const webRequest = this.#engine.extensionApi(this.#owner).chrome.webRequest!;
      const event = webRequest[breakpoint.stage] as { addListener: (...args: unknown[]) => void; removeListener: (listener: unknown) => void };
      const listener = (details: WebRequestDetails) => (breakpoint.matches(details) ? this.#pause(breakpoint.stage, details) : undefined);
      event.addListener(listener, { urls: ['<all_urls>'] }, EXTRA_INFO[breakpoint.stage]);
      this.#unregister = () => event.removeListener(listener);
    }
    this.#engine.journal.append({ kind: 'log', level: 'info', source: BREAKPOINT_OWNER, message: breakpoint ? `set at ${breakpoint.stage}: ${breakpoint.description || 'every request'}` : 'cleared' });
    this.#changed();
  }

  /** Answers a paused request as a listener would (undefined: go on unchanged). */
  answer(requestId: string, response: BlockingResponse | undefined): boolean {
    const paused = this.#paused.get(requestId);
    if (!paused) return false;
    this.#paused.delete(requestId);
    if (this.#paused.size === 0) this.#stopWatchingEnds();
    paused.answer(response);
    this.#changed();
    return true;
  }

  /** Lets every paused request go on unchanged (quitting, or "continue all"). */
  releaseAll(): number {
    const all = [...this.#paused.keys()];
    for (const requestId of all) this.answer(requestId, undefined);
    return all.length;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    this.set(undefined);
    this.releaseAll();
    this.#listeners.clear();
  }

  #pause(stage: BreakpointStage, details: WebRequestDetails): Promise<BlockingResponse | undefined> {
    return new Promise((resolve) => {
      this.#paused.set(details.requestId, { requestId: details.requestId, stage, details, since: Date.now(), answer: resolve });
      this.#watchEnds();
      this.#changed();
    });
  }

  /**
   * A paused request can end without an answer (its client left, the proxy stopped): it is paused no
   * more, and its pending answer is let go (nothing applies it now; kept, it would never settle).
   */
  #watchEnds(): void {
    this.#unwatchEnds ??= this.#engine.journal.subscribe((entry) => {
      if (entry.kind !== 'webRequest' || (entry.event !== 'onErrorOccurred' && entry.event !== 'onCompleted')) return;
      if (this.#paused.has(entry.details.requestId)) this.answer(entry.details.requestId, undefined);
    }, { webRequestEvents: ['onCompleted', 'onErrorOccurred'] });
  }

  #stopWatchingEnds(): void {
    this.#unwatchEnds?.();
    this.#unwatchEnds = undefined;
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }
}

/** "headers" → onHeadersReceived …: the stage a user's word names, if any. */
export function stageNamed(word: string): BreakpointStage | undefined {
  const lower = word.toLowerCase();
  const aliases: Readonly<Record<string, BreakpointStage>> = { request: 'onBeforeRequest', send: 'onBeforeSendHeaders', response: 'onHeadersReceived', headers: 'onHeadersReceived', auth: 'onAuthRequired' };
  return BREAKPOINT_STAGES.find((stage) => stage.toLowerCase() === lower) ?? aliases[lower];
}

