// Every key of the TUI as a named command, in ONE table: the input handler looks keys up here,
// the footer shows the current view's commands from it, and the help screen lists it whole. A
// key may mean different commands in different views (d deletes a cookie, toggles a rule's
// dry-run); within one view the first matching command wins, so view-specific ones come first.
import type { Key } from 'ink';
import type { SessionMode } from '../backend.js';

/** Where the user is: the focused part of the screen. */
export type ViewName = 'list' | 'detail' | 'cookies' | 'rules' | 'log' | 'help';

export const VIEW_TITLES: Readonly<Record<ViewName, string>> = {
  list: 'Request list',
  detail: 'Detail pane',
  cookies: 'Cookies view',
  rules: 'Rules view',
  log: 'Log view',
  help: 'Help',
};

type SpecialKey = 'upArrow' | 'downArrow' | 'leftArrow' | 'rightArrow' | 'pageUp' | 'pageDown' | 'home' | 'end' | 'return' | 'escape' | 'tab' | 'delete';

export interface KeyBinding {
  /** The character typed (case-sensitive), for printable keys. */
  input?: string;
  /** A named key. */
  special?: SpecialKey;
  ctrl?: boolean;
  shift?: boolean;
}

export interface CommandSpec {
  readonly name: string;
  readonly keys: readonly KeyBinding[];
  /** How the keys are written on screen. */
  readonly keyLabel: string;
  /** A word or two for the footer. */
  readonly short: string;
  /** A sentence for the help screen. */
  readonly description: string;
  /** Views where it works; 'all' for global commands. */
  readonly views: readonly ViewName[] | 'all';
  /** Shown in the footer (the most useful few per view). */
  readonly footer?: boolean;
  /** Only in these views' footers (default: wherever it works). */
  readonly footerIn?: readonly ViewName[];
  /** It needs the live proxy (resend, breakpoints): a replay's footer leaves it out, its help says so. */
  readonly liveOnly?: boolean;
}

const NAVIGABLE: readonly ViewName[] = ['list', 'detail', 'cookies', 'rules', 'log', 'help'];

