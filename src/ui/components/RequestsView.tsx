// The requests view: the live list (follow mode, filter) and, on enter, the detail pane of the
// selected request. Its state lives in App (RequestsState) so it survives switching views.
import { Box } from 'ink';
import { useEffect, useMemo, type Dispatch, type SetStateAction } from 'react';
import { renderLine } from '../ansi.js';
import type { TuiBackend } from '../backend.js';
import type { CommandName } from '../commands/command-table.js';
import { detailTabsFor, nextTab } from '../detail/detail-tabs.js';
import { line, type StyledLine } from '../detail/styled-line.js';
import { exportRequestAsCurl } from '../export/export-request.js';
import { nextSortKey, sortRequests } from '../list/request-sort.js';
import { resendCommand } from '../export/resend-command.js';
import { breakpointCommand } from '../commands/breakpoint-commands.js';
import { quickRuleFrom } from '../quick-rules/quick-rule.js';
import { describeQuickAction } from '../rules/quick-rule-lines.js';
import { recordsAsHar } from '../export/session-export.js';
import { compileFilter, type FilterOptions } from '../filter/compile-filter.js';
import { useViewCommands, useViewMouse } from '../hooks/use-view-commands.js';
import { moveWindow, pageWindow, placeWindow, type ListWindow } from '../list/list-window.js';
import { requestsLayout } from '../list/requests-layout.js';
import type { RequestsState } from '../list/requests-state.js';
import type { TrafficStore } from '../store/traffic-store.js';
import { useUiActions } from '../ui-actions.js';
import { DetailPane, detailPaneLines, tabAtColumn } from './DetailPane.js';
import { WHEEL_LINES } from '../mouse.js';
import { dnrRequestOf } from '../detail/rules-lines.js';
import { bodySearch, searchLines } from '../detail/search-lines.js';
import { blank, heading, wrapLines } from '../detail/styled-line.js';
import { bodyEncoding, type RequestRecord } from '../store/request-record.js';
import type { DetailTab } from '../detail/detail-tabs.js';
import { FixedLine } from './FixedLine.js';
import { computeForPane, PaneBoundary } from './PaneBoundary.js';
import { RequestList } from './RequestList.js';

export interface RequestsViewProps {
  store: TrafficStore;
  backend: TuiBackend;
  state: RequestsState;
  setState: Dispatch<SetStateAction<RequestsState>>;
  width: number;
  height: number;
  /** Epoch ms: how long waiting requests have waited. */
  now: number;
  /** Keys go to this view. */
  active: boolean;
}

/** How long typing pauses before the list narrows to the filter being written. */
const FILTER_DEBOUNCE_MS = 150;
/** The list's title and column header, above its rows. */
const LIST_TITLE_ROWS = 2;

