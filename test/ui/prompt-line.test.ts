// The prompt's editing: a prefilled value is selected (typing replaces it, an arrow keeps it to
// edit), and the text scrolls across the width it has with the cursor always in view.
import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { editText, openEdit, promptWindow, type Edit } from '../../src/ui/components/PromptLine.js';

const NO_KEY: Key = { upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false, return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false, super: false, hyper: false, capsLock: false, numLock: false } as Key;
const key = (overrides: Partial<Key>): Key => ({ ...NO_KEY, ...overrides });

function typed(edit: Edit, ...keys: (string | Partial<Key>)[]): Edit {
  let current = edit;
  for (const one of keys) {
    const next = typeof one === 'string' ? editText(current, one, key({})) : editText(current, '', key(one));
    if (typeof next === 'string') throw new Error(`the prompt ended (${next})`);
    current = next;
  }
  return current;
}

describe('a prefilled prompt', () => {
  it('typing over the suggestion "block" replaces it: "block" typed stays "block", not "blockblock"', () => {
    expect(typed(openEdit('block'), 'b', 'l', 'o', 'c', 'k').text).toBe('block');
    // A paste arrives as one input: it replaces the suggestion too.
    expect(typed(openEdit('onBeforeRequest '), 'onBeforeRequest host:shop').text).toBe('onBeforeRequest host:shop');
  });

  it('an arrow or Home keeps the suggestion to edit it; Backspace or Ctrl-U clears it', () => {
    expect(typed(openEdit('https://a.test/x'), { rightArrow: true }, '/y')).toEqual({ text: 'https://a.test/x/y', cursor: 18 });
    expect(typed(openEdit('a.test'), { home: true }, 'x')).toEqual({ text: 'xa.test', cursor: 1 });
    expect(typed(openEdit('a.test'), { delete: true })).toEqual({ text: '', cursor: 0 });
    expect(editText(openEdit('a.test'), 'u', key({ ctrl: true }))).toEqual({ text: '', cursor: 0 });
  });

  it('enter on the suggestion submits it unchanged; an empty prompt opens with nothing selected', () => {
    expect(editText(openEdit('block'), '', key({ return: true }))).toBe('submit');
    expect(openEdit('')).toEqual({ text: '', cursor: 0 });
  });
});

describe('the prompt scrolls its text', () => {
  it('a text that fits is shown whole', () => {
    expect(promptWindow('host:a', 6, 20)).toEqual({ start: 0, end: 6, hiddenBefore: false, hiddenAfter: false });
  });

  it('typing past the width keeps the cursor at the right edge and marks what scrolled off the left', () => {
    const text = 'onBeforeRequest host:shop.example.com path:^/checkout';
    const view = promptWindow(text, text.length, 30);
    expect(view.end).toBe(text.length);
    expect(view.end - view.start + 1).toBe(30); // the text and the cursor cell use all 30 columns
    expect(view.hiddenBefore).toBe(true);
  });

  it('with the cursor at the start the beginning shows and the end is marked hidden', () => {
    const text = 'x'.repeat(100);
    expect(promptWindow(text, 0, 30)).toEqual({ start: 0, end: 30, hiddenBefore: false, hiddenAfter: true });
  });

  it('wherever the cursor is, it is inside the window', () => {
    const text = 'abcdefghijklmnopqrstuvwxyz0123456789';
    for (let cursor = 0; cursor <= text.length; cursor++) {
      const view = promptWindow(text, cursor, 10);
      expect(cursor).toBeGreaterThanOrEqual(view.start);
      expect(cursor).toBeLessThanOrEqual(view.end);
      expect(view.end - view.start).toBeLessThanOrEqual(10);
    }
  });
});
