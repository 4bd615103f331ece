// The rules view's lines for quick rules: one row per rule of quick-rules/rules.json (what it
// does, to which URL, dry-run), and the selected one in full (where it is in the file, the last
// edit's error, its JSON). They have no worker: the DNR engine applies them on the proxy thread.
import { relative } from 'node:path';
import type { DnrRule } from '../../engine/dnr/dnr-types.js';
import type { QuickRuleEntry, QuickRulesetStatus } from '../../engine/rules/quick-ruleset.js';
import { formatClock } from '../format.js';
import { blank, heading, line, type StyledLine } from '../detail/styled-line.js';
import { exactUrlOf } from '../quick-rules/quick-rule-code.js';

/** The row's name for a quick rule (what the selection is kept by). */
export function quickRuleName(entry: QuickRuleEntry | undefined): string {
  return entry ? `quick #${entry.rule.id}` : 'quick-rules';
}

/** What the rule does, in a few words: "block", "redirect → URL", "answer answers/1-mock.json", "set header X: 1". */
export function describeQuickAction(rule: DnrRule): string {
  const { action } = rule;
  switch (action.type) {
    case 'redirect': {
      const redirect = action.redirect ?? {};
      if (redirect.extensionPath !== undefined) return `answer from ${redirect.extensionPath.replace(/^\/+/, '')}`;
      if (redirect.url !== undefined) return `redirect → ${redirect.url}`;
      return 'redirect (transform)';
    }
    case 'modifyHeaders': {
      const change = (side: string, list: DnrRule['action']['requestHeaders']) =>
        (list ?? []).map((item) => `${item.operation} ${side}${item.header}${item.value !== undefined ? `: ${item.value}` : ''}`);
      return [...change('', action.requestHeaders), ...change('response ', action.responseHeaders)].join(', ') || 'modifyHeaders';
    }
    default:
      return action.type;
  }
}

/** Which requests: the one URL (as w writes it), else the condition's URL filter. */
export function describeQuickCondition(rule: DnrRule): string {
  const exact = exactUrlOf(rule);
  if (exact !== undefined) return exact;
  const { urlFilter, regexFilter } = rule.condition;
  return urlFilter !== undefined ? `urlFilter ${urlFilter}` : regexFilter !== undefined ? `regexFilter ${regexFilter}` : 'every URL';
}

export function quickRuleRow(entry: QuickRuleEntry | undefined, status: QuickRulesetStatus, nameWidth: number, width: number): StyledLine {
  const name = quickRuleName(entry);
  const wide = width >= 110;
  return line(
    ' ',
    status.error ? (entry ? { text: '! failing ', color: 'yellow', bold: true } : { text: '× failed  ', color: 'red', bold: true }) : { text: '● active  ', color: 'green' },
    ' ',
    { text: name.length > nameWidth ? `${name.slice(0, nameWidth - 1)}…` : name.padEnd(nameWidth), bold: true },
    ' ',
    { text: wide ? '◇ declarative, no worker ' : '◇ DNR ', color: 'blue' },
    status.dryRun ? { text: 'dry-run ', color: 'yellow' } : { text: 'live    ', color: 'green' },
    entry ? { text: describeQuickAction(entry.rule), color: 'magenta' } : { text: status.error?.message.split('\n')[0] ?? '', color: 'red' },
    entry && { text: `  ${describeQuickCondition(entry.rule)}`, dim: true },
  );
}

export function quickRuleDetailLines(entry: QuickRuleEntry | undefined, status: QuickRulesetStatus, rulesDir: string | undefined): StyledLine[] {
  const lines: StyledLine[] = [];
  const file = rulesDir ? relative(rulesDir, status.file) || status.file : status.file;
  lines.push(
    line(
      { text: quickRuleName(entry), bold: true },
      { text: `  ${file}${entry?.line !== undefined ? `:${entry.line}` : ''}`, dim: true },
      entry && { text: `  ruleset ${entry.rulesetId}`, dim: true },
      status.lastLoadedAt !== undefined && { text: `  loaded ${formatClock(status.lastLoadedAt)}`, dim: true },
    ),
  );
  if (status.error) {
    lines.push(line({ text: status.state === 'active' ? 'The last edit failed; the previous version keeps acting:' : 'Failed to load:', color: 'red', bold: true }));
    for (const text of status.error.message.split('\n')) lines.push(line({ text: `  ${text}`, color: 'red' }));
    if (status.error.location) lines.push(line({ text: '  at ', dim: true }, { text: status.error.location, color: 'cyan' }));
  }
  lines.push(line({ text: 'Worker  ', dim: true }, { text: 'none', color: 'blue' }, { text: '  a declarativeNetRequest rule: applied on the proxy thread, no message round trip', dim: true }));
  if (entry) {
    lines.push(line({ text: 'Does    ', dim: true }, { text: describeQuickAction(entry.rule), color: 'magenta' }, status.dryRun ? { text: '  (dry-run: journaled as would …, not applied)', color: 'yellow' } : ''));
    lines.push(line({ text: 'To      ', dim: true }, describeQuickCondition(entry.rule)));
    lines.push(blank, heading('As written'));
    for (const text of JSON.stringify(entry.rule, null, 2).split('\n')) lines.push(line({ text: `  ${text}`, color: 'cyan' }));
  }
  lines.push(blank);
  lines.push(line({ text: `c: edit as code (a .ts rule file, run in a worker; the rule leaves ${file}) · d: dry-run for every quick rule · r: read the file again`, dim: true }));
  lines.push(line({ text: "A request's Rules tab says which rules acted on it and why the others did not; filter with dnr: (dnr:block, dnr:quick#1).", dim: true }));
  return lines;
}