export function RequestsView({ store, backend, state, setState, width, height, now, active }: RequestsViewProps) {
  const filterOptions = useMemo(() => filterOptionsFor(backend), [backend]);
  const actions = useUiActions();
  const visible = store.visible();
  // A sorted copy only when sorting: arrival order is the store's own list, kept incrementally.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const records = useMemo(() => sortRequests(visible, state.sort, state.sortReversed), [visible, visible.length, store.getVersion(), state.sort, state.sortReversed]);
  const indexOf = (ordinal: number) => (state.sort === 'arrival' && !state.sortReversed ? store.visibleIndexOf(ordinal) : Math.max(0, records.findIndex((record) => record.ordinal === ordinal)));
  const layout = requestsLayout(width, height, state.detailOpen);

  const windowOf = (s: RequestsState): ListWindow => {
    const total = records.length;
    if (s.follow) return placeWindow(total - 1, layout.listRows - 1, layout.listRows, total);
    return placeWindow(s.selected === undefined ? 0 : indexOf(s.selected), s.offset, layout.listRows, total);
  };
  const listWindow = windowOf(state);
  const current = listWindow.index >= 0 ? records[listWindow.index] : undefined;
  const detailBodyHeight = Math.max(0, layout.detailHeight - 1);
  // The detail pane's lines are made here (they bound its scrolling): a failure to make them is the
  // pane's, drawn in its place by its boundary, not this view's.
  const body = useMemo(() => computeForPane(() => searchedBody(current, state.tab, state.detailSearch), undefined), [current, state.tab, state.detailSearch]);
  const inBody = body.value;
  const detail = useMemo(
    () =>
      computeForPane(() => {
        if (!state.detailOpen) return searchLines([], '');
        if (body.failure) throw body.failure.error;
        return searchLines([...detailPaneLines(current, state.tab, layout.detailWidth - 1, state.unfold, backend.explainDnr, backend.rules?.list()), ...wholeBodyLines(inBody, layout.detailWidth - 1)], state.detailSearch);
      }, searchLines([], '')),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [state.detailOpen, current, current?.revision, state.tab, layout.detailWidth, state.detailSearch, body, state.unfold],
  );
  const search = detail.value;
  const detailLines = search.lines;
  const maxDetailTop = Math.max(0, detailLines.length - detailBodyHeight);

  // The store keeps the filtered list incrementally; tell it when the filter changes.
  useEffect(() => {
    const compiled = state.filterOn && state.filterText ? compileFilter(state.filterText, filterOptions) : undefined;
    store.setFilter(compiled?.ok ? compiled.predicate : undefined);
  }, [store, state.filterText, state.filterOn]);

  const select = (s: RequestsState, next: ListWindow, extra: Partial<RequestsState> = {}): RequestsState => ({
    ...s,
    follow: false,
    selected: records[next.index]?.ordinal ?? s.selected,
    offset: next.offset,
    ...extra,
  });
  const scrollDetail = (s: RequestsState, top: number): RequestsState => ({ ...s, detailTop: Math.min(Math.max(0, top), maxDetailTop) });

  const handle = (command: CommandName) => {
    const rows = layout.listRows;
    const total = records.length;
    const inDetail = state.detailOpen;
    switch (command) {
      case 'move.up':
        return setState((s) => (inDetail ? scrollDetail(s, s.detailTop - 1) : select(s, moveWindow(windowOf(s), -1, rows, total))));
      case 'move.down':
        return setState((s) => (inDetail ? scrollDetail(s, s.detailTop + 1) : select(s, moveWindow(windowOf(s), 1, rows, total))));
      case 'page.up':
        return setState((s) => (inDetail ? scrollDetail(s, s.detailTop - detailBodyHeight) : select(s, pageWindow(windowOf(s), -1, rows, total))));
      case 'page.down':
        return setState((s) => (inDetail ? scrollDetail(s, s.detailTop + detailBodyHeight) : select(s, pageWindow(windowOf(s), 1, rows, total))));
      case 'move.top':
        return setState((s) => (inDetail ? scrollDetail(s, 0) : select(s, placeWindow(0, 0, rows, total))));
      case 'move.bottom':
        return setState((s) => (inDetail ? scrollDetail(s, maxDetailTop) : { ...s, follow: true, offset: rows - 1, sort: 'arrival', sortReversed: false }));
      case 'list.sort':
      case 'list.sortReverse':
        // Sorted by anything but arrival, new requests land anywhere: following stops. The
        // selected request stays selected, placed where the new order puts it.
        return setState((s) => {
          const sort = command === 'list.sort' ? nextSortKey(s.sort) : s.sort;
          const sortReversed = command === 'list.sort' ? false : !s.sortReversed;
          const selected = s.selected ?? current?.ordinal;
          const index = selected === undefined ? 0 : Math.max(0, sortRequests(visible, sort, sortReversed).findIndex((record) => record.ordinal === selected));
          const follow = sort === 'arrival' && !sortReversed ? s.follow : false;
          return { ...s, sort, sortReversed, follow, selected, offset: Math.min(index, rows - 1) };
        });
      case 'detail.unfold':
        return setState((s) => ({ ...s, unfold: !s.unfold }));
      case 'detail.search':
        return actions.prompt({
          label: 'search:',
          initial: state.detailSearch,
          onSubmit: (text) =>
            setState((s) => {
              const all = [...detailPaneLines(current, s.tab, layout.detailWidth - 1, s.unfold, backend.explainDnr, backend.rules?.list()), ...wholeBodyLines(searchedBody(current, s.tab, text), layout.detailWidth - 1)];
              const found = searchLines(all, text).matches;
              if (text !== '' && found.length === 0) actions.notify(`No match for "${text}" in this tab`, 'warn');
              const lastTop = Math.max(0, all.length - detailBodyHeight);
              return { ...s, detailSearch: text, detailTop: found.length > 0 ? Math.min(Math.max(0, found[0]! - 2), lastTop) : s.detailTop };
            }),
        });
      case 'search.previous':
      case 'request.next':
        if (state.detailSearch && search.matches.length > 0) {
          // The match after (or before) the one at the top of the pane, two lines of context above it.
          const anchor = state.detailTop + 2;
          const matches = search.matches;
          const target = command === 'search.previous' ? ([...matches].reverse().find((line) => line < anchor) ?? matches.at(-1)!) : (matches.find((line) => line > anchor) ?? matches[0]!);
          return setState((s) => scrollDetail(s, target - 2));
        }
        if (command === 'search.previous') return actions.notify(state.detailSearch ? `No match for "${state.detailSearch}" in this tab` : 'No search: / searches the open tab', 'warn');
        return setState((s) => select(s, moveWindow(windowOf(s), 1, rows, total), { detailTop: 0 }));
      case 'request.previous':
        return setState((s) => select(s, moveWindow(windowOf(s), -1, rows, total), { detailTop: 0 }));
      case 'detail.open':
        if (!current) return actions.notify('No request selected (the list is empty or the filter hides every request)', 'warn');
        return setState((s) => select(s, windowOf(s), { detailOpen: true, detailTop: 0 }));
      case 'detail.close':
        // Esc ends a search first, then closes the pane.
        return setState((s) => (s.detailSearch ? { ...s, detailSearch: '' } : { ...s, detailOpen: false }));
      case 'tab.next':
      case 'tab.previous':
        return setState((s) => ({ ...s, tab: nextTab(s.tab, command === 'tab.next' ? 1 : -1, detailTabsFor(backend.mode)), detailTop: 0 }));
      case 'filter.edit': {
        // The list narrows as one types (a valid expression, 150 ms after the last key); esc puts
        // the filter that was on back.
        let pending: NodeJS.Timeout | undefined;
        const preview = (text: string) => {
          clearTimeout(pending);
          pending = setTimeout(() => {
            const compiled = compileFilter(text, filterOptions);
            if (compiled.ok) store.setFilter(compiled.predicate);
          }, FILTER_DEBOUNCE_MS);
        };
        const restore = () => {
          clearTimeout(pending);
          const compiled = state.filterOn && state.filterText ? compileFilter(state.filterText, filterOptions) : undefined;
          store.setFilter(compiled?.ok ? compiled.predicate : undefined);
        };
        return actions.prompt({
          label: '/',
          initial: state.filterText,
          validate: (text) => {
            const compiled = compileFilter(text, filterOptions);
            return compiled.ok ? undefined : compiled.error;
          },
          onChange: preview,
          onCancel: restore,
          onSubmit: (text) => {
            clearTimeout(pending);
            setState((s) => ({ ...s, filterText: text.trim(), filterOn: text.trim() !== '' }));
          },
        });
      }
      case 'filter.toggle':
        if (!state.filterText) return actions.notify('No filter yet: / writes one', 'warn');
        return setState((s) => ({ ...s, filterOn: !s.filterOn }));
      case 'list.clear':
        store.clear();
        return setState((s) => ({ ...s, follow: true, selected: undefined, offset: 0, detailOpen: false }));
      case 'breakpoint.set':
      case 'breakpoint.continue':
      case 'breakpoint.continueAll':
      case 'breakpoint.cancel':
      case 'breakpoint.redirect':
      case 'breakpoint.editHeaders':
      case 'breakpoint.credentials':
        return breakpointCommand(command, current, backend, actions);
      case 'session.saveHar': {
        const { har, requests } = recordsAsHar(store.all());
        if (requests === 0) return actions.notify('No request to save yet', 'warn');
        const name = `session-${new Date().toISOString().replace(/[:.]/g, '-')}.har`;
        backend.saveExport(name, `${JSON.stringify(har, null, 2)}\n`).then(
          (path) => actions.notify(`Saved ${requests} requests to ${path} (wrtui replay ${path})`),
          (error: unknown) => actions.notify(`Could not save the session: ${(error as Error).message}`, 'error'),
        );
        return;
      }
      case 'request.quickRule': {
        if (!current) return actions.notify('No request selected', 'warn');
        const quick = backend.rules?.quick;
        if (!quick) return actions.notify('Quick rules need a rules folder (--rules)', 'warn');
        const request = { requestId: current.requestId, method: current.method, url: current.firstUrl };
        return actions.prompt({
          label: 'rule for this URL:',
          initial: 'block',
          hint: 'block | redirect URL | header N: v | response-header N: v | file PATH',
          onSubmit: (text) => {
            void quickRuleFrom(text, request).then(async (made) => {
              if (!made.ok) return actions.notify(`No rule written: ${made.error}`, 'error');
              try {
                const { rule, file } = await quick.add(made.rule);
                actions.notify(`Wrote quick rule ${rule.id} (${describeQuickAction(rule)}) to ${file}: declarative, no worker (Rules view lists it; c there turns it into code)`);
              } catch (error) {
                actions.notify(`Could not write the rule: ${(error as Error).message}`, 'error');
              }
            });
          },
        });
      }
      case 'request.resend':
      case 'request.editResend': {
        if (!current) return actions.notify('No request selected', 'warn');
        void resendCommand(current, command === 'request.editResend', backend, actions.notify, (method, url) => store.expectResend(current, method, url));
        return;
      }
      case 'request.original': {
        const from = current?.resentFrom;
        if (!from) return actions.notify(current ? 'This request is not a resend (the list marks resends "resent")' : 'No request selected', 'warn');
        if (!store.byOrdinal(from.ordinal)) return actions.notify(`#${from.requestId}, which this request resent, is no longer in the list (cleared, or past the cap)`, 'warn');
        const index = records.findIndex((record) => record.ordinal === from.ordinal);
        if (index === -1) return actions.notify(`#${from.requestId}, which this request resent, is hidden by the filter (f turns it off)`, 'warn');
        return setState((s) => select(s, placeWindow(index, Math.floor(layout.listRows / 2), layout.listRows, records.length), { detailTop: 0 }));
      }
      case 'request.exportCurl':
      case 'request.exportCurlUpstream': {
        if (!current) return actions.notify('No request selected', 'warn');
        const which = command === 'request.exportCurl' ? 'client' : 'upstream';
        exportRequestAsCurl(current, backend, which).then(
          (result) => actions.notify(`curl of #${current.requestId} ${result.copied ? 'copied (OSC 52) and ' : ''}saved to ${result.path} (${which === 'client' ? 'as the client sent it' : 'as sent upstream'}${result.copied ? '' : '; too long for the clipboard'})`),
          (error: unknown) => actions.notify(`export failed: ${(error as Error).message}`, 'error'),
        );
        return;
      }
      default:
        return;
    }
  };
  useViewCommands(state.detailOpen ? 'detail' : 'list', active, handle);
  // Clicks and the wheel: a click selects a row (a second click on it opens it) or a tab; the
  // wheel scrolls the list or the detail pane, whichever is under the pointer.
  useViewMouse(state.detailOpen ? 'detail' : 'list', active, (event) => {
    const inPane = state.detailOpen && (layout.sideBySide ? event.x > layout.listWidth : event.y >= layout.listRows + LIST_TITLE_ROWS);
    const paneY = layout.sideBySide ? event.y : event.y - layout.listRows - LIST_TITLE_ROWS;
    const paneX = layout.sideBySide ? event.x - layout.listWidth - 1 : event.x;
    const rows = layout.listRows;
    const total = records.length;
    if (event.kind === 'wheelUp' || event.kind === 'wheelDown') {
      const delta = (event.kind === 'wheelUp' ? -1 : 1) * WHEEL_LINES;
      if (inPane) setState((s) => scrollDetail(s, s.detailTop + delta));
      else setState((s) => select(s, moveWindow(windowOf(s), delta, rows, total)));
      return true;
    }
    if (event.kind !== 'press' || event.button !== 0) return true;
    if (inPane) {
      if (paneY !== 0) return true;
      const tab = tabAtColumn(detailTabsFor(backend.mode), paneX);
      if (tab) setState((s) => ({ ...s, tab, detailTop: 0 }));
      return true;
    }
    const row = event.y - LIST_TITLE_ROWS;
    if (row < 0 || row >= rows || event.x >= layout.listWidth) return true;
    const index = listWindow.top + row;
    if (index >= total) return true;
    if (index === listWindow.index && !state.detailOpen) return handle('detail.open'), true;
    setState((s) => select(s, placeWindow(index, row, rows, total), state.detailOpen ? { detailTop: 0 } : {}));
    return true;
  });

  const list = (
    <PaneBoundary pane="request list" width={layout.listWidth} height={layout.listRows + 2} resetKey={store.getVersion()}>
      <RequestList
      records={records}
      window={listWindow}
      rows={layout.listRows}
      width={layout.listWidth}
      follow={state.follow}
      sort={state.sort === 'arrival' && !state.sortReversed ? undefined : `${state.sort}${state.sortReversed ? ' ↑' : ' ↓'}`}
      filter={{ text: state.filterText, on: state.filterOn }}
      totalKept={store.all().length}
      emptyHint={emptyHint(backend)}
      focused={!state.detailOpen}
      now={now}
      />
    </PaneBoundary>
  );
  if (!state.detailOpen) return list;
  const pane = (
    <PaneBoundary pane="detail" width={layout.detailWidth} height={layout.detailHeight} resetKey={`${current?.requestId} ${current?.revision} ${state.tab} ${layout.detailWidth}`}>
      <DetailPane
        failure={detail.failure}
        record={current}
        lines={detailLines}
        search={state.detailSearch ? { term: state.detailSearch, matches: search.matches, top: Math.min(state.detailTop, maxDetailTop), inBody: inBody?.count } : undefined}
        tab={state.tab}
        tabNames={detailTabsFor(backend.mode)}
        top={Math.min(state.detailTop, maxDetailTop)}
        height={layout.detailHeight}
        width={layout.detailWidth}
        focused
      />
    </PaneBoundary>
  );
  if (layout.sideBySide) {
    return (
      <Box flexDirection="row" height={height}>
        {list}
        <Box flexDirection="column" width={1}>
          {Array.from({ length: height }, (_, index) => (
            <FixedLine key={index} width={1} text={SEPARATOR} />
          ))}
        </Box>
        {pane}
      </Box>
    );
  }
  return (
    <Box flexDirection="column" height={height}>
      {list}
      {pane}
    </Box>
  );
}

