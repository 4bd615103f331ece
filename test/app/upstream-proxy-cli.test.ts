// `wrtui headless --upstream-proxy` as a user behind a corporate proxy runs it: requests reach the
// origin through that proxy, the journal says so once without the password, and a mistake in the
// value is one line that does not repeat the password either.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ProxyAgent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROXY_PASSWORD, PROXY_USER, startAuthProxy, type AuthProxy } from '../helpers/auth-proxy.js';
import { startOrigin, type Origin } from '../helpers/origin.js';

const BIN = join(process.cwd(), 'bin/wrtui.js');
/** The test's own NO_PROXY: whatever the machine has set must not decide what goes where. */
const ENV = { ...process.env, NO_PROXY: '', no_proxy: '' };

let origin: Origin;
let authProxy: AuthProxy;
let workDir: string;
beforeAll(async () => {
  origin = await startOrigin((req, res) => res.end(`origin got ${req.url}`));
  authProxy = await startAuthProxy();
  workDir = await mkdtemp(join(tmpdir(), 'wrtui-upstream-proxy-'));
});
afterAll(async () => {
  await origin?.close();
  await authProxy?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe('wrtui headless --upstream-proxy', () => {
  it('forwards through the proxy with its credentials, and says so without them', async () => {
    const proxyUrl = `http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:${authProxy.port}`;
    const child = spawn(process.execPath, [BIN, 'headless', '--json', '--port', '0', '--incognito-port', '0', '--state-dir', join(workDir, 'state'), '--rules', join(workDir, 'no-rules'), '--upstream-proxy', proxyUrl], { env: ENV }) as ChildProcessWithoutNullStreams;
    const lines: string[] = [];
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      for (const waiter of waiters.splice(0)) {
        if (waiter.test(line)) waiter.resolve(line);
        else waiters.push(waiter);
      }
    });
    const waitFor = (test: (line: string) => boolean) =>
      new Promise<string>((resolve, reject) => {
        const found = lines.find(test);
        if (found) return resolve(found);
        const timer = setTimeout(() => reject(new Error(`timed out; stdout:\n${lines.join('\n')}\nstderr:\n${stderr}`)), 30_000);
        waiters.push({ test, resolve: (line) => (clearTimeout(timer), resolve(line)) });
      });
    try {
      const listening = JSON.parse(await waitFor((line) => line.includes('"listening"'))) as { url: string };
      const response = await request(`${origin.url}/via-cli`, { dispatcher: new ProxyAgent({ uri: listening.url, proxyTunnel: false }) });
      expect(await response.body.text()).toBe('origin got /via-cli');
      expect(authProxy.asked.map((ask) => [ask.line, ask.authorized])).toContainEqual([`GET ${origin.url}/via-cli`, true]);
      await waitFor((line) => line.includes('"onCompleted"'));
      const told = lines.find((line) => line.includes('upstream requests go through the proxy'));
      expect(told).toContain(`the proxy http://***@127.0.0.1:${authProxy.port} (NO_PROXY is empty`);
      expect(lines.join('\n')).not.toContain(PROXY_PASSWORD);
    } finally {
      child.kill('SIGTERM');
      expect(await exited, stderr).toBe(0);
    }
  });

  it('a value that is no HTTP(S) proxy stops with one line and exit code 2, the password hidden', async () => {
    const child = spawn(process.execPath, [BIN, 'headless', '--upstream-proxy', 'socks5://bob:hunter2@proxy.corp:1080'], { env: ENV });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr.trim()).toBe('wrtui: --upstream-proxy must be an http:// or https:// proxy (socks5 proxies are not supported), got "socks5://***@proxy.corp:1080"');
  });

  it('an upstream proxy that is this wrtui itself is refused at start (it would loop on every CONNECT)', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const child = spawn(process.execPath, [BIN, 'headless', '--port', String(port), '--incognito-port', '0', '--state-dir', join(workDir, 'loop-state'), '--rules', join(workDir, 'no-rules'), '--upstream-proxy', `http://${PROXY_USER}:${PROXY_PASSWORD}@localhost:${port}`], { env: ENV });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain(`--upstream-proxy http://***@localhost:${port} is this wrtui itself`);
    expect(stderr).not.toContain(PROXY_PASSWORD);
  });

  it('--help names the option', async () => {
    const child = spawn(process.execPath, [BIN, 'headless', '--help'], { env: ENV });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    await new Promise((resolve) => child.on('exit', resolve));
    expect(stdout).toMatch(/--upstream-proxy <url>\s+send upstream requests through this HTTP or HTTPS proxy/);
  });
});
