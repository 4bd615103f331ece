// wrtui composes Ink's frames with less work (src/ui/ink-fast-output.ts); the terminal must not
// be able to tell. Every frame of real screens (list, detail tabs, cookies, rules, help, wide and
// combining characters, a clipped panel) is composed both ways and must be the same bytes.
import { styledCharsFromTokens, tokenize } from '@alcalzone/ansi-tokenize';
import { Box, Text } from 'ink';
import { render } from 'ink-testing-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asciiStyledChars, installFastInkOutput, type InkOutputPatch } from '../../src/ui/ink-fast-output.js';
import { KEYS, respond, startHarness } from './ui-harness.js';

let patch: InkOutputPatch;
const mismatches: { fast: string; ink: string }[] = [];
let framesCompared = 0;

beforeAll(async () => {
  const installed = await installFastInkOutput();
  if (!installed) throw new Error('Ink 6.8 has the Output shape ink-fast-output.ts relies on: the patch should install');
  patch = installed;
  // Compose each frame both ways: Ink's own code with Ink's own (per-frame) caches, and ours.
  patch.prototype.get = function compared(this: ThisParameterType<InkOutputPatch["fastGet"]>) {
    const fast = patch.fastGet.call(this);
    const ink = patch.inkGet.call({ ...this, caches: patch.inkCaches() });
    framesCompared++;
    if (fast.output !== ink.output || fast.height !== ink.height) mismatches.push({ fast: fast.output, ink: ink.output });
    return fast;
  };
});
afterAll(() => {
  patch.prototype.get = patch.fastGet;
});

describe('faster frame composition changes no byte of what Ink writes', () => {
  it('every screen of a session, at 80 and 200 columns, is composed byte for byte as Ink composes it', async () => {
    for (const columns of [80, 200]) {
      const h = await startHarness({ size: { columns, rows: 30 } });
      try {
        await h.request('http://shop.test/login', { route: () => respond(200, 'ok', [{ name: 'Set-Cookie', value: 'sid=abc; Path=/' }]) });
        await h.request('http://shop.test/日本語/emoji-😀/café?q=ü', { route: () => respond(200, '{"名前":"値","emoji":"😀"}', [{ name: 'Content-Type', value: 'application/json' }]) });
        await h.request(`http://cdn.example.test/${'long-segment/'.repeat(12)}app.js`);
        await h.request('http://down.test/', { refuse: true });
        await h.settle();
        await h.press(KEYS.down, KEYS.enter, KEYS.tab, KEYS.tab, KEYS.escape, '2', '3', '?', KEYS.escape, '1', '/', 'shop', KEYS.enter);
        await h.settle();
      } finally {
        await h.close();
      }
    }
    expect(framesCompared).toBeGreaterThan(20);
    expect(mismatches).toEqual([]);
  });

  it('clipped, overlapping and wide-character writes are composed as Ink composes them', async () => {
    const before = framesCompared;
    const view = render(
      <Box flexDirection="column" width={30}>
        <Box width={12} height={2} overflow="hidden" borderStyle="single">
          <Text color="green">{'clipped text that runs far past its box 😀😀'}</Text>
        </Box>
        <Box>
          <Text backgroundColor="blue" bold>
            漢字かな
          </Text>
          <Text dimColor>e\u0301 combining</Text>
        </Box>
        <Box marginLeft={-2}>
          <Text inverse>{'\u001b[1;31mraw SGR\u001b[22m half\u001b[0m'}</Text>
        </Box>
      </Box>,
    );
    view.rerender(
      <Box width={10}>
        <Text>{'x'.repeat(40)}</Text>
      </Box>,
    );
    view.unmount();
    expect(framesCompared).toBeGreaterThan(before);
    expect(mismatches).toEqual([]);
  });

  it('a line of ASCII and SGR codes is split into the characters and styles the tokenizer gives', () => {
    const lines = [
      'plain',
      '\u001b[1mbold\u001b[0m rest',
      '\u001b[1;2;32mbold dim green\u001b[22m still green\u001b[39m none',
      '\u001b[7m selected row \u001b[27m',
      '\u001b[38;5;208morange\u001b[0m',
      '\u001b[38;2;1;2;3mtrue colour\u001b[49m\u001b[0m',
      '\u001b[0m\u001b[0m',
      '',
    ];
    for (const line of lines) expect(asciiStyledChars(line)).toEqual(styledCharsFromTokens(tokenize(line)));
    // Anything else is left to the tokenizer.
    expect(asciiStyledChars('tab\there')).toBeUndefined();
    expect(asciiStyledChars('café')).toBeUndefined();
    expect(asciiStyledChars('\u001b]8;;http://x\u0007link\u001b]8;;\u0007')).toBeUndefined();
  });
});
