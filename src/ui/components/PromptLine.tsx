// A one-line text prompt (the filter, a cookie's value) with the error of what was typed shown
// under it, a caret pointing at where it is wrong, or else a hint of what to type. Two rows high.
// A prefilled value opens selected: the first key typed replaces it, an arrow keeps it to edit.
// Typing edits at the cursor; the text scrolls across the whole width the label leaves; enter
// submits, esc cancels, Ctrl-U clears to the start. Ink 6 reports Backspace as `delete`.
import { Box, type Key } from 'ink';
import { useCallback, useReducer, useRef } from 'react';
import { renderLine } from '../ansi.js';
import type { Segment } from '../detail/styled-line.js';
import { useModalKeys } from '../hooks/use-view-commands.js';
import type { PromptSpec } from '../ui-actions.js';
import { FixedLine } from './FixedLine.js';

export interface PromptLineProps {
  spec: PromptSpec;
  width: number;
  onClose: () => void;
}

export interface Edit {
  text: string;
  cursor: number;
  /** The prefilled text is selected: the first key typed replaces it (a text field's select-all). */
  selected?: boolean;
}

/** The prompt's text as it opens: a prefilled value is selected, so typing replaces it rather than appending. */
export function openEdit(initial: string): Edit {
  return initial === '' ? { text: '', cursor: 0 } : { text: initial, cursor: initial.length, selected: true };
}

/** Applies one key to the text; 'submit' / 'cancel' end the prompt. */
export function editText(edit: Edit, input: string, key: Key): Edit | 'submit' | 'cancel' {
  const { text, cursor } = edit;
  if (key.escape) return 'cancel';
  if (key.return) return 'submit';
  if (edit.selected) {
    // A movement keeps the text and drops the selection; a deletion or a typed key replaces it all.
    if (key.leftArrow || key.home || (key.ctrl && input === 'a')) return { text, cursor: 0 };
    if (key.rightArrow || key.end || (key.ctrl && input === 'e')) return { text, cursor: text.length };
    if (key.backspace || key.delete || (key.ctrl && input === 'u')) return { text: '', cursor: 0 };
    if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.pageUp || key.pageDown || input.length === 0) return edit;
    return { text: input, cursor: input.length };
  }
  if (key.leftArrow) return { text, cursor: Math.max(0, cursor - 1) };
  if (key.rightArrow) return { text, cursor: Math.min(text.length, cursor + 1) };
  if (key.home || (key.ctrl && input === 'a')) return { text, cursor: 0 };
  if (key.end || (key.ctrl && input === 'e')) return { text, cursor: text.length };
  if (key.ctrl && input === 'u') return { text: text.slice(cursor), cursor: 0 };
  if (key.backspace || key.delete) return cursor === 0 ? edit : { text: text.slice(0, cursor - 1) + text.slice(cursor), cursor: cursor - 1 };
  if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.pageUp || key.pageDown || input.length === 0) return edit;
  return { text: text.slice(0, cursor) + input + text.slice(cursor), cursor: cursor + input.length };
}

/**
 * Which part of the text fits in `room` columns with the cursor visible: the window scrolls so
 * the cursor stays in view, and a '…' at either end says text is hidden there.
 */
export function promptWindow(text: string, cursor: number, room: number): { start: number; end: number; hiddenBefore: boolean; hiddenAfter: boolean } {
  const columns = Math.max(1, room);
  // The cursor may sit one past the end (where the next character goes): that cell counts too.
  const length = text.length + 1;
  if (length <= columns) return { start: 0, end: text.length, hiddenBefore: false, hiddenAfter: false };
  let start = Math.max(0, Math.min(cursor - columns + 2, length - columns));
  if (cursor < start + 1) start = Math.max(0, cursor - 1);
  const end = Math.min(text.length, start + columns);
  return { start, end, hiddenBefore: start > 0, hiddenAfter: end < text.length };
}

export function PromptLine({ spec, width, onClose }: PromptLineProps) {
  // The text lives in a ref, changed as keys come: keys typed (or pasted) faster than React
  // redraws must each see the text the previous one left.
  const edit = useRef<Edit>(openEdit(spec.initial));
  const done = useRef(false);
  const [, redraw] = useReducer((count: number) => count + 1, 0);
  const latest = useRef({ spec, onClose });
  latest.current = { spec, onClose };

  const onInput = useCallback((input: string, key: Key): boolean => {
    if (done.current) return false;
    const next = editText(edit.current, input, key);
    const { spec: current, onClose: close } = latest.current;
    if (next === 'cancel') {
      done.current = true;
      close();
      current.onCancel?.();
      return true;
    }
    if (next === 'submit') {
      if (current.validate?.(edit.current.text)) return false; // stay: the error line says what to fix
      done.current = true;
      close();
      current.onSubmit(edit.current.text);
      return true;
    }
    const changed = next.text !== edit.current.text;
    const redrawn = changed || next.cursor !== edit.current.cursor || next.selected !== edit.current.selected;
    edit.current = next;
    if (changed) current.onChange?.(next.text);
    if (redrawn) redraw();
    return false;
  }, []);
  useModalKeys(onInput);

  const { text, cursor, selected } = edit.current;
  const error = spec.validate?.(text);
  const label = `${spec.label.trimEnd()} `;
  // The label keeps at most half the line: the text typed gets the rest of the width.
  const shownLabel = label.length > width / 2 ? `${label.slice(0, Math.max(1, Math.floor(width / 2) - 2))}… ` : label;
  const room = Math.max(1, width - shownLabel.length - 1);
  const view = promptWindow(text, cursor, room);
  const segments: Segment[] = [{ text: shownLabel, bold: true, color: 'cyan' }];
  if (text === '' && spec.placeholder) {
    segments.push({ text: ' ', inverse: true }, { text: spec.placeholder.slice(0, room - 1), dim: true });
  } else {
    // The cell after the last character is where the cursor stands to append.
    const last = view.hiddenAfter ? view.end - 1 : view.end;
    for (let position = view.start; position <= last; position++) {
      const edge = (position === view.start && view.hiddenBefore && position !== cursor) || (position === last && view.hiddenAfter && position !== cursor);
      const char = edge ? '…' : (text[position] ?? ' ');
      const wrong = error !== undefined && position >= error.position && position < error.position + error.length;
      const inSelection = selected === true && position < text.length;
      segments.push({ text: char, inverse: position === cursor || inSelection, ...(wrong && { color: 'red', bold: true }), ...(edge && { dim: true }) });
    }
  }
  const keysHint = selected ? 'type to replace · ←/→ edit it · enter apply · esc cancel' : 'enter apply · esc cancel · Ctrl-U clear';
  const below: Segment[] = error
    ? [
        { text: ' '.repeat(Math.max(0, shownLabel.length + error.position - view.start)) },
        { text: `${'^'.repeat(Math.max(1, Math.min(error.length, room)))} ${error.message}`, color: 'red' },
      ]
    : [{ text: ` ${spec.hint ? `${spec.hint} · ` : ''}${keysHint}`, dim: true }];
  return (
    <Box flexDirection="column" height={2}>
      <FixedLine width={width} text={renderLine(segments, width)} />
      <FixedLine width={width} text={renderLine(below, width)} />
    </Box>
  );
}
