// The cookies view: store "0" or "1" with its cookies grouped by domain, every field of the
// selected one, and the live onChanged log with causes. Deleting and editing go through the
// cookies API (backend.cookies), so onChanged fires as it would for an extension.
import { Box } from 'ink';
import { useMemo, type Dispatch, type SetStateAction } from 'react';
import { renderLine } from '../ansi.js';
import type { TuiBackend } from '../backend.js';
import type { CommandName } from '../commands/command-table.js';
import { cookieFieldLines, cookieLogRow, cookieRow, groupByDomain, type CookieListEntry } from '../cookies/cookie-lines.js';
import type { CookiesState } from '../cookies/cookies-state.js';
import { line, type Segment } from '../detail/styled-line.js';
import { useViewCommands } from '../hooks/use-view-commands.js';
import { placeWindow } from '../list/list-window.js';
import type { TrafficStore } from '../store/traffic-store.js';
import { useUiActions } from '../ui-actions.js';
import { LinesView } from './LinesView.js';
import { FixedLine } from './FixedLine.js';

export interface CookiesViewProps {
  store: TrafficStore;
  backend: TuiBackend;
  state: CookiesState;
  setState: Dispatch<SetStateAction<CookiesState>>;
  width: number;
  height: number;
  active: boolean;
}

const FIELD_LINES = 3;

