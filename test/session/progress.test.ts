// Progress of long reads and replays: a bar with rate and ETA on stderr when it is a terminal,
// nothing otherwise, and never anything on stdout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Progress } from '../../src/engine/session/progress.js';
import { formatProgress, ProgressBar } from '../../src/engine/session/progress-bar.js';
import { openRecording } from '../../src/engine/session/open-recording.js';
import { replaySession } from '../../src/engine/session/session-replay.js';
import { recordSession, type Recording } from './session-harness.js';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, write: (text: string) => (writes.push(text), true) } as unknown as NodeJS.WriteStream };
}

describe('the progress bar', () => {
  it('shows the phase, a bar, counts, the rate and the ETA', () => {
    expect(formatProgress({ phase: 'replaying', done: 2500, total: 10000, unit: 'requests' }, 0.5)).toBe(
      'replaying [######------------------] 2,500/10,000 requests  5,000/s  ETA 2s',
    );
    expect(formatProgress({ phase: 'reading', done: 50 * 1024 * 1024, total: 200 * 1024 * 1024, unit: 'bytes' }, 2)).toBe(
      'reading   [######------------------] 50.0/200.0 MB  25.0 MB/s  ETA 6s',
    );
    expect(formatProgress({ phase: 'replaying', done: 10, total: 100000, unit: 'requests' }, 1)).toMatch(/ETA 166m39s$/);
    // A file replayed as it is read: the bytes read give the bar and the ETA, the requests done the pace.
    expect(formatProgress({ phase: 'replaying', done: 50 * 1024 * 1024, total: 200 * 1024 * 1024, unit: 'bytes', requests: 3_300 }, 2)).toBe(
      'replaying [######------------------] 50.0/200.0 MB  3,300 requests  1,650/s  ETA 6s',
    );
  });

  it('draws on a terminal only, in place, at most every 100 ms and always at the end; clear() wipes it', () => {
    let now = 0;
    const tty = fakeStream(true);
    const bar = new ProgressBar(tty.stream, () => now);
    const step = (done: number): Progress => ({ phase: 'replaying', done, total: 10, unit: 'requests' });
    now = 200;
    bar.update(step(1));
    now = 250;
    bar.update(step(2)); // too soon: skipped
    now = 320;
    bar.update(step(3));
    now = 330;
    bar.update(step(10)); // the end: always drawn
    bar.clear();
    expect(tty.writes).toHaveLength(4);
    expect(tty.writes.slice(0, 3).every((write) => write.startsWith('\r\x1b[2Kreplaying ['))).toBe(true);
    expect(tty.writes[2]).toContain('10/10 requests');
    expect(tty.writes[3]).toBe('\r\x1b[2K');

    const pipe = fakeStream(false);
    const quiet = new ProgressBar(pipe.stream, () => (now += 1000));
    quiet.update(step(1));
    quiet.update(step(10));
    quiet.clear();
    expect(pipe.writes).toEqual([]);
  });
});

describe('progress of a replay', () => {
  let recording: Recording;
  beforeAll(async () => {
    recording = await recordSession({
      async traffic(harness, origin) {
        for (let i = 0; i < 5; i++) await harness.curl([`${origin.url}/page?${i}`]);
      },
    });
  }, 60_000);
  afterAll(() => recording?.cleanup());

  it('is reported while reading and replaying, ending at the total', async () => {
    const reports: Progress[] = [];
    const session = await openRecording(recording.file, { onProgress: (p) => reports.push(p) });
    await replaySession(session, { rulesDir: recording.rulesDir, onProgress: (p) => reports.push(p) });
    const last = (phase: string) => reports.filter((p) => p.phase === phase).at(-1);
    expect(last('reading')).toMatchObject({ unit: 'bytes', done: last('reading')!.total });
    expect(last('replaying')).toEqual({ phase: 'replaying', done: 5, total: 5, unit: 'requests' });
  });
});
