// While the TUI owns the terminal, anything written to stderr (a library's direct write, a
// warning) would land over the screen: send it to the journal's log instead, like console.*.
import type { Journal } from '../engine/journal.js';

export function captureStderr(journal: Journal): () => void {
  const original = process.stderr.write;
  let pending = '';
  process.stderr.write = ((chunk: string | Uint8Array, encodingOrCallback?: BufferEncoding | ((error?: Error | null) => void), callback?: (error?: Error | null) => void) => {
    pending += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const text of lines) if (text.trim()) journal.append({ kind: 'log', level: 'warn', source: 'stderr', message: text });
    const done = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback;
    done?.();
    return true;
  }) as typeof process.stderr.write;
  return () => {
    process.stderr.write = original;
    if (pending.trim()) journal.append({ kind: 'log', level: 'warn', source: 'stderr', message: pending });
  };
}
