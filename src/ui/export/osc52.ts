// OSC 52: the terminal escape sequence that puts text on the clipboard of the terminal the user
// sits at, even over ssh. Terminals that do not support it ignore it; tmux passes it on with
// `set -g set-clipboard on`.

/** Terminals cap what they accept (xterm ~100 kB of base64); larger text goes to the file only. */
export const MAX_OSC52_BYTES = 74_994;

export function osc52Sequence(text: string): string | undefined {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > MAX_OSC52_BYTES) return undefined;
  return `\x1b]52;c;${bytes.toString('base64')}\x07`;
}
