// One line of the screen, exactly `width` columns wide and one row high, holding an ANSI string
// (ansi.ts renderLine). Every line of wrtui's screen goes through this instead of <Text>.
//
// Why not <Text>: Yoga asks Ink to measure every text node whose size it does not know, and Ink
// (6.8, like 7) remembers each measured string in a module-level Map that is never emptied
// (vadimdemedes/ink#986). A request list shows new strings every frame, so with <Text> that Map
// grew by ~40 strings a frame, for ever (38 MB per 200k lines measured). A text node whose width
// and height are given is never measured, and nothing is remembered. The host element is the one
// <Text> itself renders; wrtui's lines are already styled and fitted, so Text's colour transform
// and wrapping have nothing to do.
import { createElement } from 'react';

export interface FixedLineProps {
  /** An ANSI string exactly `width` columns wide. */
  text: string;
  width: number;
}

export function FixedLine({ text, width }: FixedLineProps) {
  return createElement('ink-text', { style: { width, height: 1, flexGrow: 0, flexShrink: 0, flexDirection: 'row', textWrap: 'truncate-end' } }, text);
}
