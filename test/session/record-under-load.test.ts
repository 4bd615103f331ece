// `--record` keeps its promise on a loaded machine: a real `wrtui headless --record`, four CPU hogs
// of the test's own making (bounded in time), requests through the proxy, then kill -9. Every
// request answered more than a second before the kill is in the file (the bound in docs/sessions-and-replay.md is the
// 100 ms flush interval of the process's own time; a second leaves room for the load). A disk sync
// that takes its time no longer holds the writes behind it (append-only-file.test.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ProxyAgent, request } from 'undici';
import { afterAll, expect, it } from 'vitest';
import { startOrigin, type Origin } from '../helpers/origin.js';

let work: string | undefined;
let origin: Origin | undefined;
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await origin?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

it('kill -9 under load: every request answered more than a second before is in the recording', { timeout: 90_000 }, async () => {
  work = await mkdtemp(join(tmpdir(), 'wrtui-record-load-'));
  origin = await startOrigin((req, res) => res.end(`answered ${req.url}`));
  const recording = join(work, 'session.ndjson');
  const wrtui = spawn(process.execPath, [join(process.cwd(), 'bin/wrtui.js'), 'headless', '--json', '--port', '0', '--incognito-port', '0', '--state-dir', join(work, 'state'), '--rules', join(work, 'rules'), '--no-watch', '--record', recording], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(wrtui);
  const listening = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('wrtui did not start')), 30_000);
    createInterface({ input: wrtui.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as { kind: string; url?: string };
      if (entry.kind === 'listening') {
        clearTimeout(timer);
        resolve(entry.url!);
      }
    });
  });
  // The load: more busy processes than cores, each ending by itself.
  for (let i = 0; i < 4; i++) children.push(spawn(process.execPath, ['-e', 'const end = Date.now() + 20000; while (Date.now() < end) {}'], { stdio: 'ignore' }));

  const agent = new ProxyAgent({ uri: listening, proxyTunnel: false });
  const answeredAt = new Map<string, number>();
  const until = Date.now() + 4_000;
  for (let i = 0; Date.now() < until; i++) {
    const path = `/r${i}`;
    const response = await request(`${origin.url}${path}`, { dispatcher: agent });
    expect(await response.body.text()).toBe(`answered ${path}`);
    answeredAt.set(path, Date.now());
  }
  const killedAt = Date.now();
  wrtui.kill('SIGKILL');
  await new Promise((resolve) => wrtui.once('exit', resolve));
  await agent.close();

  const recorded = new Set<string>();
  for (const line of (await readFile(recording, 'utf8')).split('\n')) {
    const match = /"url":"[^"]*?(\/r\d+)"/.exec(line);
    if (match && line.includes('"onBeforeRequest"')) recorded.add(match[1]!);
  }
  const due = [...answeredAt].filter(([, at]) => killedAt - at > 1_000).map(([path]) => path);
  expect(due.length).toBeGreaterThan(5);
  expect(due.filter((path) => !recorded.has(path))).toEqual([]);
});
