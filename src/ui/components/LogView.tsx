// The log view: console output of rules and libraries (captured into the journal, never written
// over the screen), wrtui's own notices, rule loads and handlerBehaviorChanged calls. Follows
// new lines until the user scrolls up; the selected line is shown in full below.
import { Box } from 'ink';
import type { Dispatch, SetStateAction } from 'react';
import { renderLine } from '../ansi.js';
import type { CommandName } from '../commands/command-table.js';
import { line, wrapLines, type StyledLine } from '../detail/styled-line.js';
import { formatClock, plural } from '../format.js';
import { useViewCommands } from '../hooks/use-view-commands.js';
import { moveWindow, pageWindow, placeWindow, type ListWindow } from '../list/list-window.js';
import type { LogLine, TrafficStore } from '../store/traffic-store.js';
import { LinesView } from './LinesView.js';
import { FixedLine } from './FixedLine.js';

export interface LogState {
  follow: boolean;
  /** seq of the selected line. */
  selected: number | undefined;
  offset: number;
}

export const INITIAL_LOG_STATE: LogState = { follow: true, selected: undefined, offset: 0 };

export interface LogViewProps {
  store: TrafficStore;
  state: LogState;
  setState: Dispatch<SetStateAction<LogState>>;
  width: number;
  height: number;
  active: boolean;
}

const LEVEL_COLORS: Readonly<Record<LogLine['level'], string>> = { debug: 'gray', info: 'white', warn: 'yellow', error: 'red' };
const FULL_LINES = 4;

export function LogView({ store, state, setState, width, height, active }: LogViewProps) {
  const total = store.logCount;
  const rows = Math.max(1, height - 2 - FULL_LINES);
  const all = store.logs();
  const windowOf = (s: LogState): ListWindow => {
    if (s.follow || s.selected === undefined) return placeWindow(total - 1, rows - 1, rows, total);
    const index = all.findIndex((entry) => entry.seq >= s.selected!);
    return placeWindow(index === -1 ? total - 1 : index, s.offset, rows, total);
  };
  const current = windowOf(state);
  const select = (next: ListWindow, follow = false) => setState({ follow, selected: all[next.index]?.seq, offset: next.offset });

  useViewCommands('log', active, (command: CommandName) => {
    switch (command) {
      case 'move.up':
        return select(moveWindow(current, -1, rows, total));
      case 'move.down':
        return select(moveWindow(current, 1, rows, total));
      case 'page.up':
        return select(pageWindow(current, -1, rows, total));
      case 'page.down':
        return select(pageWindow(current, 1, rows, total));
      case 'move.top':
        return select(placeWindow(0, 0, rows, total));
      case 'move.bottom':
        return setState({ follow: true, selected: undefined, offset: rows - 1 });
      default:
        return;
    }
  });

  const shown: StyledLine[] = all.slice(current.top, current.top + rows).map((entry, index) => {
    const styled = logRow(entry);
    return current.top + index === current.index && !state.follow ? styled.map((segment) => ({ ...segment, inverse: true })) : styled;
  });
  if (total === 0) shown.push(line({ text: '  Nothing logged yet.', dim: true }));
  const selectedEntry = all[current.index];
  const full = selectedEntry ? wrapLines([line({ text: `${selectedEntry.level} [${selectedEntry.source}] `, bold: true }, ...selectedEntry.message.split('\n').map((text, index) => (index === 0 ? text : ` ↵ ${text}`)))], width - 1) : [];
  return (
    <Box flexDirection="column" height={height}>
      <FixedLine width={width} text={renderLine(line({ text: ' Log ', bold: true, inverse: true }, ` ${plural(total, 'line')}, newest last`, state.follow ? { text: '  ● following', color: 'green' } : { text: '  following off (G)', dim: true }), width)} />
      <LinesView lines={shown} top={0} height={rows} width={width} />
      <FixedLine width={width} text={renderLine([{ text: '─'.repeat(width), dim: true }], width)} />
      <Box paddingLeft={1}>
        <LinesView lines={full} top={0} height={FULL_LINES} width={width - 1} />
      </Box>
    </Box>
  );
}

function logRow(entry: LogLine): StyledLine {
  return line(
    { text: `${formatClock(entry.time, true)} `, dim: true },
    { text: entry.level.padEnd(5), color: LEVEL_COLORS[entry.level], bold: entry.level === 'error' },
    { text: ` ${entry.source.length > 22 ? `${entry.source.slice(0, 21)}…` : entry.source.padEnd(22)} `, color: 'cyan' },
    entry.message.split('\n')[0] ?? '',
  );
}
