// A one-line text prompt (the filter, a cookie's value) with the error of what was typed shown
// under it, a caret pointing at where it is wrong. Two rows high. Typing edits at the cursor;
// enter submits, esc cancels, Ctrl-U clears to the start. Ink 6 reports Backspace as `delete`.
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

interface Edit {
  text: string;
  cursor: number;
}

/** Applies one key to the text; 'submit' / 'cancel' end the prompt. */
export function editText(edit: Edit, input: string, key: Key): Edit | 'submit' | 'cancel' {
  const { text, cursor } = edit;
  if (key.escape) return 'cancel';
  if (key.return) return 'submit';
  if (key.leftArrow) return { text, cursor: Math.max(0, cursor - 1) };
  if (key.rightArrow) return { text, cursor: Math.min(text.length, cursor + 1) };
  if (key.home || (key.ctrl && input === 'a')) return { text, cursor: 0 };
  if (key.end || (key.ctrl && input === 'e')) return { text, cursor: text.length };
  if (key.ctrl && input === 'u') return { text: text.slice(cursor), cursor: 0 };
  if (key.backspace || key.delete) return cursor === 0 ? edit : { text: text.slice(0, cursor - 1) + text.slice(cursor), cursor: cursor - 1 };
  if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.pageUp || key.pageDown || input.length === 0) return edit;
  return { text: text.slice(0, cursor) + input + text.slice(cursor), cursor: cursor + input.length };
}

export function PromptLine({ spec, width, onClose }: PromptLineProps) {
  // The text lives in a ref, changed as keys come: keys typed (or pasted) faster than React
  // redraws must each see the text the previous one left.
  const edit = useRef<Edit>({ text: spec.initial, cursor: spec.initial.length });
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
    edit.current = next;
    if (changed) current.onChange?.(next.text);
    redraw();
    return false;
  }, []);
  useModalKeys(onInput);

  const { text, cursor } = edit.current;
  const error = spec.validate?.(text);
  const label = `${spec.label} `;
  const room = Math.max(1, width - label.length - 1);
  // Scroll the text horizontally so the cursor stays visible.
  const start = Math.max(0, cursor - room + 1);
  const visible = text.slice(start, start + room);
  const segments: Segment[] = [{ text: label, bold: true, color: 'cyan' }];
  for (let index = 0; index <= visible.length; index++) {
    const position = start + index;
    const char = visible[index] ?? ' ';
    const wrong = error !== undefined && position >= error.position && position < error.position + error.length;
    segments.push({ text: char, inverse: position === cursor, ...(wrong && { color: 'red', bold: true }) });
  }
  const below: Segment[] = error
    ? [
        { text: ' '.repeat(Math.max(0, label.length + error.position - start)) },
        { text: `${'^'.repeat(Math.max(1, Math.min(error.length, room)))} ${error.message}`, color: 'red' },
      ]
    : [{ text: ' enter apply · esc cancel · Ctrl-U clear', dim: true }];
  return (
    <Box flexDirection="column" height={2}>
      <FixedLine width={width} text={renderLine(segments, width)} />
      <FixedLine width={width} text={renderLine(below, width)} />
    </Box>
  );
}
