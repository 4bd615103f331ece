// The entry point of a worker thread that runs rules and extensions (its Node side). It holds one
// realm per rule or extension it was given (extension-realm.ts): an extension's worker, or a rule
// with `ownWorker`, holds one; the rule files' shared workers hold several. It carries batches,
// each tagged with its realm's number, between the host and the realms, and it writes which realm
// runs now where the host reads it without this thread's event loop turning (the `running` slot):
// a stall is blamed on that realm, not on its worker-mates.
import { formatWithOptions } from 'node:util';
import { parentPort } from 'node:worker_threads';
import type { HostItem, WorkerBoot, WorkerItem } from '../protocol.js';
import { lockDownHostRealm } from './host-realm-lockdown.js';
import { ExtensionRealm } from './extension-realm.js';

/** host → thread: a realm to make and start, one to end, or a batch for one. */
export type ToRealmThread =
  | { realm: number; boot: WorkerBoot; progress?: Int32Array; running?: Int32Array }
  | { dispose: number }
  /** Batches for realms, gathered during one turn of the host's event loop. */
  | [realm: number, batch: HostItem[]][];

/** thread → host: the realms' batches of one turn of this thread's event loop, one message. */
export type FromRealmThread = [realm: number, batch: WorkerItem[]][];

const port = parentPort!;
// Nothing of this realm may be handed to an extension's before it is locked down.
lockDownHostRealm();

const realms = new Map<number, ExtensionRealm>();
/** The slot the host reads: the number of the realm that runs (or ran last). */
let running: Int32Array | undefined;
let current = 0;

function enter(id: number): void {
  current = id;
  if (running) Atomics.store(running, 0, id);
}

/** The realm an uncaught error is of: the one whose files its stack names, else the one that ran. */
function realmOf(error: unknown): ExtensionRealm | undefined {
  for (const realm of realms.values()) if (realm.locate(error) !== undefined) return realm;
  return realms.get(current) ?? realms.values().next().value;
}

// A browser logs these and the worker goes on; so does wrtui, and the journal says where and whose.
process.on('uncaughtException', (error) => {
  const realm = realmOf(error);
  const location = realm?.locate(error);
  realm?.post(['uncaught', 'exception', String((error as Error)?.stack?.split('\n')[0] ?? error), ...(location ? [location] : [])] as WorkerItem);
});
process.on('unhandledRejection', (reason) => {
  const realm = realmOf(reason);
  const location = realm?.locate(reason);
  const text = reason instanceof Error || (typeof reason === 'object' && reason !== null && 'message' in reason) ? `${(reason as Error).name ?? 'Error'}: ${(reason as Error).message}` : formatWithOptions({ colors: false }, reason);
  realm?.post(['uncaught', 'rejection', `Uncaught (in promise) ${text}`, ...(location ? [location] : [])] as WorkerItem);
});

// ── outgoing: one message per turn, every realm's batch in it ──────────────
// (A hundred rules answering one request cost one message and one wake-up of the proxy thread.)
let due: [id: number, take: () => WorkerItem[]][] = [];
const flush = () => {
  const taking = due;
  due = [];
  const batches: FromRealmThread = [];
  for (const [id, take] of taking) {
    const batch = take();
    if (batch.length > 0) batches.push([id, batch]);
  }
  if (batches.length === 0) return;
  try {
    port.postMessage(batches satisfies FromRealmThread);
  } catch (error) {
    // Something in a batch could not be cloned: send what can be, and say what could not.
    for (const [id, batch] of batches) {
      for (const item of batch) {
        try {
          port.postMessage([[id, [item]]] satisfies FromRealmThread);
        } catch {
          port.postMessage([[id, [['log', 'error', `wrtui could not pass a ${String(item[0])} message to the proxy: ${String(error)}`]]]] satisfies FromRealmThread);
        }
      }
    }
  }
};
/** setImmediate, not a microtask: answers of Promise listeners settled in this turn join the message. */
const dueFor = (id: number) => (take: () => WorkerItem[]) => {
  if (due.push([id, take]) === 1) setImmediate(flush);
};

port.on('message', (message: ToRealmThread) => {
  if (Array.isArray(message)) {
    for (const [id, batch] of message) realms.get(id)?.receive(batch);
  } else if ('dispose' in message) {
    realms.get(message.dispose)?.dispose();
    realms.delete(message.dispose);
  } else {
    running ??= message.running;
    const id = message.realm;
    enter(id);
    let realm: ExtensionRealm;
    try {
      realm = new ExtensionRealm(message.boot, { due: dueFor(id), enter: () => enter(id) }, message.progress);
    } catch (error) {
      const failed: WorkerItem[] = [['loadFailed', `wrtui could not make its realm: ${(error as Error)?.message ?? String(error)}`]];
      dueFor(id)(() => failed);
      return;
    }
    realms.set(id, realm);
    realm.start();
  }
});
