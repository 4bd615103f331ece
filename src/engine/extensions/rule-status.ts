// What the UI and the CLI see of a rule or an extension (ExtensionHost.rules()).
import type { RuntimeEntry } from '../journal.js';
import type { DnrEngine } from '../dnr/dnr-engine.js';
import type { PersonaName } from '../personas/index.js';
import type { TypeDiagnostic } from '../rules/rule-type-checker.js';
import type { QuotaState } from '../web-request/handler-behavior-changed.js';
import type { ListenerDescription } from '../web-request/listener-registry.js';

export type RuleState = 'active' | 'failed' | 'unloaded';
export type RuntimeState = RuntimeEntry['state'];

export interface RuleProblem {
  message: string;
  /** `file:line:col` in the rule, the extension or a helper, when known. */
  location?: string;
}

/** What the UI and the CLI see of a rule or an extension. */
export interface RuleStatus {
  name: string;
  /** The rule file, or the extension's folder. */
  file: string;
  kind: 'rule' | 'extension';
  /** runtime.id */
  extensionId: string | undefined;
  /** The browser whose interface it sees. */
  persona: PersonaName;
  /**
   * active: a version is loaded (when `error` is set too, the newest edit failed and the last good
   * version stays); failed: no version runs (loading failed, or it crashed for good); unloaded:
   * the file or folder is gone.
   */
  state: RuleState;
  dryRun: boolean;
  /** Owner.precedence: higher wins conflicts (undefined while no version runs). */
  precedence: number | undefined;
  /** The manifest's own precedence, when it declares one. */
  declaredPrecedence?: number;
  error?: RuleProblem;
  /** Successful loads after the first (restarts after faults not counted). */
  reloadCount: number;
  listeners: ListenerDescription[];
  /** Listeners of its other events (cookies.onChanged, runtime.onInstalled, alarms.onAlarm …), by event. */
  eventListeners: { event: string; count: number }[];
  quota: QuotaState;
  /** Epoch ms of the last successful load. */
  lastLoadedAt: number | undefined;
  /** The latest type check's errors (they do not stop the rule). */
  typeErrors: TypeDiagnostic[];
  /** Its declarativeNetRequest rulesets and rule counts (extensions with the permission). */
  declarativeNetRequest?: NonNullable<ReturnType<DnrEngine['describe']>>;
  /** chrome.storage (with the permission): storage.local's file (none without a state dir) and each area's item count. */
  storage?: { file: string | undefined; local: number; session: number };
  /** Its toolbar button's badge text (extensions with a button that set one): the button's own, and each tab's. */
  badge?: { text: string; byTab: Readonly<Record<number, string>> };
  /** The requests it made itself (fetch, XMLHttpRequest) since it was first loaded, and how many of them failed. */
  ownRequests?: { made: number; failed: number };
  /** Its worker. */
  runtime: {
    state: RuntimeState;
    /** Restarts after faults since the last change of its files. */
    restarts: number;
    /** Bytes of its worker's heap in use (as of the last heartbeat). */
    heapUsedBytes: number;
    /** It may use Node's APIs (a rule with `node: true`). */
    node: boolean;
    /** It shares its worker with other rules (heapUsedBytes is then the shared worker's). */
    shared?: boolean;
    /** The last fault, when it had one. */
    fault?: { reason: string; location?: string; doing?: RuntimeEntry['doing']; at: number };
  };
}
