// The TUI paces its redraws by what a frame costs; counting Ink's drawing twice (once inside
// React's commit, once on its own) made frames look twice as dear and the screen update less often.
import { describe, expect, it } from 'vitest';
import { FrameCost } from '../../src/ui/frame-cost.js';

function clocked() {
  let now = 0;
  const frames: number[] = [];
  const cost = new FrameCost((ms) => frames.push(ms), () => now);
  return { cost, frames, advance: (ms: number) => (now += ms) };
}

describe('a frame costs React plus Ink, each counted once', () => {
  it('Ink drawing inside the commit: the commit is the whole frame', () => {
    const { cost, frames, advance } = clocked();
    cost.reactStarted();
    advance(3); // React renders
    advance(2);
    cost.inkDrew(2); // Ink draws during the commit
    cost.reactCommitted();
    expect(frames).toEqual([5]);
  });

  it('Ink drawing later (throttled): React time waits and is added to the drawing', () => {
    const { cost, frames, advance } = clocked();
    cost.reactStarted();
    advance(4);
    cost.reactCommitted();
    expect(frames).toEqual([]);
    advance(20); // idle until the throttle lets Ink draw: not part of the frame
    cost.inkDrew(2);
    expect(frames).toEqual([6]);
  });

  it('a drawing with no React render (a resize) costs what Ink took', () => {
    const { cost, frames } = clocked();
    cost.inkDrew(1.5);
    expect(frames).toEqual([1.5]);
  });
});
