import { describe, expect, it } from 'vitest';
import { describeRuntime } from '../../src/engine/extensions/runtime-description.js';

describe('a worker state change as a log line', () => {
  it('names the place in the user\'s code first, so a row cut to the terminal width still shows it', () => {
    const text = describeRuntime({
      kind: 'runtime',
      owner: 'MV3 Blocker',
      state: 'restarting',
      reason: 'its event loop did not turn for 5003 ms (a synchronous loop?); starting it again in 100 ms',
      doing: { event: 'onBeforeRequest', url: 'http://example.test/spin', forMs: 5003 },
      location: 'background.js:11:45',
      restarts: 0,
    });
    expect(text.slice(0, 40)).toContain('background.js:11:45');
    expect(text).toBe(
      'restarting: background.js:11:45: its event loop did not turn for 5003 ms (a synchronous loop?); starting it again in 100 ms while handling onBeforeRequest for http://example.test/spin (5003 ms)',
    );
  });

  it('says how many restarts a worker running again took, and nothing empty', () => {
    expect(describeRuntime({ kind: 'runtime', owner: 'r', state: 'running', restarts: 1 })).toBe('running after 1 restart');
    expect(describeRuntime({ kind: 'runtime', owner: 'r', state: 'running', restarts: 2 })).toBe('running after 2 restarts');
    expect(describeRuntime({ kind: 'runtime', owner: 'r', state: 'crashed', reason: 'its worker exited with code 3 (process.exit?)', restarts: 4 })).toBe(
      'crashed: its worker exited with code 3 (process.exit?)',
    );
  });
});
