// Resources a client or a busy session can hold are bounded, and the user is told near the limit:
// a client connection that never speaks is closed; idle upstream connections are capped; the
// descriptor watch warns once with what holds them.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { open, type FileHandle } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { DescriptorWatch, openDescriptors } from '../../src/engine/capture/descriptor-watch.js';
import { IdleSockets } from '../../src/engine/capture/idle-sockets.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const closers: (() => Promise<unknown> | void)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

describe('client connections', () => {
  let harness: ProxyHarness;
  let origin: Origin;
  it('one that sends nothing is closed after the first-byte timeout; one that speaks is served', async () => {
    origin = await startOrigin((_req, res) => res.end('served'));
    harness = await startProxyHarness({ proxy: { clientFirstByteTimeoutMs: 300 } });
    closers.push(() => origin.close(), () => harness.close());
    const silent = net.connect(harness.proxy.port, '127.0.0.1');
    silent.on('error', () => {});
    const closed = new Promise((resolve) => silent.once('close', resolve));
    const started = Date.now();
    await closed;
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    const response = await harness.fetch(`${origin.url}/after`);
    expect(await response.body.text()).toBe('served');
  });
});

describe('idle upstream connections', () => {
  it('are capped in all, the longest idle closed first, and a reused one is busy again', async () => {
    const servers: http.Server[] = [];
    let closedByClient = 0;
    for (let i = 0; i < 10; i++) {
      const server = http.createServer((_req, res) => res.end('x'));
      server.on('connection', (socket) => socket.on('close', () => closedByClient++));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
    }
    const agent = new http.Agent({ keepAlive: true });
    const idle = new IdleSockets(3, [agent]);
    closers.push(() => agent.destroy(), ...servers.map((server) => () => new Promise((resolve) => server.close(resolve))));
    const get = (server: http.Server) =>
      new Promise<void>((resolve, reject) => {
        http.get({ agent, host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/' }, (res) => res.resume().on('end', resolve)).on('error', reject);
      });
    for (const server of servers) await get(server);
    await expect.poll(() => idle.size).toBe(3);
    await expect.poll(() => closedByClient).toBe(7);
    // The newest idle one, reused, is not counted idle while busy, and idle again after; however
    // often a socket is reused, one 'close' listener watches it.
    for (let i = 0; i < 15; i++) await get(servers[9]!);
    await expect.poll(() => idle.size).toBe(3);
    expect(closedByClient).toBe(7);
    for (const socket of Object.values(agent.freeSockets).flat()) expect(socket!.listenerCount('close')).toBeLessThan(5);
  });
});

describe('kept-alive upstream connections', () => {
  it('serve 32 clients at once to one host without a new upstream connection per answer', async () => {
    let originConnections = 0;
    const server = http.createServer((_req, res) => res.end('x'));
    server.on('connection', () => originConnections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const harness = await startProxyHarness();
    // 32 clients, each on a kept-alive connection of its own to the proxy.
    const clients = new http.Agent({ keepAlive: true, maxSockets: 32 });
    closers.push(() => clients.destroy(), () => harness.close(), () => new Promise((resolve) => server.close(resolve)));
    const originUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const get = () =>
      new Promise<number>((resolve, reject) => {
        http.get({ agent: clients, host: '127.0.0.1', port: harness.proxy.port, path: originUrl }, (res) => res.resume().on('end', () => resolve(res.statusCode!))).on('error', reject);
      });
    for (let wave = 0; wave < 6; wave++) expect(await Promise.all(Array.from({ length: 32 }, get))).toEqual(Array(32).fill(200));
    // 192 answers: at most one upstream connection per client (and a few for timing), not one
    // for most answers (an idle bound of 6 a host made 100-190 here).
    expect(originConnections).toBeLessThanOrEqual(40);
  });
});

describe('the descriptor watch', () => {
  it('warns once past 80 % of the limit, naming what holds them, and again only after falling below 60 %', async () => {
    const before = (await openDescriptors())!;
    const warnings: string[] = [];
    const watch = await DescriptorWatch.start({ limit: before + 10, intervalMs: 20, holders: () => '3 client connections', warn: (message) => warnings.push(message) });
    closers.push(() => watch?.stop());
    const files: FileHandle[] = [];
    for (let i = 0; i < 10; i++) files.push(await open('/proc/self/status', 'r'));
    await expect.poll(() => warnings.length).toBe(1);
    expect(warnings[0]).toMatch(new RegExp(`^\\d+ of wrtui's ${before + 10} file descriptors are open \\(ulimit -n\\): 3 client connections\\.`));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(warnings).toHaveLength(1);
    for (const file of files) await file.close();
  });
});
