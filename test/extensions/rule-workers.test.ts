// Where rule files' realms go (rule-workers.ts), with real worker threads: a new rule goes to the
// shared worker holding the fewest rules; a worker of its own never takes a rule file's realm; a
// shared worker that ended is replaced by the next rule that needs one.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { WorkerBoot, WorkerItem } from '../../src/engine/extensions/protocol.js';
import type { RealmLink } from '../../src/engine/extensions/realm-worker.js';
import { RuleWorkers, sharedRuleWorkerCount } from '../../src/engine/extensions/rule-workers.js';
import { WorkerPool } from '../../src/engine/extensions/worker-pool.js';
import { progressCounters } from '../../src/engine/extensions/worker-progress.js';

let workers: RuleWorkers | undefined;
let pool: WorkerPool | undefined;
let dir: string | undefined;
const links: RealmLink[] = [];
afterEach(async () => {
  await Promise.all(links.splice(0).map((link) => link.terminate()));
  await workers?.close();
  await pool?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  workers = pool = dir = undefined;
});

/** A background of no scripts: its realm is made, and says it is ready. */
const boot = (name: string): WorkerBoot => ({
  extensionId: name,
  name,
  kind: 'extension',
  manifest: { manifest_version: 3, name, version: '1' },
  permissions: [],
  hostPermissions: [],
  rootDir: dir!,
  baseUrl: `chrome-extension://${name}/`,
  scripts: [],
  rule: undefined,
  installReason: undefined,
  previousVersion: undefined,
  backgroundTimeoutMs: 5000,
  persona: undefined,
});

/** Opens a realm and waits for it to say it is ready. */
async function opened(open: (boot: WorkerBoot, progress: Int32Array) => RealmLink, name: string): Promise<RealmLink> {
  const link = open(boot(name), progressCounters());
  links.push(link);
  await new Promise<void>((resolve, reject) => {
    link.on('message', (batch: WorkerItem[]) => {
      if (batch.some((item) => item[0] === 'ready')) resolve();
      const failed = batch.find((item) => item[0] === 'loadFailed');
      if (failed) reject(new Error(String(failed[1])));
    });
  });
  return link;
}

it('one shared worker per core, at most 4, at least 1', () => {
  expect([1, 2, 3, 4, 8, 64].map(sharedRuleWorkerCount)).toEqual([1, 2, 3, 4, 4, 4]);
});

it('a new rule goes to the shared worker with the fewest rules; a worker of its own holds one realm', { timeout: 60_000 }, async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'wrtui-rule-workers-'));
  pool = await WorkerPool.open(128);
  workers = new RuleWorkers(pool, 2);
  const shared = workers.openShared.bind(workers);
  const a = await opened(shared, 'a');
  const b = await opened(shared, 'b');
  expect(a.thread).not.toBe(b.thread);
  for (const name of ['c', 'd', 'e']) await opened(shared, name);
  expect(workers.load).toEqual([3, 2]);
  const own = await opened(workers.openExclusive.bind(workers), 'own');
  expect(own.worker.exclusive).toBe(true);
  expect(workers.load).toEqual([3, 2]);

  // Two of the first worker's rules go: the next one goes there.
  const firsts = links.filter((link) => link.thread === a.thread && link !== a);
  await Promise.all(firsts.map((link) => link.terminate()));
  expect(workers.load).toEqual([1, 2]);
  expect((await opened(shared, 'f')).thread).toBe(a.thread);
});

it('a shared worker ended for one realm tells its worker-mates who was at fault, and the next rule gets a new worker', { timeout: 60_000 }, async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'wrtui-rule-workers-'));
  pool = await WorkerPool.open(128);
  workers = new RuleWorkers(pool, 1);
  const shared = workers.openShared.bind(workers);
  const a = await opened(shared, 'a');
  const b = await opened(shared, 'b');
  const toB = new Promise((resolve) => b.once('collateral', resolve));
  // a is stuck (its watchdog says so): the thread ends; b is told it goes with it, and who is at fault.
  await a.abandon('was stuck');
  expect(await toB).toEqual({ culprit: 'a', what: 'was stuck' });
  expect(workers.load).toEqual([]);
  const c = await opened(shared, 'c');
  expect(c.thread).not.toBe(a.thread);
  expect(workers.load).toEqual([1]);
});
