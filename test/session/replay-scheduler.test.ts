// The replay scheduler: tasks step through the recorded timeline in order, one at a time, and
// the clock reads the recorded time of the step being replayed.
import { describe, expect, it } from 'vitest';
import { ReplayScheduler } from '../../src/engine/session/replay-scheduler.js';

describe('ReplayScheduler', () => {
  it('interleaves steps by their recorded positions, whatever each step awaits', async () => {
    const times = [1000, 1010, 1020, 1030, 1040, 1050];
    const scheduler = new ReplayScheduler(times, 900);
    const log: string[] = [];
    const slow = () => new Promise((resolve) => setTimeout(resolve, 5));
    const task = (name: string, positions: number[]) => async () => {
      for (const [i, position] of positions.entries()) {
        if (i > 0) await scheduler.at(position);
        await slow();
        log.push(`${name}@${position} t=${scheduler.now()}`);
      }
    };
    await scheduler.run(
      [
        { position: 0, run: task('a', [0, 3, 5]) },
        { position: 1, run: task('b', [1, 2, 4]) },
      ],
      (error) => expect(error).toBeUndefined(),
    );
    expect(log).toEqual(['a@0 t=1000', 'b@1 t=1010', 'b@2 t=1020', 'a@3 t=1030', 'b@4 t=1040', 'a@5 t=1050']);
  });

  it('runs steps without a recorded position at once, and reports a task that throws', async () => {
    const scheduler = new ReplayScheduler([5, 6], 0);
    const log: string[] = [];
    const errors: unknown[] = [];
    await scheduler.run(
      [
        {
          position: 0,
          run: async () => {
            log.push('a1');
            await scheduler.at(undefined);
            log.push('a2');
            throw new Error('boom');
          },
        },
        { position: 1, run: async () => void log.push('b') },
      ],
      (error) => errors.push(error),
    );
    expect(log).toEqual(['a1', 'a2', 'b']);
    expect(errors.map((error) => (error as Error | undefined)?.message)).toEqual(['boom', undefined]);
  });
});
