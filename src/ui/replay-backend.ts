// The TuiBackend of a replay: the journal of the run on screen (the replayed requests, then one
// replayDiff entry per request) read from memory; the rules view lists that run's rules and
// extensions, and the cookies view its cookie stores (live while it runs, as it left them once it
// ended). There is no proxy and nothing to edit in a finished run, so the commands that change
// what a rule does (reload, a rule's dry-run, the global dry-run, a quick rule written into the
// rules folder) re-run the session instead; cookie edits are refused, saying why. Exports are saved
// under the state directory.
import { addQuickRule, quickRulesDir, removeQuickRule } from '../engine/rules/quick-rules-file.js';
import { resolve } from 'node:path';
import type { JournalEntry } from '../engine/journal.js';
import type { RuleStatus } from '../engine/extensions/extension-host.js';
import type { ReplayRunView } from '../engine/session/replay-run-view.js';
import type { CookiesControl, RulesControl, QuickRulesControl, TuiBackend } from './backend.js';
import { saveExport, writeNewRule } from './session-backend.js';

export interface ReplayBackendOptions {
  /** The recording or HAR replayed, for the status bar. */
  file: string;
  /** Every entry, seq order, each delivered once to each subscriber (the latest run's). */
  entries: () => readonly JournalEntry[];
  stateDir: string;
  writeToTerminal: (data: string) => void;
  /** How many requests a run replays, and whether one is under way. */
  requests: number;
  running: () => boolean;
  /** The run on screen: its rules and cookies (undefined until the first run has loaded). */
  run: () => ReplayRunView | undefined;
  /** Calls `listener` when the run on screen changes, or its rules do. */
  onRunChange: (listener: () => void) => () => void;
  /** Re-runs the session (`why` goes to the log); resolves once that run has ended. */
  rerun: (why: string) => Promise<void>;
  /** The rules folder: a quick rule (w) is written there, and its watch re-runs the session with it. */
  rulesDir?: string;
  /** Puts a problem of the UI's own in the log on screen (TuiBackend.reportProblem). */
  reportProblem?: (message: string) => void;
  /** The dry-run switches: the global one, and one rule's over what its file says. Each change re-runs. */
  dryRun: {
    get(): boolean;
    set(on: boolean): void;
    setFor(name: string, on: boolean): void;
  };
}

/** Why a replay's cookies cannot be edited, said where the user tried. */
export const REPLAY_COOKIES_READ_ONLY = "these are the cookies the replay's requests left; edit a rule and save to re-run instead";

export function createReplayBackend(options: ReplayBackendOptions): TuiBackend {
  const stateDir = resolve(options.stateDir);
  return {
    mode: 'replay',
    source: options.file,
    replayRun: { total: options.requests, running: options.running },
    proxyUrl: '',
    incognitoProxyUrl: undefined,
    ca: undefined,
    stateDir,
    journal: {
      subscribe(subscriber) {
        for (const entry of options.entries()) subscriber(entry);
        return () => {};
      },
    },
    getDryRun: options.dryRun.get,
    setDryRun: options.dryRun.set,
    explainDnr: (request) => options.run()?.explainDnr(request) ?? { rules: [], urlMisses: 0 },
    dnrRuleMatches: (rule, request) => options.run()?.dnrRuleMatches(rule, request) ?? false,
    rules: replayRules(options),
    cookies: replayCookies(options),
    saveExport: (fileName, text) => saveExport(stateDir, fileName, text),
    writeToTerminal: options.writeToTerminal,
    ...(options.reportProblem && { reportProblem: options.reportProblem }),
  };
}

function replayRules(options: ReplayBackendOptions): RulesControl {
  const statusOf = (name: string): RuleStatus => {
    const status = options.run()?.rules().find((rule) => rule.name === name);
    if (!status) throw new Error(`no rule or extension named ${JSON.stringify(name)} in this replay`);
    return status;
  };
  return {
    ...(options.rulesDir !== undefined && { dir: options.rulesDir }),
    list: () => options.run()?.rules() ?? [],
    onChange: options.onRunChange,
    async reload(name) {
      statusOf(name);
      await options.rerun(`${name} reloaded`);
      return statusOf(name);
    },
    setDryRun(name, on) {
      const status = statusOf(name);
      options.dryRun.setFor(name, on);
      // What the re-run under way will show.
      return { ...status, dryRun: on };
    },
    ...(options.rulesDir !== undefined && { writeRule: (name: string, source: string) => writeNewRule(options.rulesDir!, name, source) }),
    // Written only: the folder's watch re-runs the session with it.
    ...(options.rulesDir !== undefined && {
      quick: {
        dir: quickRulesDir(options.rulesDir),
        status: () => options.run()?.quickRules(),
        add: (rule) => addQuickRule(quickRulesDir(options.rulesDir!), rule),
        remove: (id) => removeQuickRule(quickRulesDir(options.rulesDir!), id),
      } satisfies QuickRulesControl,
    }),
  };
}

function replayCookies(options: ReplayBackendOptions): CookiesControl {
  return {
    get storeIds() {
      return options.run()?.storeIds ?? ['0'];
    },
    list: (storeId) => options.run()?.cookies(storeId) ?? [],
    remove: () => Promise.reject(new Error(REPLAY_COOKIES_READ_ONLY)),
    setValue: () => Promise.reject(new Error(REPLAY_COOKIES_READ_ONLY)),
  };
}
