// The whole screen: status bar, the current view (requests, cookies, rules, log, or the help),
// and the footer (or a prompt / a question). App holds every view's state, so switching views
// loses nothing, and handles the global commands; the views handle their own.
import { Box, Text } from 'ink';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { TuiBackend } from '../backend.js';
import type { CommandName, ViewName } from '../commands/command-table.js';
import { INITIAL_COOKIES_STATE } from '../cookies/cookies-state.js';
import { useStoreVersion } from '../hooks/use-store-version.js';
import { useTerminalSize, type TerminalSize } from '../hooks/use-terminal-size.js';
import { KeyRoutesContext, useKeyRouter, type KeyRoutes } from '../hooks/use-view-commands.js';
import { WHEEL_LINES, type MouseEvent } from '../mouse.js';
import { INITIAL_REQUESTS_STATE } from '../list/requests-state.js';
import { INITIAL_RULES_STATE } from '../rules/rules-state.js';
import type { TrafficStore } from '../store/traffic-store.js';
import { UiActionsContext, type ConfirmSpec, type NoticeLevel, type PromptSpec, type UiActions } from '../ui-actions.js';
import { ConfirmLine } from './ConfirmLine.js';
import { CookiesView } from './CookiesView.js';
import { Footer } from './Footer.js';
import { HelpScreen, helpLineCount } from './HelpScreen.js';
import { INITIAL_LOG_STATE, LogView } from './LogView.js';
import { failureMessage, PaneBoundary, PaneFailureContext } from './PaneBoundary.js';
import { PromptLine } from './PromptLine.js';
import { RequestsView } from './RequestsView.js';
import { RulesView } from './RulesView.js';
import { StatusBar } from './StatusBar.js';

export type MainView = 'requests' | 'cookies' | 'rules' | 'log';

export interface AppProps {
  store: TrafficStore;
  backend: TuiBackend;
  /** The quit command: the runner restores the terminal, stops the proxy, saves cookies. */
  onQuit: () => void;
  /** A fixed size instead of the terminal's (tests: ink-testing-library's stream has no rows). */
  size?: TerminalSize;
  now?: () => number;
  /** How long a footer notice stays (ms). */
  noticeMs?: number;
  /** Frame accounting (frame-cost.ts): told when a render starts and when its commit is done. */
  frameCost?: { reactStarted(): void; reactCommitted(): void };
}

const STATUS_LINES = 2;
const MIN_COLUMNS = 40;
const MIN_MAIN_ROWS = 5;