export const COMMANDS = [
  // ── view-specific first (they win over global ones on the same key) ──
  { name: 'detail.open', keys: [{ special: 'return' }], keyLabel: 'enter', short: 'detail', description: 'Open the detail pane of the selected request', views: ['list'], footer: true },
  { name: 'filter.edit', keys: [{ input: '/' }], keyLabel: '/', short: 'filter', description: 'Filter the list (enter applies, esc cancels; see the filter language below)', views: ['list'], footer: true },
  { name: 'detail.search', keys: [{ input: '/' }], keyLabel: '/', short: 'search', description: 'Search the open tab (the whole body is counted); n and N step through the matches, esc ends the search', views: ['detail'], footer: true },
  { name: 'search.previous', keys: [{ input: 'N' }], keyLabel: 'N', short: 'prev match', description: 'The previous match of the search', views: ['detail'] },
  { name: 'detail.unfold', keys: [{ input: 'z' }], keyLabel: 'z', short: 'unfold', description: 'Show long JSON arrays and strings whole, or folded again', views: ['detail'] },
  { name: 'filter.toggle', keys: [{ input: 'f' }], keyLabel: 'f', short: 'filter on/off', description: 'Turn the last filter off, or on again', views: ['list', 'detail'], footer: true },
  { name: 'request.exportCurl', keys: [{ input: 'y' }], keyLabel: 'y', short: 'curl', description: 'Export the request as the client sent it, as a curl command: a file in <state-dir>/exports and the clipboard (OSC 52)', views: ['list', 'detail'], footer: true },
  { name: 'request.exportCurlUpstream', keys: [{ input: 'Y' }], keyLabel: 'Y', short: 'curl as sent', description: "Export the request as it went upstream (the jar's cookies and rules' changes included), as curl", views: ['list', 'detail'], footer: false },
  { name: 'breakpoint.continue', keys: [{ input: 'a' }], keyLabel: 'a', short: 'continue', description: 'A paused request: go on unchanged', views: ['list', 'detail'], liveOnly: true },
  { name: 'breakpoint.continueAll', keys: [{ input: 'A' }], keyLabel: 'A', short: 'continue all', description: 'Every paused request: go on unchanged', views: ['list', 'detail'], liveOnly: true },
  { name: 'breakpoint.cancel', keys: [{ input: 'X' }], keyLabel: 'X', short: 'cancel', description: 'A paused request: cancel it (the client sees net::ERR_BLOCKED_BY_CLIENT)', views: ['list', 'detail'], liveOnly: true },
  { name: 'breakpoint.redirect', keys: [{ input: 'u' }], keyLabel: 'u', short: 'redirect', description: 'A request paused at onBeforeRequest or onHeadersReceived: redirect it to a URL', views: ['list', 'detail'], liveOnly: true },
  { name: 'breakpoint.editHeaders', keys: [{ input: 'E' }], keyLabel: 'E', short: 'edit headers', description: 'A request paused at onBeforeSendHeaders or onHeadersReceived: edit its request or response headers in $EDITOR', views: ['list', 'detail'], liveOnly: true },
  { name: 'breakpoint.credentials', keys: [{ input: 'C' }], keyLabel: 'C', short: 'credentials', description: 'A request paused at onAuthRequired: answer with user:password', views: ['list', 'detail'], liveOnly: true },
  { name: 'list.clear', keys: [{ input: 'x' }], keyLabel: 'x', short: 'clear', description: 'Clear the finished requests from the list (those in flight or paused stay)', views: ['list'], footer: true },
  { name: 'detail.close', keys: [{ special: 'escape' }], keyLabel: 'esc', short: 'close', description: 'Close the detail pane', views: ['detail'], footer: true },
  { name: 'tab.next', keys: [{ special: 'tab', shift: false }, { special: 'rightArrow' }, { input: 'l' }], keyLabel: 'tab/→', short: 'next tab', description: 'Next tab of the detail pane', views: ['detail'], footer: true },
  { name: 'tab.previous', keys: [{ special: 'tab', shift: true }, { special: 'leftArrow' }, { input: 'h' }], keyLabel: 'S-tab/←', short: 'prev tab', description: 'Previous tab of the detail pane', views: ['detail'] },
  { name: 'request.next', keys: [{ input: 'n' }], keyLabel: 'n/p', short: 'next/prev request', description: 'Show the next request in the detail pane (p: the previous one); while searching, n is the next match', views: ['detail'], footer: true },
  { name: 'request.previous', keys: [{ input: 'p' }], keyLabel: 'p', short: 'previous request', description: 'Show the previous request in the detail pane', views: ['detail'] },
  { name: 'cookies.store', keys: [{ input: 's' }, { special: 'tab' }], keyLabel: 's/tab', short: 'store 0/1', description: 'Switch between cookie store "0" and the incognito store "1"', views: ['cookies'], footer: true },
  { name: 'cookies.edit', keys: [{ input: 'e' }], keyLabel: 'e', short: 'edit value', description: 'Edit the cookie\'s value (cookies.set as an extension would; onChanged fires)', views: ['cookies'], footer: true },
  { name: 'cookies.delete', keys: [{ input: 'd' }, { special: 'delete' }], keyLabel: 'd', short: 'delete', description: 'Delete the cookie (cookies.remove as an extension would; asks first)', views: ['cookies'], footer: true },
  { name: 'rules.reload', keys: [{ input: 'r' }], keyLabel: 'r', short: 'reload', description: 'Reload the rule now (counts against its handlerBehaviorChanged quota)', views: ['rules'], footer: true },
  { name: 'rules.dryRun', keys: [{ input: 'd' }], keyLabel: 'd', short: 'rule dry-run', description: 'Turn the rule\'s dry-run on or off', views: ['rules'], footer: true },
  { name: 'rules.editAsCode', keys: [{ input: 'c' }], keyLabel: 'c', short: 'as code', description: 'A quick rule (quick #N): turn it into a TypeScript rule file (run in a worker) and take it out of quick-rules/rules.json', views: ['rules'] },
  { name: 'rules.details', keys: [{ special: 'return' }], keyLabel: 'enter', short: 'error/details', description: 'Show the rule\'s error, listeners and type errors in full', views: ['rules'], footer: true },
  { name: 'view.back', keys: [{ special: 'escape' }], keyLabel: 'esc', short: 'back', description: 'Back to the request list', views: ['cookies', 'rules', 'log', 'help'] },

  // ── navigation ──
  { name: 'move.up', keys: [{ special: 'upArrow' }, { input: 'k' }], keyLabel: '↑/k', short: 'up', description: 'Up one line', views: NAVIGABLE },
  { name: 'move.down', keys: [{ special: 'downArrow' }, { input: 'j' }], keyLabel: '↓/j', short: 'down', description: 'Down one line', views: NAVIGABLE },
  { name: 'page.up', keys: [{ special: 'pageUp' }, { input: 'b', ctrl: true }, { input: 'u', ctrl: true }], keyLabel: 'PgUp', short: 'page up', description: 'Up one page (also Ctrl-B, Ctrl-U)', views: NAVIGABLE },
  { name: 'page.down', keys: [{ special: 'pageDown' }, { input: 'f', ctrl: true }, { input: 'd', ctrl: true }], keyLabel: 'PgDn', short: 'page down', description: 'Down one page (also Ctrl-F, Ctrl-D)', views: NAVIGABLE },
  { name: 'move.top', keys: [{ input: 'g' }, { special: 'home' }], keyLabel: 'g/Home', short: 'top', description: 'To the first line (in the list: stops following)', views: NAVIGABLE },
  { name: 'move.bottom', keys: [{ input: 'G' }, { special: 'end' }], keyLabel: 'G/End', short: 'follow', description: 'To the last line; in the list and the log, follow new lines again', views: NAVIGABLE, footer: true, footerIn: ['list', 'log'] },
  { name: 'list.sortReverse', keys: [{ input: 'O' }], keyLabel: 'O', short: 'reverse', description: 'Reverse the sort order', views: ['list'] },

  // ── global ──
  { name: 'view.requests', keys: [{ input: '1' }], keyLabel: '1', short: 'requests', description: 'The request list', views: 'all' },
  { name: 'view.cookies', keys: [{ input: '2' }], keyLabel: '2', short: 'cookies', description: 'Cookie stores "0" and "1" and the onChanged log', views: 'all', footer: true },
  { name: 'view.rules', keys: [{ input: '3' }], keyLabel: '3', short: 'rules', description: 'Rule files: state, listeners, quota', views: 'all', footer: true },
  { name: 'view.log', keys: [{ input: '4' }], keyLabel: '4', short: 'log', description: 'Log: rules\' and libraries\' console output, warnings, rule loads', views: 'all', footer: true },
  { name: 'dryRun.toggle', keys: [{ input: 'D' }], keyLabel: 'D', short: 'global dry-run', description: 'Global dry-run on/off: every rule\'s verdict is computed and journaled, none applied', views: 'all', footer: true },
  // Newer keys last: a narrow footer drops from the end (? help and q quit always stay).
  { name: 'request.resend', keys: [{ input: 'r' }], keyLabel: 'r', short: 'resend', description: "Resend the request through the proxy as the client sent it: today's rules and cookie jar apply, and it is listed as a new request", views: ['list', 'detail'], footer: true, liveOnly: true },
  { name: 'request.editResend', keys: [{ input: 'e' }], keyLabel: 'e', short: 'edit+resend', description: 'Edit the request in $VISUAL or $EDITOR (method and URL, headers, blank line, body), then resend it', views: ['list', 'detail'], footer: true, liveOnly: true },
  { name: 'breakpoint.set', keys: [{ input: 'i' }], keyLabel: 'i', short: 'breakpoint', description: 'Set a breakpoint: a stage (onBeforeRequest, onBeforeSendHeaders, onHeadersReceived, onAuthRequired) and a filter; matching requests pause until answered', views: ['list', 'detail'], footer: true, liveOnly: true },
  { name: 'request.quickRule', keys: [{ input: 'w' }], keyLabel: 'w', short: 'write rule', description: 'Write a quick rule for the request: block, redirect URL, header Name: value, response-header Name: value, file PATH (a declarativeNetRequest rule in the rules folder\'s quick-rules/rules.json: no worker)', views: ['list', 'detail'], footer: true },
  { name: 'session.saveHar', keys: [{ input: 'S' }], keyLabel: 'S', short: 'save HAR', description: 'Save the requests the TUI holds as a HAR 1.2 file in <state-dir>/exports (replays with wrtui replay), with or without --record', views: ['list', 'detail'] },
  { name: 'request.original', keys: [{ input: 'R' }], keyLabel: 'R', short: 'original', description: 'A resent request (marked "resent"): select the request it resent', views: ['list', 'detail'] },
  { name: 'list.sort', keys: [{ input: 'o' }], keyLabel: 'o', short: 'sort', description: 'Sort the list by the next column: arrival, duration, size, status (largest first; arrival follows new requests)', views: ['list'], footer: true },
  { name: 'help', keys: [{ input: '?' }], keyLabel: '?', short: 'help', description: 'Show or hide this help', views: 'all', footer: true },
  { name: 'quit', keys: [{ input: 'q' }, { input: 'c', ctrl: true }], keyLabel: 'q', short: 'quit', description: 'Quit (also Ctrl-C): restore the terminal, stop the proxy, save the cookies', views: 'all', footer: true },
] as const satisfies readonly CommandSpec[];

