// A man-in-the-middle holding a CA key listens where the user says, at the socket: loopback by
// default (127.0.0.1 and ::1), exactly the address given with --host, every interface only with
// 0.0.0.0, and `ss -ltn` shows it so.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CaptureProxy } from '../../src/engine/capture/capture-proxy.js';
import { loadOrCreateCertificateAuthority } from '../../src/engine/capture/certificate-authority.js';
import { Engine } from '../../src/engine/engine.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function proxyOn(host: string | undefined): Promise<CaptureProxy> {
  const dir = await mkdtemp(join(tmpdir(), 'wrtui-listen-'));
  const engine = await Engine.open();
  const proxy = new CaptureProxy({ lifecycle: engine.lifecycle, ca: await loadOrCreateCertificateAuthority(dir), port: 0, ...(host !== undefined && { host }) });
  await proxy.start();
  cleanup = async () => {
    await proxy.stop();
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  };
  return proxy;
}

/** The local addresses listening on `port`, as `ss -ltn` shows them. */
function listeningOn(port: number): string[] {
  return execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((line) => line.trim().split(/\s+/)[3]!)
    .sort();
}

describe('where the proxy listens', () => {
  it('by default: 127.0.0.1 (and ::1 where the machine has it), never every interface', async () => {
    const proxy = await proxyOn(undefined);
    const addresses = listeningOn(proxy.port);
    expect(addresses).toContain(`127.0.0.1:${proxy.port}`);
    expect(addresses.every((address) => address.startsWith('127.0.0.1:') || address.startsWith('[::1]:'))).toBe(true);
    expect(proxy.addresses).toEqual(addresses.some((a) => a.startsWith('[::1]')) ? ['127.0.0.1', '::1'] : ['127.0.0.1']);
    expect(proxy.url).toBe(`http://127.0.0.1:${proxy.port}`);
    expect(proxy.everyInterface).toBe(false);
  });

  it('--host 0.0.0.0: every interface, and the proxy says so', async () => {
    const proxy = await proxyOn('0.0.0.0');
    expect(listeningOn(proxy.port)).toEqual([`0.0.0.0:${proxy.port}`]);
    expect(proxy.everyInterface).toBe(true);
  });

  it('--host <address>: exactly that address', async () => {
    const proxy = await proxyOn('127.0.0.2');
    expect(listeningOn(proxy.port)).toEqual([`127.0.0.2:${proxy.port}`]);
    expect(proxy.url).toBe(`http://127.0.0.2:${proxy.port}`);
  });
});
