// The messages between the proxy thread (the host) and one extension's worker.
//
// Every postMessage carries a batch: an array of the items below, gathered during one turn of the
// sender's event loop, so that ten events of one request, or the answers to them, cost one
// message and one wake-up of the other thread. Items are tuples with a string tag first: cheap to
// clone and still readable in a debugger. Details objects travel as JSON text: one stringify on
// the proxy thread serves every listener of the worker, and the worker parses it with the JSON of
// the extension's own realm, so listeners get objects of their own realm (as in a browser).
//
// Hand-written rather than birpc or Comlink: both are built for request/response calls with
// Promise bookkeeping per call, which the blocking events need, but the observing events (most of
// them) need no answer and the per-event cost is what the benchmark measures. See
// docs/extensions-and-host.md, "Extension host", for the figures.
import type { ExtensionFetchRequest, ExtensionFetchResponse } from './extension-network.js';
import type { LocaleMessages } from './locale-messages.js';
import type { PageBoot } from './worker/page-dom.js';
import type { WebRequestEventName } from '../types.js';

/** What the host tells a new worker (its workerData). */
export interface WorkerBoot {
  /** runtime.id */
  extensionId: string;
  /** The owner id in the journal: the rule's or extension's name. */
  name: string;
  kind: 'rule' | 'extension';
  /** For extensions: the parsed manifest.json (runtime.getManifest()). Rules report theirs. */
  manifest: Record<string, unknown> | undefined;
  /** Permissions the extension's manifest grants (extensions; rules learn theirs from their module). */
  permissions: string[];
  hostPermissions: string[];
  /** The extension's folder (extensions) or the rule file's folder. */
  rootDir: string;
  /** `chrome-extension://<id>/`: runtime.getURL and self.location. */
  baseUrl: string;
  /** What runs, in order, in one global scope. */
  scripts: ScriptUnit[];
  /** Rules: the CJS bundle whose default export is the background. */
  rule: ScriptUnit | undefined;
  /** A background page's (background.page, background.scripts) HTML, from the package. */
  pageHtml?: string;
  /** A background page's document: its HTML and the DOM its realm runs on first use (the host adds it). */
  page?: PageBoot;
  /** A background page's localStorage as the host kept it. */
  localStorage?: Record<string, string>;
  /** IndexedDB's databases as the host kept them (a v8-serialised snapshot, indexed-db-contract.ts). */
  indexedDb?: Uint8Array;
  /** Whether runtime.onInstalled fires once the top level ran, and with which reason. */
  installReason: 'install' | 'update' | undefined;
  previousVersion: string | undefined;
  /** Non-blocking console calls and timers run at most this long before being reported (ms). */
  backgroundTimeoutMs: number;
  /** Extensions: their _locales messages (chrome.i18n). */
  messages?: LocaleMessages;
  /** The persona: the host's choice for an extension; for a rule, `--persona` (its manifest's `persona` key wins). */
  persona: 'spec' | 'chrome' | 'firefox' | undefined;
  /** A browser wrtui started is attached (`wrtui browser`): tabs and navigation events come from it. */
  attachedBrowser?: boolean;
}

/** One script of the background: read from `file`, or given as `code` (a bundle) with its source map. */
export interface ScriptUnit {
  /** The path stack traces name (the real file, or the bundle's made-up path). */
  file: string;
  code?: string;
  /** A bundle's source map (sources are absolute paths). */
  map?: unknown;
  /** The file the user wrote, when `file` is a bundle of it (a rule's .ts file). */
  source?: string;
}

/** A listener's result for one event: [listener id, outcome, value or message, location?]. */
export type ListenerResult =
  | [lid: number, outcome: 'value', value: unknown]
  | [lid: number, outcome: 'threw' | 'rejected' | 'invalid', message: string, location?: string];

