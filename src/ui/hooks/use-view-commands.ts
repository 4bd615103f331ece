// Keys reach the TUI through ONE stdin subscription, in App (useKeyRouter). Views and modals do
// not subscribe themselves: each render tells the router which handler is current. Keys are
// taken one at a time, and after a key that ran a command the next waits for React to commit
// what it changed: a key right behind another (enter then tab, "/" then text, or several read at
// once under load) must meet the view the previous key made, not the one before it. React
// renders an update a moment after the setState, so without the wait such keys went to the
// previous view's handler (q would quit instead of being typed into the filter).
import { useInput, type Key } from 'ink';
import { createContext, useCallback, useContext, useLayoutEffect, useRef, type MutableRefObject } from 'react';
import { commandFor, type CommandName, type ViewName } from '../commands/command-table.js';
import { parseMouse, type MouseEvent } from '../mouse.js';

export type CommandHandler = (command: CommandName) => void;
export type KeyHandler = (input: string, key: Key) => boolean;

export interface KeyRoutes {
  /** The focused view's command handler, set by that view as it renders. */
  view: { view: ViewName; handle: CommandHandler } | undefined;
  /** The open prompt's or question's raw key handler; returns true when it closed the modal. */
  modal: KeyHandler | undefined;
  /** The focused view's mouse handler (y counted from the view's first row); false: not handled. */
  viewMouse?: { view: ViewName; handle: (event: MouseEvent) => boolean } | undefined;
}

export const KeyRoutesContext = createContext<MutableRefObject<KeyRoutes> | undefined>(undefined);

/** A view's commands: while `active`, keys resolved in `view` go to `handle`. */
export function useViewCommands(view: ViewName, active: boolean, handle: CommandHandler): void {
  const routes = useContext(KeyRoutesContext);
  if (active && routes) routes.current.view = { view, handle };
}

/** A view's clicks and wheel, with y from the view's own first row: true when it handled the event. */
export function useViewMouse(view: ViewName, active: boolean, handle: (event: MouseEvent) => boolean): void {
  const routes = useContext(KeyRoutesContext);
  if (active && routes) routes.current.viewMouse = { view, handle };
}

/** A modal's raw keys (text entry). */
export function useModalKeys(handle: KeyHandler): void {
  const routes = useContext(KeyRoutesContext);
  if (routes) routes.current.modal = handle;
}

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/**
 * The keys in one input. Ink hands several characters read at once (keys typed or repeated
 * faster than the event loop turns, as under heavy traffic, or pasted) over as one "paste"; as
 * commands they are several keys, and a control character in it is the key Ink would have made
 * of it alone (Ctrl-U clears a prompt rather than landing in its text as a raw \x15).
 */
export function splitKeys(input: string, key: Key): [string, Key][] {
  if (input.length <= 1 || key.ctrl || key.meta) return [[input, key]];
  const keys: [string, Key][] = [];
  for (const char of input) {
    if (char === '\r' || char === '\n') keys.push(['', { ...NO_KEY, return: true }]);
    else if (char === '\t') keys.push(['', { ...NO_KEY, tab: true }]);
    else if (char === '\b') keys.push(['', { ...NO_KEY, backspace: true }]);
    else if (char === '\u007f') keys.push(['', { ...NO_KEY, delete: true }]);
    else if (char >= '\u0001' && char <= '\u001a') keys.push([String.fromCharCode(char.charCodeAt(0) + 96), { ...NO_KEY, ctrl: true }]);
    else if (char > '\u001f') keys.push([char, { ...NO_KEY, shift: char !== char.toLowerCase() }]);
    // Other C0 controls mean no key: dropped.
  }
  return keys;
}

export interface KeyRouterState {
  /** Where the user is (decides what a key means). */
  focus: ViewName;
  /** A prompt or question is open: it gets the raw keys. */
  modalOpen: boolean;
  /** App's own (global) commands. */
  global: CommandHandler;
  /** Where a mouse event goes (App knows the screen's layout); absent: the mouse is ignored. */
  mouse?: (event: MouseEvent, routes: KeyRoutes, run: (command: CommandName) => void) => void;
}

/** Longest wait for a render after a command (a command that changed nothing renders nothing). */
const RENDER_WAIT_MS = 100;

/**
 * The one stdin subscription. Returns the routes object to provide through KeyRoutesContext;
 * `state` is read when a key is handled, so pass the latest each render.
 */
export function useKeyRouter(state: KeyRouterState): MutableRefObject<KeyRoutes> {
  const routes = useRef<KeyRoutes>({ view: undefined, modal: undefined });
  const latest = useRef(state);
  latest.current = state;
  const queue = useRef<[string, Key][]>([]);
  const waiting = useRef<NodeJS.Timeout | undefined>(undefined);

  /** Handles one key; true when it ran something that will render. */
  const dispatch = useCallback((input: string, key: Key): boolean => {
    const { focus, modalOpen, global } = latest.current;
    if (modalOpen) return routes.current.modal?.(input, key) ?? false;
    const command = commandFor(focus, input, key);
    if (!command) return false;
    global(command);
    const view = routes.current.view;
    if (view && view.view === focus) view.handle(command);
    return true;
  }, []);

  const drain = useCallback(() => {
    while (queue.current.length > 0 && waiting.current === undefined) {
      const [input, key] = queue.current.shift()!;
      if (dispatch(input, key)) waiting.current = setTimeout(resume, RENDER_WAIT_MS);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [dispatch]);

  const resume = useCallback(() => {
    clearTimeout(waiting.current);
    waiting.current = undefined;
    drain();
  }, [drain]);

  // After every commit of App: what the last command changed is on screen, take the next key.
  useLayoutEffect(() => {
    if (waiting.current !== undefined) resume();
  });

  /** A command as if its key was pressed (the wheel scrolls as the arrows do). */
  const run = useCallback((command: CommandName) => {
    const { focus, global } = latest.current;
    global(command);
    const view = routes.current.view;
    if (view && view.view === focus) view.handle(command);
  }, []);

  const onInput = useCallback(
    (input: string, key: Key) => {
      // A mouse report is never text: not typed into a prompt, not read as keys.
      const mouse = parseMouse(input);
      if (mouse) {
        if (!latest.current.modalOpen) for (const event of mouse) latest.current.mouse?.(event, routes.current, run);
        return;
      }
      queue.current.push(...splitKeys(input, key));
      drain();
    },
    [drain, run],
  );
  useInput(onInput);
  return routes;
}
