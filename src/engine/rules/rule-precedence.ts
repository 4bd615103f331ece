// The order among rules when their verdicts conflict (the engine's merge: the higher
// Owner.precedence wins, see merge-verdicts.ts).
//
//   1. manifest `precedence`, a number, default 0: higher wins;
//   2. between equal precedences, file name order: the file that sorts LATER wins.
//
// Why later wins: Chrome lets the extension installed last win conflicts, and wrtui installs rules
// in file-name order when it starts, so "later in the folder" is "installed later"; it is also how
// conf.d folders read (`90-override.ts` beats `10-base.ts`). Unlike Chrome, a reload is not a
// reinstall: saving a file must not silently change which rule wins, so the order depends only on
// the manifest and the file name, never on when a rule was (re)loaded.
import { compareRuleFiles } from './rule-files.js';

export interface RankedRule {
  file: string;
  /** The manifest's precedence, when it declares one. */
  declared: number | undefined;
}

/** Owner.precedence for each rule: 1 for the rule that loses every conflict, n for the one that wins them. */
export function rankRules(rules: readonly RankedRule[]): Map<string, number> {
  const ordered = [...rules].sort((a, b) => (a.declared ?? 0) - (b.declared ?? 0) || compareRuleFiles(a.file, b.file));
  return new Map(ordered.map((rule, index) => [rule.file, index + 1]));
}
