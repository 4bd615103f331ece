// Telling listeners of one event of one request and journaling it: blocking events are awaited,
// verdicts merged and the entry journaled with its outcomes; events nobody can block are told
// synchronously, so their entries keep their place. Every entry has its `outcomes` list, whatever
// the listeners did. A request that ends while its listeners are being waited for (the client left,
// the proxy stopped) has the waited event journaled at once, before its terminal event: no event of
// a request is ever journaled after its onCompleted or onErrorOccurred.
import type { Journal, ListenerOutcome, WebRequestEntry } from '../journal.js';
import type { EventFacts, Persona } from '../personas/index.js';
import type { HttpHeaders, WebRequestDetails, WebRequestEventName } from '../types.js';
import { dispatch, type DispatchOptions, type DispatchResult } from './dispatch.js';
import type { ListenerRegistry, RegisteredListener } from './listener-registry.js';
import { mergeVerdicts, type MergedVerdict } from './merge-verdicts.js';
import type { FilterableRequest } from './request-filter.js';

/** Some personas' listeners only, and their names for the journal. */
export interface PersonaFilter {
  test: (persona: Persona) => boolean;
  names: string[];
  /**
   * Journal the event even when no listener gets it (`firedFor` then lists whom it fired for, maybe
   * nobody): the retry's headers and response are part of the record (sessions, the timeline).
   */
  journalAlways?: boolean;
}

/** What the firing needs of the request the event is about. */
export interface FiringFlight {
  readonly finished: boolean;
  /** Owners whose blocking listeners were given the request (Firefox's getSecurityInfo). */
  tracedBy: Set<string> | undefined;
  /** Set while a blocking event of this request waits for its listeners (see EventWait). */
  waiting: EventWait | undefined;
  /** Replay's scheduler, told when the request waits for listeners and asked when it may go on (see FiringPace). */
  pace?: FiringPace | undefined;
}

/**
 * Replay's pacing of a request: told as a wait for listeners begins (other requests' steps may
 * start meanwhile), and asked, once the answers are in, when the request may go on. Whatever follows
 * a wait (the merged verdict, the events after it) then happens at a point the recording decides,
 * not when the answers happen to arrive: every worker gets its events in the same order on every run.
 */
export interface FiringPace {
  waiting(): void;
  resumed(): Promise<void>;
}

/** A blocking event being waited for: the request ending meanwhile journals it at once. */
export interface EventWait {
  /** Journals the event now, its unanswered listeners' answers ignored (the request ended with `ending`). */
  journalNow(ending: string): void;
}

/** What firing needs of the lifecycle (settings that change at run time are read each time). */
export interface FiringContext {
  readonly registry: ListenerRegistry;
  readonly journal: Journal;
  readonly dryRun: boolean;
  readonly listenerTimeoutMs: number;
}

export type FireNote = Pick<WebRequestEntry, 'wrtuiAdded' | 'madeBy' | 'ending' | 'inferred'>;

export class EventFiring {
  readonly #context: FiringContext;
  /** One per event, made once: dispatch's onLateFailure. */
  readonly #lateFailureReporters = new Map<WebRequestEventName, (outcome: ListenerOutcome) => void>();

  constructor(context: FiringContext) {
    this.#context = context;
  }

  /**
   * Whether anything hears `event` at all: a listener (of any request), or a journal subscriber that
   * reads it. When nothing does, the lifecycle need not build its details (issue #37).
   */
  heard(event: WebRequestEventName): boolean {
    return this.#context.registry.count(event) > 0 || this.#context.journal.reads(event);
  }