export type CommandName = (typeof COMMANDS)[number]['name'];

function isActiveIn(command: CommandSpec, view: ViewName): boolean {
  return command.views === 'all' || command.views.includes(view);
}

function matches(binding: KeyBinding, input: string, key: Key): boolean {
  if (binding.special) {
    if (!key[binding.special]) return false;
    if (binding.shift !== undefined && binding.shift !== key.shift) return false;
    return binding.ctrl === undefined || binding.ctrl === key.ctrl;
  }
  if (binding.input === undefined || input !== binding.input) return false;
  if (Boolean(binding.ctrl) !== key.ctrl) return false;
  // Escape sequences arrive with meta; a plain letter never does.
  return !key.meta || key.escape;
}

/** The command a key means in a view, if any. */
export function commandFor(view: ViewName, input: string, key: Key): CommandName | undefined {
  for (const command of COMMANDS as readonly CommandSpec[]) {
    if (!isActiveIn(command, view)) continue;
    if (command.keys.some((binding) => matches(binding, input, key))) return command.name as CommandName;
  }
  return undefined;
}

/** The commands the footer shows in a view, view-specific ones first; a replay's leaves out what needs the live proxy. */
export function footerCommands(view: ViewName, mode: SessionMode = 'live'): CommandSpec[] {
  return (COMMANDS as readonly CommandSpec[]).filter(
    (command) => command.footer && isActiveIn(command, view) && (!command.footerIn || command.footerIn.includes(view)) && (mode === 'live' || !command.liveOnly),
  );
}

/** The whole table grouped for the help screen: global commands, then each view's. */
export function helpSections(): { title: string; commands: CommandSpec[] }[] {
  const all = COMMANDS as readonly CommandSpec[];
  const sections = [{ title: 'Everywhere', commands: all.filter((command) => command.views === 'all') }];
  sections.push({ title: 'Moving around (lists, panes, help)', commands: all.filter((command) => command.name.startsWith('move.') || command.name.startsWith('page.')) });
  for (const view of ['list', 'detail', 'cookies', 'rules'] as const) {
    const commands = all.filter((command) => command.views !== 'all' && command.views.includes(view) && !command.name.startsWith('move.') && !command.name.startsWith('page.'));
    sections.push({ title: VIEW_TITLES[view], commands });
  }
  sections.push({ title: 'Other views', commands: all.filter((command) => command.name === 'view.back') });
  return sections;
}
