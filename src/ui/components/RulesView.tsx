// The rules view: every rule file with its state, dry-run, listeners, reloads, quota meter and
// type errors, then the quick rules (declarative, no worker); below, the selected one in full.
// r reloads it, d toggles its dry-run, enter gives its details (error, listeners, type errors)
// the whole lower part, c turns a quick rule into a rule file.
import { Box } from 'ink';
import { dirname } from 'node:path';
import { useMemo, type Dispatch, type SetStateAction } from 'react';
import type { RuleStatus } from '../../engine/extensions/extension-host.js';
import type { QuickRuleEntry, QuickRulesetStatus } from '../../engine/rules/quick-ruleset.js';
import { renderLine } from '../ansi.js';
import type { TuiBackend } from '../backend.js';
import type { CommandName } from '../commands/command-table.js';
import { line, wrapLines } from '../detail/styled-line.js';
import { useViewCommands } from '../hooks/use-view-commands.js';
import { moveWindow, pageWindow, placeWindow } from '../list/list-window.js';
import { ruleDetailLines, ruleRow } from '../rules/rule-lines.js';
import { quickRuleDetailLines, quickRuleName, quickRuleRow } from '../rules/quick-rule-lines.js';
import { quickRuleCode } from '../quick-rules/quick-rule-code.js';
import type { RulesState } from '../rules/rules-state.js';
import { useUiActions } from '../ui-actions.js';
import { LinesView } from './LinesView.js';
import { FixedLine } from './FixedLine.js';

export interface RulesViewProps {
  backend: TuiBackend;
  rules: readonly RuleStatus[];
  state: RulesState;
  setState: Dispatch<SetStateAction<RulesState>>;
  width: number;
  height: number;
  now: number;
  active: boolean;
}

/** A row of the view: a rule file or extension, or a quick rule (entry undefined: the quick ruleset failed with none in effect). */
type RulesItem = { kind: 'host'; name: string; status: RuleStatus } | { kind: 'quick'; name: string; entry: QuickRuleEntry | undefined; ruleset: QuickRulesetStatus };

function rulesItems(rules: readonly RuleStatus[], quick: QuickRulesetStatus | undefined): RulesItem[] {
  const items: RulesItem[] = rules.map((status) => ({ kind: 'host', name: status.name, status }));
  if (quick) {
    for (const entry of quick.rules) items.push({ kind: 'quick', name: quickRuleName(entry), entry, ruleset: quick });
    if (quick.rules.length === 0 && quick.error) items.push({ kind: 'quick', name: quickRuleName(undefined), entry: undefined, ruleset: quick });
  }
  return items;
}