const SEPARATOR = renderLine([{ text: '│', dim: true }], 1);

function emptyHint(backend: TuiBackend): StyledLine[] {
  // A replay has no proxy to send traffic to: its requests come from the file, as the replay reaches them.
  if (backend.mode === 'replay') return [line({ text: `  No replayed requests yet. Those ${backend.source ?? 'the recording'} holds show here as the replay reaches them (4: log).`, dim: true })];
  const proxy = backend.proxyUrl;
  const ca = backend.ca?.certPath ?? '<state-dir>/ca.pem';
  return [
    line({ text: '  No requests yet. Send traffic through the proxy:', dim: true }),
    line('    ', { text: `curl -x ${proxy} http://example.com/`, color: 'cyan' }),
    line('    ', { text: `curl -x ${proxy} --cacert ${ca} https://example.com/`, color: 'cyan' }),
    line({ text: `  Browsers: HTTP and HTTPS proxy ${proxy.replace(/^http:\/\//, '')}; \`wrtui ca\` tells how to trust the CA.`, dim: true }),
    ...(backend.incognitoProxyUrl ? [line({ text: `  Traffic through ${backend.incognitoProxyUrl} uses the incognito cookie store "1".`, dim: true })] : []),
  ];
}

/** The search run over the whole body the open tab shows (Request or Response), if it has one. */
function searchedBody(record: RequestRecord | undefined, tab: DetailTab, term: string): ReturnType<typeof bodySearch> {
  if (!record || !term) return undefined;
  if (tab === 'response') return bodySearch(record.responseBytes?.bytes, bodyEncoding(record.responseBytes, record.responseHeaders), term);
  if (tab === 'request') return bodySearch(record.requestBytes?.bytes, bodyEncoding(record.requestBytes, record.sentHeaders ?? record.requestHeaders), term);
  return undefined;
}

/** Under the tab's lines while searching: every match of the whole body with its line number and context. */
function wholeBodyLines(found: ReturnType<typeof bodySearch>, width: number): StyledLine[] {
  if (!found || found.count === 0) return [];
  const lines: StyledLine[] = [blank, heading(`In the whole body: ${found.count} match${found.count === 1 ? '' : 'es'}${found.count > found.excerpts.length ? ` (the first ${found.excerpts.length})` : ''}`)];
  for (const excerpt of found.excerpts) lines.push(line({ text: `line ${excerpt.line}: `, dim: true }, excerpt.text));
  return wrapLines(lines, width);
}

/** dnr:RULESET#ID asks the engine whether the rule matches each request now. */
function filterOptionsFor(backend: TuiBackend): FilterOptions {
  const matches = backend.dnrRuleMatches;
  return matches ? { dnrRuleMatches: (rule, request) => matches(rule, dnrRequestOf(request as RequestRecord)) } : {};
}
