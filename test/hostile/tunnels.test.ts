// CONNECT answered as a proxy should: a garbage authority 400, a target that cannot be reached 502
// naming why (the journal's onErrorOccurred too), and HTTPS to an IP address served with a
// certificate naming that address (an IP SAN), which the client accepts.
import { execFile } from 'node:child_process';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCertificate } from '../../src/engine/capture/ip-certificate.js';
import type { WebRequestEntry } from '../../src/engine/journal.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const run = promisify(execFile);
let harness: ProxyHarness;
beforeAll(async () => {
  harness = await startProxyHarness({ proxy: { insecureUpstreamHosts: ['127.0.0.1'] } });
});
afterAll(async () => {
  await harness?.close();
});

/** Sends a raw CONNECT and returns the status line and body the proxy answered with. */
async function connectRaw(target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(harness.proxy.port, '127.0.0.1', () => socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
    setTimeout(() => socket.destroy(), 5000);
  });
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('CONNECT', () => {
  it('to a closed port, with no request inside: granted, and when the client leaves the journal ends the origin\'s request with net::ERR_CONNECTION_REFUSED', async () => {
    const port = await closedPort();
    const answer = await connectRaw(`127.0.0.1:${port}`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    const ended = (await harness.waitFor((e) => e.kind === 'webRequest' && e.event === 'onErrorOccurred' && e.details.url === `https://127.0.0.1:${port}/`)) as WebRequestEntry;
    expect((ended.details as { error?: string }).error).toBe('net::ERR_CONNECTION_REFUSED');
  });

  it.each(['garbage', 'example.com', 'example.com:99999', 'example.com:0', 'user@example.com:443', '[not-ipv6]:443'])('with a garbage authority %j: 400, and a warning in the journal', async (target) => {
    const answer = await connectRaw(target);
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain('a CONNECT names host:port');
  });

  it('curl to a closed port: the real request is learnt inside the tunnel (BR, BSH, SH) and ends with net::ERR_CONNECTION_REFUSED, as Chromium without a proxy shows it; curl gets a 502 saying so', async () => {
    const port = await closedPort();
    const result = await run('curl', ['-sS', '--max-time', '10', '-x', harness.proxy.url, '--cacert', harness.ca.certPath, `https://127.0.0.1:${port}/app/page?x=1`]).catch((error: { stdout: string }) => error);
    expect((result as { stdout: string }).stdout).toContain(`net::ERR_CONNECTION_REFUSED from 127.0.0.1:${port}`);
    const url = `https://127.0.0.1:${port}/app/page?x=1`;
    const ended = (await harness.waitFor((e) => e.kind === 'webRequest' && e.event === 'onErrorOccurred' && e.details.url === url)) as WebRequestEntry;
    expect((ended.details as { error?: string }).error).toBe('net::ERR_CONNECTION_REFUSED');
    expect(harness.events(ended.details.requestId)).toEqual(['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onErrorOccurred']);
    // The tunnel carried a request: no second record names the origin alone.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(harness.webRequestEntries((e) => e.details.url === `https://127.0.0.1:${port}/`)).toEqual([]);
  });
});

describe('HTTPS to an IP address', () => {
  it('the leaf names the address (IP SAN): curl trusting wrtui\'s CA accepts it, and the request is a row in the journal', async () => {
    // An HTTPS origin on 127.0.0.1 with a certificate of its own (wrtui forwards to it insecurely, as told).
    const own = await issueCertificate(harness.ca, ['127.0.0.1']);
    const origin = https.createServer({ cert: own.cert, key: own.key }, (_req, res) => res.end('hello over tls to an ip'));
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    const { port } = origin.address() as AddressInfo;
    try {
      const { stdout } = await run('curl', ['-sS', '--max-time', '10', '-x', harness.proxy.url, '--cacert', harness.ca.certPath, `https://127.0.0.1:${port}/ip`]);
      expect(stdout).toBe('hello over tls to an ip');
      await harness.waitFor((e) => e.kind === 'webRequest' && e.event === 'onCompleted' && e.details.url === `https://127.0.0.1:${port}/ip`);
    } finally {
      origin.close();
    }
  });
});

describe('TLS failures on the client side are rows with their reason', () => {
  it('a client that does not trust wrtui\'s CA: the request it meant ends with net::ERR_CERT_AUTHORITY_INVALID, and the journal says why', async () => {
    const server = https.createServer({ ...(await issueCertificate(harness.ca, ['localhost'])) }, (_req, res) => res.end('never seen'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      // curl without --cacert: wrtui's certificate is refused.
      await run('curl', ['-sS', '--max-time', '10', '-x', harness.proxy.url, `https://localhost:${port}/untrusted`]).catch(() => {});
      const ended = (await harness.waitFor((e) => e.kind === 'webRequest' && e.event === 'onErrorOccurred' && e.details.url === `https://localhost:${port}/`)) as WebRequestEntry;
      expect((ended.details as { error?: string }).error).toBe('net::ERR_CERT_AUTHORITY_INVALID');
      await harness.waitFor((e) => e.kind === 'log' && e.message.startsWith(`a client refused wrtui's certificate for localhost:${port}`));
    } finally {
      server.close();
    }
  });

  it('TLS garbage inside an HTTPS tunnel: net::ERR_SSL_PROTOCOL_ERROR, and the proxy keeps serving', async () => {
    const server = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      await new Promise<void>((resolve) => {
        const socket = net.connect(harness.proxy.port, '127.0.0.1', () => socket.write(`CONNECT localhost:${port} HTTP/1.1\r\nHost: localhost:${port}\r\n\r\n`));
        let answered = false;
        socket.on('data', () => {
          if (answered) return;
          answered = true;
          // A TLS record header, then nonsense.
          socket.write(Buffer.concat([Buffer.from([0x16, 0x03, 0x01, 0x00, 0x40]), Buffer.alloc(64, 0xee)]));
        });
        socket.on('close', () => resolve());
        socket.on('error', () => resolve());
        setTimeout(() => socket.destroy(), 3000);
      });
      const ended = (await harness.waitFor((e) => e.kind === 'webRequest' && e.event === 'onErrorOccurred' && e.details.url === `https://localhost:${port}/`)) as WebRequestEntry;
      expect((ended.details as { error?: string }).error).toBe('net::ERR_SSL_PROTOCOL_ERROR');
    } finally {
      server.close();
    }
  });
});
