// The terminal's size, following resizes. Ink 6 has no such hook, and with CI set it stops
// listening to resizes itself; this one listens to the output stream directly. Tests pass the
// size in (ink-testing-library's stream has no rows).
import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

export interface TerminalSize {
  columns: number;
  rows: number;
}

const FALLBACK: TerminalSize = { columns: 80, rows: 24 };

export function useTerminalSize(fixed?: TerminalSize): TerminalSize {
  const { stdout } = useStdout();
  const read = (): TerminalSize => ({ columns: stdout.columns || FALLBACK.columns, rows: stdout.rows || FALLBACK.rows });
  const [size, setSize] = useState<TerminalSize>(fixed ?? read);
  useEffect(() => {
    if (fixed) return;
    const resized = () => setSize(read());
    stdout.on('resize', resized);
    return () => {
      stdout.off('resize', resized);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [stdout, fixed]);
  return fixed ?? size;
}
