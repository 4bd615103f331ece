// What a worker shows the proxy thread without its event loop having to turn: a few integers in
// memory both threads share. The worker adds one for every item it takes up (an event, a reply, a
// ping: worker-main.ts), so the proxy thread sees it take them up at once, however late its own
// event loop reads the messages; and it writes its kernel thread id there, for the proxy thread to
// read the worker's own time (thread-clock.ts).

const TAKEN = 0;
const THREAD = 1;

/** The counters one worker shares with its host. */
export function progressCounters(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
}

/** Worker: one more item taken up. */
export function tookUp(counters: Int32Array): void {
  Atomics.add(counters, TAKEN, 1);
}

/** Worker: its kernel thread id. */
export function tellThreadId(counters: Int32Array, tid: number): void {
  Atomics.store(counters, THREAD, tid);
}

/** Host: the items the worker has taken up so far (wraps around as an Int32 does). */
export function itemsTaken(counters: Int32Array): number {
  return Atomics.load(counters, TAKEN);
}

/** Host: the worker's kernel thread id; 0 until it said (or where it cannot know). */
export function workerThreadId(counters: Int32Array): number {
  return Atomics.load(counters, THREAD);
}
