// The replay scheduler: tasks step through the recorded timeline in order, one at a time (or, with
// overlap, steps waiting on listeners set aside while later ones start), and the clock reads the
// recorded time of the step being replayed.
import { describe, expect, it } from 'vitest';
import { ReplayScheduler, type StepGate } from '../../src/engine/session/replay-scheduler.js';

describe('ReplayScheduler', () => {
  it('interleaves steps by their recorded positions, whatever each step awaits', async () => {
    const times = [1000, 1010, 1020, 1030, 1040, 1050];
    const scheduler = new ReplayScheduler(times, 900);
    const log: string[] = [];
    const slow = () => new Promise((resolve) => setTimeout(resolve, 5));
    const task = (name: string, positions: number[]) => async (gate: StepGate) => {
      for (const [i, position] of positions.entries()) {
        if (i > 0) await gate.at(position);
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
          run: async (gate) => {
            log.push('a1');
            await gate.at(undefined);
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

  /** A step that waits for a "worker" answer, released by hand. */
  function answerLater() {
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    return { answered, release };
  }

  it('with overlap, a step waiting on listeners is set aside and the next step starts: events still go out in recorded order', async () => {
    const scheduler = new ReplayScheduler([0, 1, 2, 3], 0, { overlap: 8 });
    const sent: string[] = [];
    const answers = [answerLater(), answerLater()];
    const runs = [0, 1].map((n) => ({
      position: n,
      stepsAt: [n, n + 2],
      run: async (gate: StepGate) => {
        sent.push(`r${n} step ${n}`);
        gate.waiting();
        await answers[n]!.answered;
        await gate.at(n + 2);
        sent.push(`r${n} step ${n + 2}`);
      },
    }));
    const done = scheduler.run(runs, (error) => expect(error).toBeUndefined());
    await new Promise((resolve) => setImmediate(resolve));
    // Both first steps started although neither was answered.
    expect(sent).toEqual(['r0 step 0', 'r1 step 1']);
    answers[1]!.release();
    answers[0]!.release();
    await done;
    expect(sent).toEqual(['r0 step 0', 'r1 step 1', 'r0 step 2', 'r1 step 3']);
  });

  it('with overlap, what a step does after its answers happens where the recording puts it, whichever answers come first', async () => {
    const orders: string[][] = [];
    for (const releaseFirst of [0, 1]) {
      const scheduler = new ReplayScheduler([0, 1, 2, 3], 0, { overlap: 8 });
      const sent: string[] = [];
      const answers = [answerLater(), answerLater()];
      const runs = [0, 1].map((n) => ({
        position: n,
        stepsAt: [n, n + 2],
        run: async (gate: StepGate) => {
          sent.push(`r${n} asks`);
          gate.waiting();
          await answers[n]!.answered;
          await gate.resumed();
          sent.push(`r${n} told its answer`);
          await gate.at(n + 2);
          sent.push(`r${n} step ${n + 2}`);
        },
      }));
      const done = scheduler.run(runs, (error) => expect(error).toBeUndefined());
      await new Promise((resolve) => setImmediate(resolve));
      answers[releaseFirst]!.release();
      await new Promise((resolve) => setImmediate(resolve));
      answers[1 - releaseFirst]!.release();
      await done;
      orders.push(sent);
    }
    expect(orders[0]).toEqual(['r0 asks', 'r1 asks', 'r0 told its answer', 'r0 step 2', 'r1 told its answer', 'r1 step 3']);
    expect(orders[1]).toEqual(orders[0]);
  });

  it('with overlap, a step set aside with no later recorded step goes on within 1,024 positions, not at the end (the recording\'s data is not kept for it)', async () => {
    const count = 3_000;
    const scheduler = new ReplayScheduler(Array.from({ length: count }, (_, i) => i), 0, { overlap: 64 });
    const log: string[] = [];
    const lowWater: number[] = [];
    const tasks = [
      {
        position: 0,
        stepsAt: [0],
        run: async (gate: StepGate) => {
          gate.waiting();
          await Promise.resolve();
          await gate.resumed();
          log.push('r0 goes on');
        },
      },
      ...Array.from({ length: count - 1 }, (_, i) => ({
        position: i + 1,
        stepsAt: [i + 1],
        run: async () => {
          log.push(`r${i + 1}`);
          if (i + 1 === 2_000) lowWater.push(scheduler.lowWater());
        },
      })),
    ];
    await scheduler.run(tasks, (error) => expect(error).toBeUndefined());
    expect(log.indexOf('r0 goes on')).toBe(1_024);
    expect(lowWater[0]).toBeGreaterThan(1_024);
  });

  it('with overlap, a step reading cookies waits for an earlier step set aside that may still write them', async () => {
    // r0 is set aside at position 0 and will store cookies at position 2; r1 reads cookies at 3.
    const scheduler = new ReplayScheduler([0, 1, 2, 3], 0, { overlap: 8 });
    const log: string[] = [];
    const answer = answerLater();
    let jar = 'empty';
    const done = scheduler.run(
      [
        {
          position: 0,
          stepsAt: [0, 2],
          writesAt: [2],
          run: async (gate) => {
            gate.waiting();
            await answer.answered;
            await gate.at(2, { writesCookies: true });
            jar = 'visit=1';
          },
        },
        {
          position: 1,
          stepsAt: [1, 3],
          run: async (gate) => {
            log.push('r1 step 1');
            await gate.at(3, { readsCookies: true });
            log.push(`r1 sends Cookie: ${jar}`);
          },
        },
      ],
      (error) => expect(error).toBeUndefined(),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log).toEqual(['r1 step 1']);
    answer.release();
    await done;
    expect(log).toEqual(['r1 step 1', 'r1 sends Cookie: visit=1']);
  });

  it('without overlap, a step waiting on listeners holds the timeline', async () => {
    const scheduler = new ReplayScheduler([0, 1], 0);
    const log: string[] = [];
    await scheduler.run(
      [
        {
          position: 0,
          run: async (gate) => {
            gate.waiting();
            await new Promise((resolve) => setTimeout(resolve, 10));
            log.push('r0 answered');
          },
        },
        { position: 1, run: async () => void log.push('r1 step 1') },
      ],
      (error) => expect(error).toBeUndefined(),
    );
    expect(log).toEqual(['r0 answered', 'r1 step 1']);
  });
});
