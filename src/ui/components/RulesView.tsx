// The rules view: every rule file with its state, dry-run, listeners, reloads, quota meter and
// type errors; below, the selected rule in full. r reloads it, d toggles its dry-run, enter
// gives its details (error, listeners, type errors) the whole lower part.
import { Box } from 'ink';
import { dirname } from 'node:path';
import { useMemo, type Dispatch, type SetStateAction } from 'react';
import type { RuleStatus } from '../../engine/extensions/extension-host.js';
import { renderLine } from '../ansi.js';
import type { TuiBackend } from '../backend.js';
import type { CommandName } from '../commands/command-table.js';
import { line, wrapLines } from '../detail/styled-line.js';
import { useViewCommands } from '../hooks/use-view-commands.js';
import { moveWindow, pageWindow, placeWindow } from '../list/list-window.js';
import { ruleDetailLines, ruleRow } from '../rules/rule-lines.js';
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

export function RulesView({ backend, rules, state, setState, width, height, now, active }: RulesViewProps) {
  const actions = useUiActions();
  const byName = state.selected === undefined ? -1 : rules.findIndex((rule) => rule.name === state.selected);
  const selectedIndex = byName >= 0 ? byName : Math.min(state.index, rules.length - 1);
  const selected = rules[selectedIndex];

  const listRows = state.expanded ? Math.min(3, rules.length || 1) : Math.max(1, Math.min(rules.length || 1, Math.floor((height - 2) * 0.45)));
  const detailsHeight = Math.max(1, height - 2 - listRows);
  const listWindow = placeWindow(selectedIndex, state.offset, listRows, rules.length);
  // The folder the control names; without one (a test's fake), the first rule file's.
  const rulesDir = backend.rules?.dir ?? (rules[0]?.kind === 'rule' ? dirname(rules[0].file) : undefined);
  const details = useMemo(() => wrapLines(ruleDetailLines(selected, rulesDir, now, rules.filter((rule) => rule.precedence !== undefined).length), width - 1), [selected, rulesDir, now, width, rules]);
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
        if (!control || !selected) return actions.notify('No rule selected', 'warn');
        try {
          const status = control.setDryRun(selected.name, !selected.dryRun);
          actions.notify(`${status.name}: dry-run ${status.dryRun ? 'on (verdicts journaled, not applied)' : 'off (verdicts applied)'}`);
        } catch (error) {
          actions.notify((error as Error).message, 'error');
        }
        return;
      }
      default:
        return;
    }
  });

  const failing = rules.filter((rule) => rule.state === 'failed' || rule.error).length;
  const title = line(
    { text: ' Rules ', bold: true, inverse: true },
    ` ${rules.length} file${rules.length === 1 ? '' : 's'} · ${rules.filter((rule) => rule.state === 'active' && !rule.error).length} active`,
    failing > 0 ? { text: ` · ${failing} failing`, color: 'red', bold: true } : '',
    { text: `  hBC = handlerBehaviorChanged calls left of ${rules[0]?.quota.limit ?? 20} in any 10 minutes`, dim: true },
    rulesDir ? { text: `  ${rulesDir}`, dim: true } : '',
    !backend.rules && { text: '  (no rule host in this session)', dim: true },
  );
  const nameWidth = Math.min(width >= 110 ? 28 : 20, Math.max(8, ...rules.map((rule) => rule.name.length)));
  const rows = rules
    .slice(listWindow.top, listWindow.top + listRows)
    .map((rule, index) => (listWindow.top + index === listWindow.index ? ruleRow(rule, nameWidth, now, width).map((segment) => ({ ...segment, inverse: true })) : ruleRow(rule, nameWidth, now, width)));
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
