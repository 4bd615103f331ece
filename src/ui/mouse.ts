// The mouse, as xterm reports it (SGR mode 1006 over mode 1000: presses, releases and the wheel,
// with coordinates past column 223). Keys stay the primary path: the mouse only selects (a row,
// a tab) and scrolls. Terminals that do not report the mouse send nothing and nothing changes;
// --no-mouse leaves the terminal's own selection alone. The mode is turned off wherever the
// alternate screen is left (terminal-screen.ts), so no way out leaves the terminal reporting.

/** Report presses and the wheel (1000), in SGR form (1006). */
export const MOUSE_ON = '\x1b[?1000h\x1b[?1006h';
export const MOUSE_OFF = '\x1b[?1006l\x1b[?1000l';

/** Lines one notch of the wheel scrolls. */
export const WHEEL_LINES = 3;

export interface MouseEvent {
  kind: 'press' | 'release' | 'wheelUp' | 'wheelDown';
  /** 0 left, 1 middle, 2 right (presses and releases). */
  button: number;
  /** 0-based column and row of the screen. */
  x: number;
  y: number;
}

const SGR_MOUSE = /\x1b?\[<(\d+);(\d+);(\d+)([Mm])/gy;

/**
 * The mouse events an input holds, when it holds nothing else (Ink hands a report over as the
 * input "[<0;12;5M", its ESC taken off); undefined for any other input, which is keys.
 */
export function parseMouse(input: string): MouseEvent[] | undefined {
  if (!input.includes('[<')) return undefined;
  const events: MouseEvent[] = [];
  SGR_MOUSE.lastIndex = 0;
  let match: RegExpExecArray | null;
  let end = 0;
  while ((match = SGR_MOUSE.exec(input)) !== null) {
    end = SGR_MOUSE.lastIndex;
    const code = Number(match[1]);
    const x = Number(match[2]) - 1;
    const y = Number(match[3]) - 1;
    // Bit 6: the wheel (64 up, 65 down); bits 2-4 are modifiers, bit 5 motion (not asked for).
    if (code & 64) events.push({ kind: (code & 1) === 0 ? 'wheelUp' : 'wheelDown', button: 0, x, y });
    else if ((code & 32) === 0) events.push({ kind: match[4] === 'M' ? 'press' : 'release', button: code & 3, x, y });
  }
  return end === input.length && end > 0 ? events : undefined;
}

/** Whether to ask the terminal for mouse reports: not when told not to, nor on a terminal that has no mouse. */
export function mouseWanted(option: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  if (option === false) return false;
  const term = env.TERM ?? '';
  return term !== 'dumb' && term !== 'linux' && term !== '';
}