  /**
   * Fires a blocking event: listeners asked, verdicts merged, the entry journaled. With `only`, the
   * event fires for those personas' listeners alone, and is journaled only when one listens. When
   * the request ends before the answers come, the verdict is empty (the caller sees `finished`).
   */
  async fire(
    flight: FiringFlight | undefined,
    event: WebRequestEventName,
    details: WebRequestDetails,
    request: FilterableRequest,
    merge: { shownRequestHeaders?: HttpHeaders; shownResponseHeaders?: HttpHeaders; responseHeadersOwner?: string } = {},
    only?: PersonaFilter,
    note: FireNote = {},
    facts?: EventFacts,
  ): Promise<{ verdict: MergedVerdict; responseHeadersOwner?: string }> {
    const { registry, journal } = this.#context;
    const listeners = registry.listenersFor(event, request, only?.test);
    if (listeners.length === 0) {
      if (!only) {
        if (journal.reads(event)) journal.append({ kind: 'webRequest', event, details, outcomes: [], ...note });
      }
      else if (only.journalAlways) journal.append({ kind: 'webRequest', event, details, outcomes: [], firedFor: [] });
      return { verdict: {} };
    }
    if (flight) {
      for (const listener of listeners) {
        if (listener.blocking && listener.owner.persona.hasSecurityInfo) (flight.tracedBy ??= new Set()).add(listener.owner.id);
      }
    }
    const firedFor = only ? { firedFor: only.names } : {};
    const started = performance.now();
    const unanswered = flight ? new Set<RegisteredListener>() : undefined;
    const dispatched = dispatch(event, listeners, details, { ...this.#dispatchOptions(event, request), ...(unanswered && { unanswered }), ...(facts && { facts }) });
    let result: DispatchResult;
    if (dispatched instanceof Promise) {
      flight?.pace?.waiting();
      result = await this.#wait(flight, dispatched, (ending) =>
        journal.append({ kind: 'webRequest', event, details, outcomes: ignoredAnswers(unanswered!, event, ending, started), ...firedFor, ...note }),
      );
      if (flight?.pace) await flight.pace.resumed();
      // The request ended meanwhile: its event is journaled already, and nothing of it applies now.
      if (flight?.finished) return { verdict: {} };
    } else result = dispatched;
    const { answers, failures } = result;
    const merged = mergeVerdicts(answers, { event, dryRun: this.#context.dryRun, ...merge });
    const outcomes: ListenerOutcome[] = failures.length === 0 ? merged.outcomes : [...merged.outcomes, ...failures];
    journal.append({ kind: 'webRequest', event, details, outcomes, ...firedFor, ...note });
    for (const { owner, action } of merged.ignoredActions) owner.actionIgnored?.(details.requestId, action);
    return merged;
  }

  /**
   * Fires an event nobody can block (or whose blocking answers nobody waits for: onBeforeRequest of
   * a request declarativeNetRequest decided), synchronously, so its entry keeps its place in the journal.
   */
  notify(event: WebRequestEventName, details: WebRequestDetails, request: FilterableRequest, only?: PersonaFilter, note: FireNote = {}, skip?: (persona: Persona) => boolean, facts?: EventFacts): void {
    const test = skip ? (persona: Persona) => !skip(persona) && (!only || only.test(persona)) : only?.test;
    const listeners = this.#context.registry.listenersFor(event, request, test);
    if (only && listeners.length === 0) {
      if (only.journalAlways) this.#context.journal.append({ kind: 'webRequest', event, details, outcomes: [], firedFor: [] });
      return;
    }
    if (listeners.length === 0 && !this.#context.journal.reads(event)) return;
    const outcomes = listeners.length > 0 ? this.#unawaited(event, listeners, details, request, facts) : [];
    this.#context.journal.append({ kind: 'webRequest', event, details, outcomes, ...(only && { firedFor: only.names }), ...note });
  }

  /**
   * An event for some personas' listeners only, told later than the journaled one (Firefox's
   * onBeforeRedirect, once the client follows): no journal entry of its own, a failure is a log entry.
   */
  notifyLater(event: WebRequestEventName, details: WebRequestDetails, request: FilterableRequest, personas: (persona: Persona) => boolean): void {
    const listeners = this.#context.registry.listenersFor(event, request, personas);
    if (listeners.length === 0) return;
    const late = this.#dispatchOptions(event, request).onLateFailure;
    for (const failure of this.#unawaited(event, listeners, details, request)) late(failure);
  }

  /**
   * Dispatches without waiting: the failures known now. A blocking listener's pending answer is not
   * used; its failure, when one comes, is reported as a log entry (dispatch's Promise never becomes
   * the entry's outcomes: an entry's outcomes are always a list).
   */
  #unawaited(event: WebRequestEventName, listeners: readonly RegisteredListener[], details: WebRequestDetails, request: FilterableRequest, facts?: EventFacts): ListenerOutcome[] {
    const options: DispatchOptions = facts ? { ...this.#dispatchOptions(event, request), facts } : this.#dispatchOptions(event, request);
    const dispatched = dispatch(event, listeners, details, options);
    if (!(dispatched instanceof Promise)) return dispatched.failures;
    dispatched.then(({ failures }) => {
      for (const failure of failures) options.onLateFailure(failure);
    });
    return [];
  }

  /** Waits for the answers; the request ending meanwhile journals the event first (`journalNow`). */
  async #wait(flight: FiringFlight | undefined, dispatched: Promise<DispatchResult>, journalNow: (ending: string) => void): Promise<DispatchResult> {
    if (!flight) return dispatched;
    let journaled = false;
    const wait: EventWait = {
      journalNow(ending) {
        if (journaled) return;
        journaled = true;
        journalNow(ending);
      },
    };
    flight.waiting = wait;
    try {
      return await dispatched;
    } finally {
      if (flight.waiting === wait) flight.waiting = undefined;
    }
  }

  #dispatchOptions(event: WebRequestEventName, request: FilterableRequest): DispatchOptions & { onLateFailure: (outcome: ListenerOutcome) => void } {
    let onLateFailure = this.#lateFailureReporters.get(event);
    if (!onLateFailure) {
      onLateFailure = (outcome: ListenerOutcome) => this.#context.journal.append({ kind: 'log', level: 'warn', source: outcome.owner, message: `${event}: ${outcome.reason}` });
      this.#lateFailureReporters.set(event, onLateFailure);
    }
    return { timeoutMs: this.#context.listenerTimeoutMs, onLateFailure, request };
  }
}

/** The owners of the listeners still being waited for, their answers ignored: the request ended before they came. */
function ignoredAnswers(unanswered: ReadonlySet<RegisteredListener>, event: WebRequestEventName, ending: string, started: number): ListenerOutcome[] {
  const owners = new Set<string>();
  for (const listener of unanswered) owners.add(listener.owner.id);
  const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
  return [...owners].map((owner) => ({ owner, event, status: 'ignored', reason: `no answer before the request ended (${ending}); a later one is not used`, durationMs }));
}
