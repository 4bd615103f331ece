// What any view may ask of the App frame: a one-line text prompt (the filter, a cookie's value),
// a yes/no question, a short message in the footer. One modal at a time; while one is open the
// views hear no keys.
import { createContext, useContext } from 'react';

export interface PromptSpec {
  /** A short name (a few words): the text typed gets the rest of the line. */
  label: string;
  /** Prefilled, and selected: the first key typed replaces it. */
  initial: string;
  /** Shown dimmed while the text is empty (an example of what to type). */
  placeholder?: string;
  /** What to type, on the line under the text while it has no error. */
  hint?: string;
  /** Checked on every keystroke; an error is shown under the text with a caret. */
  validate?: (text: string) => { message: string; position: number; length: number } | undefined;
  onSubmit: (text: string) => void;
  onCancel?: () => void;
  /** Called with the text after every edit (the filter narrows the list as one types). */
  onChange?: (text: string) => void;
}

export interface ConfirmSpec {
  question: string;
  onYes: () => void;
}

export type NoticeLevel = 'info' | 'warn' | 'error';

export interface UiActions {
  prompt(spec: PromptSpec): void;
  confirm(spec: ConfirmSpec): void;
  notify(text: string, level?: NoticeLevel): void;
}

const noop: UiActions = { prompt: () => {}, confirm: () => {}, notify: () => {} };

export const UiActionsContext = createContext<UiActions>(noop);

export function useUiActions(): UiActions {
  return useContext(UiActionsContext);
}
