// xterm's SGR mouse reports as Ink hands them over (the ESC taken off), and where a click on the
// detail pane's tab bar lands.
import { describe, expect, it } from 'vitest';
import { tabAtColumn } from '../../src/ui/components/DetailPane.js';
import { DETAIL_TAB_TITLES, detailTabsFor } from '../../src/ui/detail/detail-tabs.js';
import { mouseWanted, parseMouse } from '../../src/ui/mouse.js';

describe('mouse reports', () => {
  it('a left press and release, the wheel both ways, at 0-based coordinates; past column 223 too', () => {
    expect(parseMouse('[<0;12;5M')).toEqual([{ kind: 'press', button: 0, x: 11, y: 4 }]);
    expect(parseMouse('[<0;12;5m')).toEqual([{ kind: 'release', button: 0, x: 11, y: 4 }]);
    expect(parseMouse('\x1b[<64;3;4M\x1b[<65;300;4M')).toEqual([
      { kind: 'wheelUp', button: 0, x: 2, y: 3 },
      { kind: 'wheelDown', button: 0, x: 299, y: 3 },
    ]);
  });

  it('keys are never taken for the mouse: text, "[<" typed in a filter, a report with keys after it', () => {
    expect(parseMouse('j')).toBeUndefined();
    expect(parseMouse('[<')).toBeUndefined();
    expect(parseMouse('[<0;1;1Mq')).toBeUndefined();
  });

  it('off with --no-mouse and on terminals without a mouse (TERM=dumb, the Linux console)', () => {
    expect(mouseWanted(undefined, { TERM: 'xterm-256color' })).toBe(true);
    expect(mouseWanted(false, { TERM: 'xterm-256color' })).toBe(false);
    expect(mouseWanted(undefined, { TERM: 'dumb' })).toBe(false);
    expect(mouseWanted(undefined, { TERM: 'linux' })).toBe(false);
  });
});

describe('the tab bar', () => {
  it('a click on a tab title, brackets included, picks that tab; between titles, none', () => {
    const tabs = detailTabsFor('live');
    // " [Timeline]  Request  …": each title takes its length plus 2, one space between.
    let start = 1;
    for (const tab of tabs) {
      const width = DETAIL_TAB_TITLES[tab].length + 2;
      expect(tabAtColumn(tabs, start)).toBe(tab);
      expect(tabAtColumn(tabs, start + width - 1)).toBe(tab);
      expect(tabAtColumn(tabs, start + width)).toBeUndefined();
      start += width + 1;
    }
    expect(tabAtColumn(tabs, 0)).toBeUndefined();
  });
});
