// Workers booted ahead (worker-pool.ts): an extension started from the pool behaves as one started
// cold, each worker runs one extension only, and spare workers keep no process alive.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { DEFAULT_WORKER_LIMITS } from '../../src/engine/extensions/extension-worker.js';
import { WorkerPool } from '../../src/engine/extensions/worker-pool.js';
import type { WebRequestEntry } from '../../src/engine/journal.js';
import { runRequest } from '../../src/engine/web-request/run-request.js';
import { ok, ScriptedOrigin } from '../helpers/web-request-harness.js';

const RULE = (name: string) => `export const manifest = { name: '${name}', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'] };
// Top-level state: a worker that had run this before would say 2.
(globalThis as any).runs = ((globalThis as any).runs ?? 0) + 1;
console.log('${name} runs', (globalThis as any).runs);
export default function background({ chrome }: any) {
  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['*://${name}.test/*'] }, ['blocking']);
}
`;

let folder: string | undefined;
let pool: WorkerPool | undefined;
afterEach(async () => {
  await pool?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
  pool = folder = undefined;
});

async function startWith(rulesDir: string, workerPool: WorkerPool) {
  const engine = await Engine.open({});
  const logs: string[] = [];
  let last: WebRequestEntry | undefined;
  engine.journal.subscribe((entry) => {
    if (entry.kind === 'log') logs.push(entry.message);
    if (entry.kind === 'webRequest') last = entry;
  });
  const host = await ExtensionHost.start(engine, { rulesDir, watch: false, typeCheck: false, pool: workerPool });
  const blocked = async (host: string) => {
    await runRequest(engine.lifecycle, { url: `http://${host}.test/x`, method: 'GET', requestHeaders: [], type: 'main_frame', tabId: -1, frameId: 0, parentFrameId: -1 }, new ScriptedOrigin(() => ok()));
    return last?.event === 'onErrorOccurred' && (last.details as { error?: string }).error === 'net::ERR_BLOCKED_BY_CLIENT';
  };
  return { engine, host, logs, blocked, close: async () => (await host.close(), await engine.close()) };
}

describe('a pool of workers booted ahead', () => {
  it('hands each rule a worker that has run nothing: its listeners act as a cold start’s, and its top level runs once', async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'wrtui-pool-'));
    await writeFile(path.join(folder, 'alpha.ts'), RULE('alpha'));
    await writeFile(path.join(folder, 'beta.ts'), RULE('beta'));
    pool = await WorkerPool.open(DEFAULT_WORKER_LIMITS.heapLimitMb);

    const first = await startWith(folder, pool);
    expect(pool.spare).toBe(0);
    expect(await first.blocked('alpha')).toBe(true);
    expect(await first.blocked('beta')).toBe(true);
    await first.close();
    // As the replay TUI does after each run: as many workers as it took boot for the next.
    pool.refill();
    expect(pool.spare).toBe(2);

    const second = await startWith(folder, pool);
    expect(pool.spare).toBe(0);
    expect(await second.blocked('alpha')).toBe(true);
    expect(await second.blocked('other')).toBe(false);
    // A worker is never given a second extension: every top level ran in a fresh realm.
    expect(second.logs.filter((message) => / runs /.test(message)).sort()).toEqual(['alpha runs 1', 'beta runs 1']);
    await second.close();
  });

  it('spare workers keep no process alive: a program that leaves its pool open still ends', () => {
    const script = `import { WorkerPool } from ${JSON.stringify(path.join(import.meta.dirname, '../../src/engine/extensions/worker-pool.ts'))};
const pool = await WorkerPool.open(256);
pool.warm(3);
console.log('spare', pool.spare);`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(run.stdout.trim()).toBe('spare 3');
    expect(run.status).toBe(0);
  });
});
