// Predict and verify, one recorded event at a time: the event goes to the listeners that would get
// it now (routed on the host by their filters, as the lifecycle routes), with the recorded details;
// their answers are checked and merged exactly as the lifecycle merges them, and the outcomes are
// compared with the recorded ones (what a replay's diff compares: event-signature.ts sameEvent).
// No RequestFlight, no trace, no diff: while every event of a request matches its prediction, the
// lifecycle would have produced the recorded entries again, so the request is identical by
// construction.
//
// Sending is synchronous (dispatch() queues the event in each worker's outbox); so a caller that
// verifies a few hundred requests' events in one turn sends them as one message per worker, in
// recorded order.
import type { ListenerOutcome, WebRequestEntry } from '../journal.js';
import type { MergeContext } from '../web-request/merge-verdicts.js';
import { mergeVerdicts } from '../web-request/merge-verdicts.js';
import { dispatch, type DispatchResult } from '../web-request/dispatch.js';
import type { ListenerRegistry } from '../web-request/listener-registry.js';
import type { FilterableRequest } from '../web-request/request-filter.js';
import type { HttpHeaders, WebRequestDetails } from '../types.js';
import { specPersona } from '../personas/index.js';
import { sameOutcomes } from './same-outcomes.js';
import type { RecordedRequest } from '../session/recorded-session.js';

/** Why a prediction did not hold, in words for the report. */
export interface Mismatch {
  /** The recorded requestId. */
  requestId: string;
  event: string;
  reason: string;
}

/** What one request's verification keeps between its events. */
interface RequestState {
  filterable: FilterableRequest;
  url: string;
  /** The owner that changed this request's responseHeaders (merge rule 4 spans the request's events). */
  responseHeadersOwner: string | undefined;
}

export interface VerifierContext {
  registry: ListenerRegistry;
  dryRun: boolean;
  listenerTimeoutMs: number;
  /** A non-blocking listener's failure that came after its event: journaled as the lifecycle does. */
  onLateFailure: (outcome: ListenerOutcome) => void;
}

export class EventVerifier {
  readonly #context: VerifierContext;
  readonly #requests = new Map<string, RequestState>();

  constructor(context: VerifierContext) {
    this.#context = context;
  }

  /**
   * Sends `entry`'s event to the listeners it would reach now, with `details` (the recorded ones,
   * under the replay's requestId). Returns undefined when the answers are known already (no
   * blocking listener), else a Promise; either way a Mismatch when the outcomes differ from the
   * recorded ones, or when the event is one the fast path cannot judge.
   */
  verify(entry: WebRequestEntry, details: WebRequestDetails, request: RecordedRequest): Mismatch | undefined | Promise<Mismatch | undefined> {
    const recordedId = entry.details.requestId;
    const fail = (reason: string): Mismatch => ({ requestId: recordedId, event: entry.event, reason });
    // An event fired for some personas only (Firefox's retry events, …): the slow path knows which.
    if (entry.firedFor !== undefined && entry.firedFor.length > 0) return fail(`${entry.event} fired for ${entry.firedFor.join(', ')} only`);
    let state = this.#requests.get(recordedId);
    if (!state || state.url !== details.url) {
      let url: URL;
      try {
        url = new URL(details.url);
      } catch {
        return fail(`its URL ${details.url} does not parse`);
      }
      // What the lifecycle's filters see of a replayed request (lifecycle.ts #filterableAt): its
      // recorded type, tab and store; a request an extension made itself goes to the slow path.
      if (request.madeBy) return fail(`an extension's own request (${request.madeBy.extension})`);
      const filterable: FilterableRequest = { url, type: request.type, tabId: request.tabId, windowId: -1, storeId: request.storeId };
      state = { filterable, url: details.url, responseHeadersOwner: state?.responseHeadersOwner };
      this.#requests.set(recordedId, state);
    }
    if (entry.firedFor !== undefined) {
      // Recorded as fired for nobody: it still must reach nobody.
      return entry.outcomes.length === 0 ? undefined : fail('a persona-only event with outcomes');
    }
    const listeners = this.#context.registry.listenersFor(entry.event, state.filterable);
    for (const listener of listeners) {
      if (listener.owner.persona !== specPersona) return fail(`${listener.owner.id} runs under the ${listener.owner.persona.name} persona`);
      if (!listener.remote) return fail(`${listener.owner.id} is not in a worker`);
    }
    if (listeners.length === 0) return entry.outcomes.length === 0 ? undefined : fail('no listener gets it now');
    const dispatched = dispatch(entry.event, listeners, details, { timeoutMs: this.#context.listenerTimeoutMs, onLateFailure: this.#context.onLateFailure, request: state.filterable });
    const judge = (result: DispatchResult) => this.#judge(entry, details, state!, result, fail);
    return dispatched instanceof Promise ? dispatched.then(judge) : judge(dispatched);
  }

  /** The request ended: nothing of it is kept. */
  forget(recordedId: string): void {
    this.#requests.delete(recordedId);
  }

  #judge(entry: WebRequestEntry, details: WebRequestDetails, state: RequestState, result: DispatchResult, fail: (reason: string) => Mismatch): Mismatch | undefined {
    const shown = details as unknown as { requestHeaders?: HttpHeaders; responseHeaders?: HttpHeaders };
    const context: MergeContext = { event: entry.event, dryRun: this.#context.dryRun };
    if (entry.event === 'onBeforeSendHeaders' && shown.requestHeaders) context.shownRequestHeaders = shown.requestHeaders;
    if (entry.event === 'onHeadersReceived' && shown.responseHeaders) {
      context.shownResponseHeaders = shown.responseHeaders;
      if (state.responseHeadersOwner !== undefined) context.responseHeadersOwner = state.responseHeadersOwner;
    }
    const merged = mergeVerdicts(result.answers, context);
    if (entry.event === 'onHeadersReceived') state.responseHeadersOwner ??= merged.responseHeadersOwner;
    const outcomes = result.failures.length === 0 ? merged.outcomes : [...merged.outcomes, ...result.failures];
    for (const { owner, action } of merged.ignoredActions) owner.actionIgnored?.(details.requestId, action);
    if (!sameOutcomes(entry.outcomes, outcomes)) return fail(`its outcomes differ from the prediction`);
    return undefined;
  }
}