/** host → worker */
export type HostItem =
  /** An event for some of the worker's listeners; `call` 0 = nobody waits for the answer. */
  | ['event', call: number, event: WebRequestEventName, lids: number[], details: string]
  /** The answer to the worker's `call`. */
  | ['reply', id: number, ok: boolean, value: unknown]
  /** The answer to the worker's `fetch`: the response's head, or the TypeError's message (`direct`: no proxy here, Node's own fetch serves it). */
  | ['fetched', id: number, response: ExtensionFetchResponse | undefined, failure?: string]
  /** The response's body as it arrives, decoded; the host sends at most FETCH_WINDOW_BYTES the worker has not read. */
  | ['fetchBody', id: number, chunk: Uint8Array]
  /** The body is whole, or broke off (what reading it rejects with: a TypeError, or a DOMException of that name). */
  | ['fetchEnd', id: number, failure?: [name: string, message: string]]
  /** A cookie change the extension's cookies.onChanged listeners may see. */
  | ['cookieChanged', info: string]
  | ['alarm', alarm: unknown]
  /** A tab counted from traffic for the first time: tabs.onCreated, the tab as this extension may see it (JSON). */
  | ['tabCreated', tab: string]
  /** An attached browser's tab or navigation event: tabs.onUpdated, tabs.onRemoved, webNavigation.onCommitted, …, its arguments as JSON. */
  | ['surfaceEvent', event: string, args: string]
  /** storage.local changed outside the extension (its file was edited): the changes, as JSON. */
  | ['storageChanged', area: 'local', changes: string]
  /** declarativeNetRequest.onRuleMatchedDebug's MatchedRuleInfoDebug, as JSON. */
  | ['dnrMatched', info: string]
  | ['ping', n: number]
  /** Chrome's webRequest.onActionIgnored: one of the extension's answers lost to another's. */
  | ['actionIgnored', requestId: string, action: string]
  /** wrtui is closing: save IndexedDB's databases now (the worker answers with the call indexedDB.saved). */
  | ['indexedDbSave']
  /** runtime.onInstalled / onStartup, once the top level ran. */
  | ['lifecycle', event: 'onInstalled' | 'onStartup', details: unknown]
  /** A StreamFilter (webRequest.filterResponseData) the worker made: the body starts, a chunk of it, its end, or the filter failed. */
  | ['filterStart', fid: number]
  | ['filterData', fid: number, chunk: Uint8Array]
  | ['filterStop', fid: number]
  | ['filterError', fid: number, message: string];

/** worker → host */
export type WorkerItem =
  /** A rule's `manifest` export, before its background runs (the host checks it too). */
  | ['manifest', manifest: unknown]
  | ['add', lid: number, event: WebRequestEventName, filter: unknown, extraInfoSpec: string[]]
  | ['remove', lid: number]
  | ['answers', call: number, results: ListenerResult[]]
  /** A non-blocking listener failed (nobody waited for it). */
  | ['lateFailure', event: WebRequestEventName, requestId: string, message: string, location?: string]
  | ['call', id: number, method: string, args: unknown[]]
  /** The extension's own request to the network (fetch, XMLHttpRequest): sent through the proxy's lifecycle (extension-network.ts). */
  | ['fetch', id: number, request: ExtensionFetchRequest]
  /** The extension read `bytes` more of fetch `id`'s body: the host may send that much more. */
  | ['fetchRead', id: number, bytes: number]
  /** The extension gave up on the body (cancelled its stream, or the status has none): the request ends. */
  | ['fetchCancel', id: number]
  | ['cookieListeners', count: number]
  /** How many listeners an event without a host-side registry has now (cookies.onChanged, runtime.onInstalled …), for the Rules view. */
  | ['eventListeners', event: string, count: number]
  /** Its toolbar button's badge text now: the button's own, and each tab's that has one (toolbar-button.ts). */
  | ['badge', text: string, byTab: Record<number, string>]
  | ['log', level: 'debug' | 'info' | 'warn' | 'error', message: string]
  /** An uncaught exception or unhandled rejection: reported, the worker goes on, as in a browser. */
  | ['uncaught', what: 'exception' | 'rejection', message: string, location?: string]
  /** What a call to one of the browser's own surfaces did here (tabs.onUpdated never fires): said once per extension (surface-notes.ts). */
  | ['surfaceNote', api: string, note: string]
  /** The extension reached for an API wrtui does not have, or one its manifest does not grant (`permission`); once per name. */
  | ['missing', name: string, permission?: string]
  | ['pong', n: number, heapUsed: number]
  | ['ready']
  /** runtime.reload(): reload the extension as a save in its folder would. */
  | ['reload']
  | ['loadFailed', message: string, location?: string]
  /** webRequest.filterResponseData(requestId): a new StreamFilter, numbered by the worker. */
  | ['filterCreate', fid: number, requestId: string]
  /** filter.write(data): bytes for the client (or the next filter). */
  | ['filterWrite', fid: number, bytes: Uint8Array]
  /** `bytes` of the filter's data handled (dispatched, or handed back after a disconnect): the host may send more. */
  | ['filterAck', fid: number, bytes: number]
  | ['filterCall', fid: number, method: 'close' | 'disconnect' | 'suspend' | 'resume'];

/**
 * How much of an extension's own response body may wait in its worker unread: a small response
 * completes whether or not the extension reads it, and a large one waits for the reader instead of
 * filling memory. wrtui's choice of bound, not compared with a browser's buffering.
 */
export const FETCH_WINDOW_BYTES = 1024 * 1024;

/** The answer to a call an extension's worker makes of the host (a cookies or tabs call …). */
export type HostReply = { ok: true; value: unknown } | { ok: false; error: string };