export function App({ store, backend, onQuit, size: fixedSize, now: clock = Date.now, noticeMs = 4000, frameCost }: AppProps) {
  frameCost?.reactStarted();
  useStoreVersion(store);
  const size = useTerminalSize(fixedSize);
  const [view, setView] = useState<MainView>('requests');
  const [helpOpen, setHelpOpen] = useState(false);
  const [helpTop, setHelpTop] = useState(0);
  const [requests, setRequests] = useState(INITIAL_REQUESTS_STATE);
  const [cookies, setCookies] = useState(INITIAL_COOKIES_STATE);
  const [rulesState, setRulesState] = useState(INITIAL_RULES_STATE);
  const [logState, setLogState] = useState(INITIAL_LOG_STATE);
  const [prompt, setPrompt] = useState<PromptSpec>();
  const [confirm, setConfirm] = useState<ConfirmSpec>();
  const [notice, setNotice] = useState<{ text: string; level: NoticeLevel; id: number }>();

  const actions = useMemo<UiActions>(
    () => ({
      prompt: (spec) => setPrompt(spec),
      confirm: (spec) => setConfirm(spec),
      notify: (text, level = 'info') => setNotice((previous) => ({ text, level, id: (previous?.id ?? 0) + 1 })),
    }),
    [],
  );
  useEffect(() => {
    if (!notice) return;
    const timer = setTimeout(() => setNotice(undefined), noticeMs);
    return () => clearTimeout(timer);
  }, [notice, noticeMs]);

  // A refused handlerBehaviorChanged call flashes once (the log keeps it, once).
  const refusal = store.lastRefusal;
  useEffect(() => {
    if (refusal) actions.notify(refusal.text, 'warn');
  }, [refusal?.seq]); // eslint-disable-line react-hooks/exhaustive-deps

  // Requests paused at a breakpoint are marked (and listed before their first event is journaled).
  useEffect(() => backend.breakpoints?.onChange(() => store.setPaused(backend.breakpoints!.paused())), [backend, store]);

  // Rule changes come from the rule host, not the journal: redraw on them too.
  useEffect(() => backend.rules?.onChange(() => store.touch()), [backend, store]);
  useEffect(() => backend.rules?.quick?.onChange?.(() => store.touch()), [backend, store]);
  useEffect(() => {
    if (view === 'log' && store.unseenProblems > 0) store.markProblemsSeen();
  });
  const rules = backend.rules?.list() ?? [];
  const now = clock();

  const modal = prompt !== undefined || confirm !== undefined;
  const focus: ViewName = helpOpen ? 'help' : view === 'requests' ? (requests.detailOpen ? 'detail' : 'list') : view;
  const rowsTotal = size.rows - 1; // one row short of the terminal, or Ink redraws everything each frame
  const bottomLines = prompt ? 2 : 1;
  const mainHeight = rowsTotal - STATUS_LINES - bottomLines;
  const width = size.columns;

  const show = (next: MainView) => {
    setHelpOpen(false);
    setView(next);
  };
  const globalCommand = (command: CommandName) => {
    switch (command) {
      case 'quit':
        return onQuit();
      case 'help':
        setHelpTop(0);
        return setHelpOpen((open) => !open);
      case 'view.requests':
        return show('requests');
      case 'view.cookies':
        return show('cookies');
      case 'view.rules':
        return show('rules');
      case 'view.log':
        return show('log');
      case 'view.back':
        return helpOpen ? setHelpOpen(false) : show('requests');
      case 'dryRun.toggle': {
        const on = !backend.getDryRun();
        backend.setDryRun(on);
        store.touch();
        return actions.notify(on ? 'Global dry-run ON: every verdict computed and journaled, none applied' : 'Global dry-run OFF: verdicts applied (rules in dry-run stay so)', on ? 'warn' : 'info');
      }
      default:
        break;
    }
    if (!helpOpen) return;
    const maxTop = Math.max(0, helpLineCount(width, backend.mode) - (mainHeight - 1));
    const scroll = (top: number) => setHelpTop(Math.min(Math.max(0, top), maxTop));
    if (command === 'move.up') scroll(helpTop - 1);
    else if (command === 'move.down') scroll(helpTop + 1);
    else if (command === 'page.up') scroll(helpTop - (mainHeight - 2));
    else if (command === 'page.down') scroll(helpTop + (mainHeight - 2));
    else if (command === 'move.top') scroll(0);
    else if (command === 'move.bottom') scroll(maxTop);
  };
  // The mouse: the view under the pointer handles a click or the wheel if it can (RequestsView:
  // rows, tabs, panes); otherwise the wheel scrolls as the arrow keys do.
  const onMouse = (event: MouseEvent, current: KeyRoutes, run: (command: CommandName) => void) => {
    const y = event.y - STATUS_LINES;
    if (y < 0 || y >= mainHeight) return;
    const viewMouse = current.viewMouse;
    if (!helpOpen && viewMouse && viewMouse.view === focus && viewMouse.handle({ ...event, y })) return;
    if (event.kind === 'wheelUp' || event.kind === 'wheelDown') for (let step = 0; step < WHEEL_LINES; step++) run(event.kind === 'wheelUp' ? 'move.up' : 'move.down');
  };
  const routes = useKeyRouter({ focus, modalOpen: modal, global: globalCommand, mouse: onMouse });
  // A pane that failed to draw is logged once per pane and message, however often it is drawn again.
  const reportedFailures = useRef(new Set<string>());
  const reportPaneFailure = useCallback(
    (pane: string, error: unknown) => {
      const message = failureMessage(error);
      const key = `${pane}\n${message}`;
      if (reportedFailures.current.has(key)) return;
      reportedFailures.current.add(key);
      const where = error instanceof Error ? error.stack?.split('\n').find((frame) => frame.trim().startsWith('at '))?.trim() : undefined;
      backend.reportProblem?.(`the ${pane} pane failed to draw: ${message}${where ? ` (${where})` : ''}`);
    },
    [backend],
  );
  useLayoutEffect(() => {
    frameCost?.reactCommitted();
  });

  if (width < MIN_COLUMNS || mainHeight < MIN_MAIN_ROWS) {
    return (
      <Box height={Math.max(1, rowsTotal)}>
        <Text wrap="truncate-end">wrtui needs at least {MIN_COLUMNS}×{STATUS_LINES + MIN_MAIN_ROWS + 2} (now {size.columns}×{size.rows}); q quits</Text>
      </Box>
    );
  }

  const viewActive = !modal && !helpOpen;
  let main;
  if (helpOpen) main = <HelpScreen mode={backend.mode} top={helpTop} width={width} height={mainHeight} />;
  else if (view === 'cookies') main = <CookiesView store={store} backend={backend} state={cookies} setState={setCookies} width={width} height={mainHeight} active={viewActive} />;
  else if (view === 'rules') main = <RulesView backend={backend} rules={rules} state={rulesState} setState={setRulesState} width={width} height={mainHeight} now={now} active={viewActive} />;
  else if (view === 'log') main = <LogView store={store} state={logState} setState={setLogState} width={width} height={mainHeight} active={viewActive} />;
  else main = <RequestsView store={store} backend={backend} state={requests} setState={setRequests} width={width} height={mainHeight} now={now} active={viewActive} />;

  // Each pane draws on its own: one that throws shows why in its place (PaneBoundary), the rest goes on.
  const version = store.getVersion();
  return (
    <PaneFailureContext.Provider value={reportPaneFailure}>
      <KeyRoutesContext.Provider value={routes}>
        <UiActionsContext.Provider value={actions}>
          <Box flexDirection="column" width={width} height={rowsTotal}>
            <PaneBoundary pane="status bar" width={width} height={STATUS_LINES} resetKey={version}>
              <StatusBar store={store} backend={backend} rules={rules} width={width} now={now} />
            </PaneBoundary>
            <Box flexDirection="column" height={mainHeight}>
              <PaneBoundary pane={helpOpen ? 'help' : `${view} view`} width={width} height={mainHeight} resetKey={`${helpOpen ? 'help' : view} ${version}`}>
                {main}
              </PaneBoundary>
            </Box>
            <PaneBoundary pane="footer" width={width} height={bottomLines} resetKey={`${focus} ${prompt ? 'prompt' : confirm ? 'confirm' : (notice?.id ?? '')}`}>
              {prompt ? (
                <PromptLine spec={prompt} width={width} onClose={() => setPrompt(undefined)} />
              ) : confirm ? (
                <ConfirmLine spec={confirm} width={width} onClose={() => setConfirm(undefined)} />
              ) : (
                <Footer view={focus} mode={backend.mode} width={width} notice={notice} />
              )}
            </PaneBoundary>
          </Box>
        </UiActionsContext.Provider>
      </KeyRoutesContext.Provider>
    </PaneFailureContext.Provider>
  );
}