export function RulesView({ backend, rules: hostRules, state, setState, width, height, now, active }: RulesViewProps) {
  const actions = useUiActions();
  const quickStatus = backend.rules?.quick?.status();
  const rules = rulesItems(hostRules, quickStatus);
  const byName = state.selected === undefined ? -1 : rules.findIndex((rule) => rule.name === state.selected);
  const selectedIndex = byName >= 0 ? byName : Math.min(state.index, rules.length - 1);
  const selectedItem = rules[selectedIndex];
  const selected = selectedItem?.kind === 'host' ? selectedItem.status : undefined;

  const listRows = state.expanded ? Math.min(3, rules.length || 1) : Math.max(1, Math.min(rules.length || 1, Math.floor((height - 2) * 0.45)));
  const detailsHeight = Math.max(1, height - 2 - listRows);
  const listWindow = placeWindow(selectedIndex, state.offset, listRows, rules.length);
  // The folder the control names; without one (a test's fake), the first rule file's.
  const rulesDir = backend.rules?.dir ?? (hostRules[0]?.kind === 'rule' ? dirname(hostRules[0].file) : undefined);
  const details = useMemo(
    () =>
      wrapLines(
        selectedItem?.kind === 'quick' ? quickRuleDetailLines(selectedItem.entry, selectedItem.ruleset, rulesDir) : ruleDetailLines(selected, rulesDir, now, hostRules.filter((rule) => rule.precedence !== undefined).length),
        width - 1,
      ),
    [selectedItem, selected, rulesDir, now, width, hostRules],
  );
  const maxDetailsTop = Math.max(0, details.length - detailsHeight);

  const select = (next: ReturnType<typeof placeWindow>) =>
    setState((s) => ({ ...s, selected: rules[next.index]?.name, index: next.index, offset: next.offset, detailsTop: 0 }));

  useViewCommands('rules', active, (command: CommandName) => {
    const control = backend.rules;
    switch (command) {
      case 'move.up':
        return select(moveWindow(listWindow, -1, listRows, rules.length));
      case 'move.down':
        return select(moveWindow(listWindow, 1, listRows, rules.length));
      case 'page.up':
        return state.expanded ? setState((s) => ({ ...s, detailsTop: Math.max(0, s.detailsTop - detailsHeight) })) : select(pageWindow(listWindow, -1, listRows, rules.length));
      case 'page.down':
        return state.expanded ? setState((s) => ({ ...s, detailsTop: Math.min(maxDetailsTop, s.detailsTop + detailsHeight) })) : select(pageWindow(listWindow, 1, listRows, rules.length));
      case 'move.top':
        return select(placeWindow(0, 0, listRows, rules.length));
      case 'move.bottom':
        return select(placeWindow(rules.length - 1, listRows - 1, listRows, rules.length));
      case 'rules.details':
        return setState((s) => ({ ...s, expanded: !s.expanded, detailsTop: 0 }));
      case 'rules.reload': {
        if (selectedItem?.kind === 'quick') {
          const quick = control?.quick;
          if (!quick?.reload) return actions.notify('The quick rules are read again when the session re-runs', 'warn');
          quick.reload().then(
            (status) => (status.error ? actions.notify(`quick rules: ${status.error.message.split('\n')[0]}${status.error.location ? ` (${status.error.location})` : ''}`, 'error') : actions.notify(`${status.file} read: ${status.rules.length} quick rule${status.rules.length === 1 ? '' : 's'}`)),
            (error: unknown) => actions.notify(`quick rules: ${(error as Error).message}`, 'error'),
          );
          return;
        }
        if (!control || !selected) return actions.notify('No rule selected', 'warn');
        const name = selected.name;
        actions.notify(`Reloading ${name}…`);
        control.reload(name).then(
          (status) =>
            status.error
              ? actions.notify(`${name}: reload failed: ${status.error.message.split('\n')[0]}${status.error.location ? ` (${status.error.location})` : ''}`, 'error')
              : actions.notify(`${name} reloaded (hbc ${status.quota.used}/${status.quota.limit})`),
          (error: unknown) => actions.notify(`${name}: ${(error as Error).message}`, 'error'),
        );
        return;
      }
      case 'rules.dryRun': {
        if (selectedItem?.kind === 'quick') {
          const quick = control?.quick;
          if (!quick?.setDryRun) return actions.notify('Dry-run of the quick rules is not available here', 'warn');
          const status = quick.setDryRun(!selectedItem.ruleset.dryRun);
          return actions.notify(`quick rules: dry-run ${status.dryRun ? 'on (matches journaled as would …, not applied)' : 'off (applied)'}`);
        }
        if (!control || !selected) return actions.notify('No rule selected', 'warn');
        try {
          const status = control.setDryRun(selected.name, !selected.dryRun);
          actions.notify(`${status.name}: dry-run ${status.dryRun ? 'on (verdicts journaled, not applied)' : 'off (verdicts applied)'}`);
        } catch (error) {
          actions.notify((error as Error).message, 'error');
        }
        return;
      }
      case 'rules.editAsCode': {
        if (selectedItem?.kind !== 'quick' || !selectedItem.entry) return actions.notify('c turns a quick rule into a rule file: select one (quick #N)', 'warn');
        const quick = control?.quick;
        const write = control?.writeRule;
        if (!quick || !write) return actions.notify('Edit as code needs a rules folder (--rules)', 'warn');
        const rule = selectedItem.entry.rule;
        void quickRuleCode(rule, quick.dir).then(async (made) => {
          if (!made.ok) return actions.notify(`Not turned into code: ${made.error}`, 'error');
          try {
            // The file first: should taking the rule out of the JSON fail, both act, and nothing is lost.
            const path = await write(made.code.name, made.code.source);
            await quick.remove(rule.id);
            actions.notify(`Quick rule ${rule.id} is now ${path} (a rule file, in a worker); it left rules.json`);
          } catch (error) {
            actions.notify(`Could not turn quick rule ${rule.id} into code: ${(error as Error).message}`, 'error');
          }
        });
        return;
      }
      default:
        return;
    }
  });

  const failing = hostRules.filter((rule) => rule.state === 'failed' || rule.error).length + (quickStatus?.error ? 1 : 0);
  const quickCount = quickStatus?.rules.length ?? 0;
  const title = line(
    { text: ' Rules ', bold: true, inverse: true },
    ` ${hostRules.length} file${hostRules.length === 1 ? '' : 's'} · ${hostRules.filter((rule) => rule.state === 'active' && !rule.error).length} active`,
    quickCount > 0 && ` · ${quickCount} quick rule${quickCount === 1 ? '' : 's'} (no worker)`,
    failing > 0 ? { text: ` · ${failing} failing`, color: 'red', bold: true } : '',
    { text: `  hBC = handlerBehaviorChanged calls left of ${hostRules[0]?.quota.limit ?? 20} in any 10 minutes`, dim: true },
    rulesDir ? { text: `  ${rulesDir}`, dim: true } : '',
    !backend.rules && { text: '  (no rule host in this session)', dim: true },
  );
  const nameWidth = Math.min(width >= 110 ? 28 : 20, Math.max(8, ...rules.map((rule) => rule.name.length)));
  const rowOf = (item: RulesItem) => (item.kind === 'host' ? ruleRow(item.status, nameWidth, now, width) : quickRuleRow(item.entry, item.ruleset, nameWidth, width));
  const rows = rules
    .slice(listWindow.top, listWindow.top + listRows)
    .map((rule, index) => (listWindow.top + index === listWindow.index ? rowOf(rule).map((segment) => ({ ...segment, inverse: true })) : rowOf(rule)));
  if (rules.length === 0) rows.push(line({ text: '  No rule files loaded.', dim: true }));
  return (
    <Box flexDirection="column" height={height}>
      <FixedLine width={width} text={renderLine(title, width)} />
      <LinesView lines={rows} top={0} height={listRows} width={width} />
      <FixedLine width={width} text={renderLine([{ text: `─ ${state.expanded ? 'details (enter: back to the list)' : 'details (enter: full height)'} `.padEnd(width, '─'), dim: true }], width)} />
      <Box paddingLeft={1}>
        <LinesView lines={details} top={Math.min(state.detailsTop, maxDetailsTop)} height={detailsHeight} width={width - 1} />
      </Box>
    </Box>
  );
}
