// The alternate screen: the TUI draws on its own screen and, on the way out, the user gets the
// shell screen back as it was. Restored on every way out: quit, SIGTERM, a crash, process.exit.
import { writeSync } from 'node:fs';
import { MOUSE_OFF, MOUSE_ON } from './mouse.js';

const ENTER = '\x1b[?1049h\x1b[2J\x1b[H\x1b[?25l';
// Mouse reporting off first, always (harmless when it was never on): a terminal left reporting
// prints garbage at every click in the shell.
const LEAVE = `${MOUSE_OFF}\x1b[?25h\x1b[?1049l`;

export interface FullScreen {
  /** Leaves the alternate screen and shows the cursor again; safe to call more than once. */
  restore(): void;
}

export function enterFullScreen(stdout: NodeJS.WriteStream, options: { mouse?: boolean } = {}): FullScreen {
  stdout.write(options.mouse ? `${ENTER}${MOUSE_ON}` : ENTER);
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    process.off('exit', restore);
    // Synchronous: on 'exit' and after a crash there is no later tick to flush a stream write.
    try {
      writeSync((stdout as NodeJS.WriteStream & { fd?: number }).fd ?? 1, LEAVE);
    } catch {
      stdout.write(LEAVE);
    }
    if (process.stdin.isTTY) {
      try {
        process.stdin.setRawMode(false);
      } catch {
        // stdin already closed
      }
    }
  };
  process.on('exit', restore);
  return { restore };
}
