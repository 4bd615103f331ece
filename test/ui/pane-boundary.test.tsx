// A pane that fails to draw says why in its own place, the log has it once, and everything else
// (the other panes, the keys, the capture behind the screen) goes on. The fault here is the Rules
// tab's: the declarativeNetRequest explanation it asks for throws.
import { afterEach, describe, expect, it } from 'vitest';
import type { JournalEntry, LogEntry } from '../../src/engine/journal.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyScreen, type ProxyScreen } from './proxy-screen.js';
import { KEYS } from './ui-harness.js';

let screen: ProxyScreen | undefined;
let origin: Origin | undefined;
afterEach(async () => {
  await screen?.close();
  await origin?.close();
  screen = origin = undefined;
});

const paneFailures = (entries: readonly JournalEntry[]) => entries.filter((entry): entry is LogEntry & JournalEntry => entry.kind === 'log' && entry.source === 'tui');

describe('a pane that fails to draw is caught in place', () => {
  it('shows "this pane failed to draw: <message>" where the pane was, logs it once, and capture and the other panes go on', async () => {
    origin = await startOrigin();
    screen = await startProxyScreen({
      backend: (live) => ({
        ...live,
        explainDnr: () => {
          throw new TypeError('the rules engine is gone');
        },
      }),
    });
    const s = screen;
    await s.h.curl(['-s', `${origin.url}/first`]);
    await s.waitFor('/first');
    await s.press(KEYS.enter, KEYS.tab, KEYS.tab, KEYS.tab);
    const failed = await s.waitFor('this pane failed to draw');
    expect(failed).toContain('this pane failed to draw: TypeError: the rules engine is gone');
    expect(failed).toContain('Requests'); // the list beside it is drawn
    expect(failed).toMatch(/\/first/);

    // Drawn again and again (new traffic, keys), it is logged once; the proxy serves on, the list shows it.
    await s.h.curl(['-s', `${origin.url}/second`]);
    await s.waitFor('/second');
    await s.press('j', 'k');
    expect(paneFailures(s.h.entries)).toMatchObject([{ level: 'error', message: expect.stringContaining('the detail Rules pane failed to draw: TypeError: the rules engine is gone') }]);

    // Another tab draws as usual; the log view shows the failure.
    await s.press(KEYS.tab);
    const cookies = await s.waitFor('[Cookies]');
    expect(cookies).not.toContain('failed to draw');
    await s.press('4');
    await s.waitFor((frame) => frame.includes('the detail Rules pane failed to draw'));
  });
});