export function CookiesView({ store, backend, state, setState, width, height, active }: CookiesViewProps) {
  const actions = useUiActions();
  const version = store.cookiesVersion;
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const entries = useMemo(() => groupByDomain(backend.cookies.list(state.storeId)), [backend, state.storeId, version]);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const counts = useMemo(() => backend.cookies.storeIds.map((id) => [id, id === state.storeId ? -1 : backend.cookies.list(id).length] as const), [backend, state.storeId, version]);
  const cookieEntries = entries.filter((entry): entry is Extract<CookieListEntry, { kind: 'cookie' }> => entry.kind === 'cookie');

  const logHeight = Math.max(3, Math.floor((height - 2 - FIELD_LINES) * 0.4));
  // title, separator and the log's title line: 3 lines besides the three blocks.
  const listRows = Math.max(1, height - 3 - FIELD_LINES - (logHeight - 1));

  // The selection moves over cookies; domain lines come along in the window above their cookies.
  const keyIndex = state.selectedKey === undefined ? -1 : cookieEntries.findIndex((entry) => entry.key === state.selectedKey);
  const selectedCookieIndex = keyIndex >= 0 ? keyIndex : Math.min(state.index, cookieEntries.length - 1);
  const selected = cookieEntries[selectedCookieIndex];
  const selectedEntryIndex = selected ? entries.indexOf(selected) : -1;
  // Until the user moves, show the list from its top (the first domain line included).
  const listWindow = placeWindow(selectedEntryIndex, state.selectedKey === undefined ? selectedEntryIndex : state.offset, listRows, entries.length);

  /** Selects the cookieIndex-th cookie; a step scrolls only when it leaves the window, a page keeps its row. */
  const moveTo = (cookieIndex: number, how: 'step' | 'page') => {
    const target = cookieEntries[Math.min(Math.max(0, cookieIndex), cookieEntries.length - 1)];
    if (!target) return;
    const entryIndex = entries.indexOf(target);
    // The first cookie shows its domain line above it.
    const offset = entryIndex === 1 ? 1 : how === 'step' ? listWindow.offset + (entryIndex - listWindow.index) : listWindow.offset;
    const next = placeWindow(entryIndex, offset, listRows, entries.length);
    setState((s) => ({ ...s, selectedKey: target.key, index: cookieIndex, offset: next.offset }));
  };

  useViewCommands('cookies', active, (command: CommandName) => {
    const page = Math.max(1, listRows - 1);
    switch (command) {
      case 'move.up':
        return moveTo(selectedCookieIndex - 1, 'step');
      case 'move.down':
        return moveTo(selectedCookieIndex + 1, 'step');
      case 'page.up':
        return moveTo(selectedCookieIndex - page, 'page');
      case 'page.down':
        return moveTo(selectedCookieIndex + page, 'page');
      case 'move.top':
        return moveTo(0, 'step');
      case 'move.bottom':
        return moveTo(cookieEntries.length - 1, 'step');
      case 'cookies.store': {
        const ids = backend.cookies.storeIds;
        const next = ids[(ids.indexOf(state.storeId) + 1) % ids.length] ?? '0';
        return setState({ storeId: next, selectedKey: undefined, index: 0, offset: 0 });
      }
      case 'cookies.delete': {
        if (!selected) return actions.notify('No cookie selected', 'warn');
        const { cookie } = selected;
        return actions.confirm({
          question: `Delete cookie ${cookie.name} of ${cookie.domain}${cookie.path} from store "${cookie.storeId}"?`,
          onYes: () =>
            backend.cookies.remove(cookie).then(
              () => actions.notify(`Deleted ${cookie.name} (cookies.remove; onChanged: explicit)`),
              (error: unknown) => actions.notify(`Delete failed: ${(error as Error).message}`, 'error'),
            ),
        });
      }
      case 'cookies.edit': {
        if (!selected) return actions.notify('No cookie selected', 'warn');
        const { cookie } = selected;
        return actions.prompt({
          label: `${cookie.name} =`,
          initial: cookie.value,
          validate: (text) => {
            const bad = /[;\x00-\x1f\x7f]/.exec(text);
            if (bad) return { message: 'a cookie value cannot hold ";" or control characters', position: bad.index, length: 1 };
            if (/^[ \t]|[ \t]$/.test(text)) return { message: 'no spaces at the start or the end', position: /^[ \t]/.test(text) ? 0 : text.length - 1, length: 1 };
            return undefined;
          },
          onSubmit: (value) =>
            backend.cookies.setValue(cookie, value).then(
              (stored) => actions.notify(stored ? `Set ${cookie.name}=${stored.value} (cookies.set; onChanged fired)` : `${cookie.name} was set already expired, so it is gone`, stored ? 'info' : 'warn'),
              (error: unknown) => actions.notify(`Edit refused: ${(error as Error).message}`, 'error'),
            ),
        });
      }
      default:
        return;
    }
  });

  const title: Segment[] = [{ text: ' Cookies ', bold: true, inverse: true }, { text: ' ' }];
  for (const [id, count] of counts) {
    const current = id === state.storeId;
    const label = `store "${id}"${id === '1' ? ' incognito' : ''} (${current ? cookieEntries.length : count})`;
    title.push({ text: ` ${label} `, inverse: current, bold: current, color: current ? 'cyan' : undefined }, { text: ' ' });
  }
  title.push({ text: ' flags: S secure, H httpOnly, h host-only, s session', dim: true });

  const listLines = entries.slice(listWindow.top, listWindow.top + listRows).map((entry, index) =>
    entry.kind === 'domain'
      ? line({ text: entry.domain, bold: true }, { text: `  ${entry.count} cookie${entry.count === 1 ? '' : 's'}`, dim: true })
      : listWindow.top + index === listWindow.index
        ? cookieRow(entry.cookie, width).map((segment) => ({ ...segment, inverse: true }))
        : cookieRow(entry.cookie, width),
  );
  if (entries.length === 0) listLines.push(line({ text: `  No cookies in store "${state.storeId}".`, dim: true }));

  const logCount = store.cookieLogCount;
  const logLines = store.cookieLog(Math.max(0, logCount - (logHeight - 1)), logCount).map(cookieLogRow);
  return (
    <Box flexDirection="column" height={height}>
      <FixedLine width={width} text={renderLine(title, width)} />
      <LinesView lines={listLines} top={0} height={listRows} width={width} />
      <FixedLine width={width} text={renderLine([{ text: '─'.repeat(width), dim: true }], width)} />
      <LinesView lines={cookieFieldLines(selected?.cookie)} top={0} height={FIELD_LINES} width={width} />
      <FixedLine width={width} text={renderLine([{ text: ` onChanged (${logCount}, newest last) `, bold: true, inverse: true }], width)} />
      <LinesView lines={logLines.length > 0 ? logLines : [line({ text: '  No cookie changes yet.', dim: true })]} top={0} height={logHeight - 1} width={width} />
    </Box>
  );
}
