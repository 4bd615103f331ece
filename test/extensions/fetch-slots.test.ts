// An extension's own requests run at most so many at once; more wait their turn, and past a bound
// fail at once (fetch-slots.ts), so a runaway extension cannot take every file descriptor.
import { expect, it } from 'vitest';
import { FetchSlots } from '../../src/engine/extensions/fetch-slots.js';

it('past the concurrency a fetch waits for a slot, in order; past the waiting bound it is refused', async () => {
  const slots = new FetchSlots(2, 1);
  const first = (await slots.acquire())!;
  const second = (await slots.acquire())!;
  let thirdStarted = false;
  const third = slots.acquire().then((release) => ((thirdStarted = true), release!));
  expect(await slots.acquire()).toBeUndefined(); // one waits already: the fourth is refused
  await Promise.resolve();
  expect(thirdStarted).toBe(false);
  expect([slots.running, slots.queued]).toEqual([2, 1]);
  first();
  first(); // a second release of the same slot changes nothing
  const releaseThird = await third;
  expect(thirdStarted).toBe(true);
  expect([slots.running, slots.queued]).toEqual([2, 0]);
  second();
  releaseThird();
  expect(slots.running).toBe(0);
});
