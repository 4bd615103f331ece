// The journal reports what happened upstream, as a browser's extension would see it: each failure
// of the origin (refused, unresolvable, reset, cut short, silent, bad certificate) through the live
// proxy, with the exact event sequence and onErrorOccurred's `error`, what the client itself got
// (before any response byte: a 502, or 504 for a timeout, whose body names the net::ERR_* and the
// upstream, as mitmproxy answers; once the body had started: the connection reset, never a fake
// complete 200), and the proxy serving the next request afterwards.
//
// Mapping notes (src/engine/capture/net-error.ts):
// - "Reset before the response" is two cases. A TCP RST before any byte is ECONNRESET "read
//   ECONNRESET" in Node and net::ERR_CONNECTION_RESET in Chrome. A clean close (FIN) before any byte
//   is ECONNRESET "socket hang up" in Node and net::ERR_EMPTY_RESPONSE in Chrome; net-error maps it
//   so, also through mockttp's 'abort' notice, which prefixes "Upstream connection error: ".
// - A body cut short mid-response is ECONNRESET "aborted" in Node whether the origin sent RST or FIN;
//   wrtui tells them apart as Chromium 156 does (the socket keeps a reset's error; checked against
//   Chromium in test/extensions/extension-network.test.ts): RST is net::ERR_CONNECTION_RESET, a FIN
//   short of the Content-Length net::ERR_CONTENT_LENGTH_MISMATCH, before the last chunk
//   net::ERR_INCOMPLETE_CHUNKED_ENCODING.
// - wrtui's upstream client gives up on a connection silent for --upstream-timeout (60 s by
//   default; Chrome has no such limit, but a proxy holding sockets forever is worse) with
//   net::ERR_TIMED_OUT. Until then a silent origin keeps the request open; the client may give up first.
//
// TLS targets are named `localhost`, not 127.0.0.1: for an IP-literal target the client sends no
// SNI and mockttp answers with its default certificate for "localhost" (no IP SAN), which no client
// accepts even when it trusts wrtui's CA (httptoolkit/mockttp#193).
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WebRequestEntry } from '../../src/engine/journal.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { finished, requestIdOf, startProxyHarness, type FetchOptions, type ProxyHarness } from '../helpers/proxy-harness.js';

const SENT = ['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders'];
const STARTED = [...SENT, 'onHeadersReceived', 'onResponseStarted'];

// ── helpers ───────────────────────────────────────────────────────────────────────────────────

const servers: net.Server[] = [];
const sockets = new Set<net.Socket>();

async function listen<T extends net.Server>(server: T, host = '127.0.0.1'): Promise<number> {
  servers.push(server);
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

/** A TCP origin that reacts to the first bytes of each request with `respond`. */
async function rawOrigin(respond: (socket: net.Socket) => void): Promise<string> {
  const port = await listen(net.createServer((socket) => socket.once('data', () => respond(socket))));
  return `http://127.0.0.1:${port}`;
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

type ClientOutcome =
  | { failed: 'before-response'; code: string | undefined }
  | { failed: 'in-body'; status: number; code: string | undefined; bytes: number }
  | { failed: false; status: number; body: string };

/** What the client itself got: a response, or the network failure and when it came. */
async function clientOutcome(harness: ProxyHarness, url: string, init?: FetchOptions): Promise<ClientOutcome> {
  let response;
  try {
    response = await harness.fetch(url, init);
  } catch (error) {
    return { failed: 'before-response', code: (error as { code?: string }).code };
  }
  let bytes = 0;
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of response.body) {
      bytes += (chunk as Buffer).length;
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    return { failed: 'in-body', status: response.statusCode, code: (error as { code?: string }).code, bytes };
  }
  return { failed: false, status: response.statusCode, body: Buffer.concat(chunks).toString('utf8') };
}

/** What the client gets when the upstream failed before answering: a 502 (504) naming why and where. */
function badGateway(netError: string, status = 502) {
  return { failed: false, status, body: expect.stringMatching(new RegExp(`^wrtui: ${netError.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} from \\S+`)) };
}

/** The request's events in order and how it ended, once it ended. */
async function journalOf(harness: ProxyHarness, url: string): Promise<{ events: string[]; error: string | undefined; last: WebRequestEntry }> {
  const requestId = requestIdOf(harness, url);
  const last = (await finished(harness, requestId)) as unknown as WebRequestEntry;
  // Anything that would wrongly follow the end (a late onCompleted, a second error) has a moment to show up.
  await new Promise((resolve) => setTimeout(resolve, 50));
  return { events: harness.events(requestId), error: (last.details as { error?: string }).error, last };
}

let harness: ProxyHarness;
let origin: Origin;

/** The proxy still answers a normal request after the failure. */
async function expectStillServing(h: ProxyHarness = harness): Promise<void> {
  const url = `${origin.url}/after-${Math.random().toString(36).slice(2)}`;
  expect(await clientOutcome(h, url)).toEqual({ failed: false, status: 200, body: 'fine' });
  expect((await journalOf(h, url)).events).toEqual([...STARTED, 'onCompleted']);
}

beforeAll(async () => {
  origin = await startOrigin((_req, res) => res.end('fine'));
  harness = await startProxyHarness();
});
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});
afterAll(async () => {
  await harness?.close();
  await origin?.close();
});

// ── plain http ────────────────────────────────────────────────────────────────────────────────

describe('upstream failures over plain http', () => {
  it('connection refused → onErrorOccurred net::ERR_CONNECTION_REFUSED; the client gets a 502 saying so', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/refused`;
    const client = await clientOutcome(harness, url);
    expect(client).toEqual(badGateway('net::ERR_CONNECTION_REFUSED'));
    const { events, error } = await journalOf(harness, url);
    expect(events).toEqual([...SENT, 'onErrorOccurred']);
    expect(error).toBe('net::ERR_CONNECTION_REFUSED');
    await expectStillServing();
  });

  it('name not resolved (http://nonexistent.invalid/) → net::ERR_NAME_NOT_RESOLVED', async () => {
    const url = 'http://nonexistent.invalid/';
    const client = await clientOutcome(harness, url);
    expect(client).toEqual(badGateway('net::ERR_NAME_NOT_RESOLVED'));
    const { events, error } = await journalOf(harness, url);
    expect(events).toEqual([...SENT, 'onErrorOccurred']);
    expect(error).toBe('net::ERR_NAME_NOT_RESOLVED');
    await expectStillServing();
  }, 30_000); // a resolver that cannot be reached takes its own timeouts to say so

  it('TCP reset before any response byte → net::ERR_CONNECTION_RESET', async () => {
    const base = await rawOrigin((socket) => socket.resetAndDestroy());
    const url = `${base}/rst-before`;
    expect(await clientOutcome(harness, url)).toEqual(badGateway('net::ERR_CONNECTION_RESET'));
    const { events, error } = await journalOf(harness, url);
    expect(events).toEqual([...SENT, 'onErrorOccurred']);
    expect(error).toBe('net::ERR_CONNECTION_RESET');
    await expectStillServing();
  });

  it('clean close before any response byte: the request fails, the client gets a 502 saying so', async () => {
    const base = await rawOrigin((socket) => socket.end());
    const url = `${base}/fin-before`;
    expect(await clientOutcome(harness, url)).toMatchObject({ failed: false, status: 502 });
    const { events, error } = await journalOf(harness, url);
    expect(events).toEqual([...SENT, 'onErrorOccurred']);
    expect(error).toMatch(/^net::ERR_(EMPTY_RESPONSE|CONNECTION_RESET)$/);
    await expectStillServing();
  });

  it('clean close before any response byte → net::ERR_EMPTY_RESPONSE, as Chrome says', async () => {
    const base = await rawOrigin((socket) => socket.end());
    const url = `${base}/fin-before-exact`;
    await clientOutcome(harness, url);
    expect((await journalOf(harness, url)).error).toBe('net::ERR_EMPTY_RESPONSE');
  });

  it('an answer that is not HTTP → net::ERR_INVALID_HTTP_RESPONSE', async () => {
    const base = await rawOrigin((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    const url = `${base}/not-http`;
    expect(await clientOutcome(harness, url)).toEqual(badGateway('net::ERR_INVALID_HTTP_RESPONSE'));
    const { events, error } = await journalOf(harness, url);
    expect(events).toEqual([...SENT, 'onErrorOccurred']);
    expect(error).toBe('net::ERR_INVALID_HTTP_RESPONSE');
    await expectStillServing();
  });

  it('HTTP/0.9 (no status line) on the default port 80 is taken as Chrome takes it: statusLine "HTTP/0.9 200 OK", no headers, the body until close', async (context) => {
    // Port 80 needs the right to bind it (root, or CAP_NET_BIND_SERVICE) and a free 127.0.0.2:80.
    const old = net.createServer((socket) => socket.once('data', () => socket.end('<p>hello from 1991</p>')));
    const bound = await new Promise<boolean>((resolve) => {
      old.once('error', () => resolve(false));
      old.listen(80, '127.0.0.2', () => resolve(true));
    });
    if (!bound) return context.skip();
    servers.push(old);
    old.on('connection', (socket: net.Socket) => socket.on('error', () => {}));
    const url = 'http://127.0.0.2/ancient';
    expect(await clientOutcome(harness, url)).toEqual({ failed: false, status: 200, body: '<p>hello from 1991</p>' });
    const { events, last } = await journalOf(harness, url);
    expect(events).toEqual(STARTED.concat('onCompleted'));
    expect(last.details).toMatchObject({ statusLine: 'HTTP/0.9 200 OK', statusCode: 200, responseHeaders: [] });
    await expectStillServing();
  });

  it('reset mid-response (head and part of the body, then RST) → onResponseStarted, then net::ERR_CONNECTION_RESET, never onCompleted', async () => {
    const base = await rawOrigin((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n${'x'.repeat(4096)}`);
      setTimeout(() => socket.resetAndDestroy(), 100);
    });
    const url = `${base}/rst-mid`;
    const client = await clientOutcome(harness, url);
    // The client had the real head (the proxy streams), then its body broke: no fake complete 200.
    expect(client).toMatchObject({ failed: 'in-body', status: 200, code: 'ECONNRESET' });
    expect((client as { bytes: number }).bytes).toBeLessThan(100000);
    const { events, error } = await journalOf(harness, url);
    expect(events).toEqual([...STARTED, 'onErrorOccurred']);
    expect(error).toBe('net::ERR_CONNECTION_RESET');
    await expectStillServing();
  });

  it('body cut short by a clean close (Content-Length not reached) → net::ERR_CONTENT_LENGTH_MISMATCH after onResponseStarted, as Chromium 156 says', async () => {
    const base = await rawOrigin((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n${'x'.repeat(4096)}`);
      setTimeout(() => socket.end(), 100);
    });
    const url = `${base}/fin-mid`;
    expect(await clientOutcome(harness, url)).toMatchObject({ failed: 'in-body', status: 200 });
    const { events, error } = await journalOf(harness, url);
    expect(events).toEqual([...STARTED, 'onErrorOccurred']);
    expect(error).toBe('net::ERR_CONTENT_LENGTH_MISMATCH');
    await expectStillServing();
  });

  it('chunked body cut short by a clean close (no last chunk) → net::ERR_INCOMPLETE_CHUNKED_ENCODING after onResponseStarted, as Chromium 156 says', async () => {
    const base = await rawOrigin((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n1000\r\n${'x'.repeat(4096)}\r\n`);
      setTimeout(() => socket.end(), 100);
    });
    const url = `${base}/chunked-fin-mid`;
    expect(await clientOutcome(harness, url)).toMatchObject({ failed: 'in-body', status: 200 });
    const { events, error } = await journalOf(harness, url);
    expect(events).toEqual([...STARTED, 'onErrorOccurred']);
    expect(error).toBe('net::ERR_INCOMPLETE_CHUNKED_ENCODING');
    await expectStillServing();
  });

  it('a silent origin that outlasts the upstream timeout → net::ERR_TIMED_OUT; the client gets a 504 saying so', async () => {
    const quick = await startProxyHarness({ proxy: { upstreamTimeoutMs: 300 } });
    try {
      const silentBase = await rawOrigin(() => {});
      const url = `${silentBase}/timed-out`;
      expect(await clientOutcome(quick, url)).toEqual(badGateway('net::ERR_TIMED_OUT', 504));
      const { events, error } = await journalOf(quick, url);
      expect(events).toEqual([...SENT, 'onErrorOccurred']);
      expect(error).toBe('net::ERR_TIMED_OUT');
      await expectStillServing(quick);
    } finally {
      await quick.close();
    }
  });

  it('within the upstream timeout a silent origin keeps the request open; the client giving up ends it and closes the upstream connection', async () => {
    let upstream: net.Socket | undefined;
    let upstreamGone!: () => void;
    const upstreamClosed = new Promise<void>((resolve) => (upstreamGone = resolve));
    const silentBase = await rawOrigin((socket) => {
      upstream = socket;
      socket.on('close', () => upstreamGone());
    });
    const url = `${silentBase}/silent`;
    const controller = new AbortController();
    const client = clientOutcome(harness, url, { signal: controller.signal } as FetchOptions);

    await new Promise((resolve) => setTimeout(resolve, 2500));
    const requestId = requestIdOf(harness, url);
    expect(upstream, 'the request reached the origin').toBeDefined();
    expect(harness.events(requestId)).toEqual(SENT); // still waiting: nothing timed out

    controller.abort();
    expect(await client).toMatchObject({ failed: 'before-response' });
    const { events } = await journalOf(harness, url);
    expect(events).toEqual([...SENT, 'onErrorOccurred']);
    await upstreamClosed;
    await expectStillServing();
  }, 15_000);
});

// ── TLS ───────────────────────────────────────────────────────────────────────────────────────

const opensslAvailable = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

interface TestCertificates {
  dir: string;
  /** PEM paths. */
  caCert: string;
  selfSigned: { cert: string; key: string };
  expired: { cert: string; key: string };
  wrongHost: { cert: string; key: string };
  valid: { cert: string; key: string };
}

const run = (cwd: string, args: string[]) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });

/** A private root, three leaves it signs (valid, expired in 2020, for another name) and a self-signed leaf; EC keys are quick to make. */
async function makeCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'wrtui-upstream-tls-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  run(dir, ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=wrtui upstream test root',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  run(dir, ['req', '-x509', ...ec, '-keyout', 'self.key', '-out', 'self.pem', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost']);
  run(dir, ['req', '-new', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=localhost']);
  await writeFile(join(dir, 'localhost.ext'), 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n');
  await writeFile(join(dir, 'other.ext'), 'subjectAltName=DNS:other-host.example\nbasicConstraints=CA:FALSE\n');
  const sign = (out: string, ext: string) => run(dir, ['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', ext, '-out', out]);
  sign('valid.pem', 'localhost.ext');
  sign('other.pem', 'other.ext');
  // openssl 3.0's x509 cannot set past dates; `openssl ca` can.
  await writeFile(join(dir, 'index.txt'), '');
  await writeFile(join(dir, 'serial'), '1000\n');
  await writeFile(
    join(dir, 'ca.cnf'),
    '[ca]\ndefault_ca = test\n[test]\ndatabase = index.txt\nnew_certs_dir = .\nserial = serial\ndefault_md = sha256\npolicy = any\nunique_subject = no\n[any]\ncommonName = supplied\n',
  );
  run(dir, ['ca', '-batch', '-config', 'ca.cnf', '-cert', 'ca.pem', '-keyfile', 'ca.key', '-in', 'leaf.csr', '-out', 'expired.pem', '-notext',
    '-startdate', '20200101000000Z', '-enddate', '20200201000000Z', '-extfile', 'localhost.ext']);
  const pair = async (cert: string, key: string) => ({ cert: await readFile(join(dir, cert), 'utf8'), key: await readFile(join(dir, key), 'utf8') });
  return {
    dir,
    caCert: join(dir, 'ca.pem'),
    selfSigned: await pair('self.pem', 'self.key'),
    expired: await pair('expired.pem', 'leaf.key'),
    wrongHost: await pair('other.pem', 'leaf.key'),
    valid: await pair('valid.pem', 'leaf.key'),
  };
}

/** An https origin on 127.0.0.1 presenting `tls`; its URL names it `localhost`. */
async function httpsOrigin(tls: { cert: string; key: string }): Promise<string> {
  const port = await listen(https.createServer(tls, (_req, res) => res.end('secret')));
  return `https://localhost:${port}`;
}

describe.skipIf(!opensslAvailable)('upstream TLS failures (https through CONNECT, the client trusting wrtui\'s CA)', () => {
  let certs: TestCertificates;
  beforeAll(async () => {
    certs = await makeCertificates();
  });
  afterAll(async () => {
    if (certs) await rm(certs.dir, { recursive: true, force: true });
  });

  it('self-signed origin → net::ERR_CERT_AUTHORITY_INVALID; the client gets a 502 saying so, not the page', async () => {
    const url = `${await httpsOrigin(certs.selfSigned)}/self-signed`;
    expect(await clientOutcome(harness, url)).toEqual(badGateway('net::ERR_CERT_AUTHORITY_INVALID'));
    const { events, error } = await journalOf(harness, url);
    expect(events).toEqual([...SENT, 'onErrorOccurred']);
    expect(error).toBe('net::ERR_CERT_AUTHORITY_INVALID');
    await expectStillServing();
  });

  it('a refused upstream certificate names the flag that accepts it: --insecure-upstream HOST, in the 502 and in the log beside the request', async () => {
    const url = `${await httpsOrigin(certs.selfSigned)}/self-signed-hint`;
    const outcome = await clientOutcome(harness, url);
    expect(outcome).toMatchObject({ status: 502, body: expect.stringContaining('start wrtui with --insecure-upstream localhost') });
    const requestId = requestIdOf(harness, url);
    await finished(harness, requestId);
    const note = harness.entries.find((entry) => entry.kind === 'log' && entry.requestId === requestId);
    expect(note).toMatchObject({ level: 'warn', message: expect.stringMatching(/^net::ERR_CERT_AUTHORITY_INVALID from localhost:\d+ \(.*self-signed.*\): .*--insecure-upstream localhost/) });
  });

  it('insecureUpstreamHosts: the same self-signed origin is served, and only for the hosts named', async () => {
    const base = await httpsOrigin(certs.selfSigned);
    const insecure = await startProxyHarness({ proxy: { insecureUpstreamHosts: ['localhost'] } });
    const elsewhere = await startProxyHarness({ proxy: { insecureUpstreamHosts: ['example.test'] } });
    try {
      const url = `${base}/insecure-ok`;
      expect(await clientOutcome(insecure, url)).toEqual({ failed: false, status: 200, body: 'secret' });
      expect((await journalOf(insecure, url)).events).toEqual([...STARTED, 'onCompleted']);
      const other = `${base}/insecure-other-host`;
      expect(await clientOutcome(elsewhere, other)).toEqual(badGateway('net::ERR_CERT_AUTHORITY_INVALID'));
      expect((await journalOf(elsewhere, other)).error).toBe('net::ERR_CERT_AUTHORITY_INVALID');
    } finally {
      await insecure.close();
      await elsewhere.close();
    }
  });

  // Expired and wrong-name certificates must come from a CA the proxy trusts, or the verdict is
  // "unknown authority" (Node, like Chrome, reports the chain before the name; for a self-signed
  // expired leaf Node reports the date where Chrome reports the authority). CaptureProxy has no
  // option for extra upstream CAs and mockttp then uses Node's default store, which reads
  // NODE_EXTRA_CA_CERTS only at process start: so these run in a child process started with it.
  describe('an origin whose CA the proxy trusts (NODE_EXTRA_CA_CERTS, in a child process)', () => {
    type ChildResult = { url: string; client: ClientOutcome; events: string[]; error?: string };
    let results: Record<'expired' | 'wrongHost' | 'valid' | 'after', ChildResult>;

    beforeAll(async () => {
      const urls = {
        expired: `${await httpsOrigin(certs.expired)}/expired`,
        wrongHost: `${await httpsOrigin(certs.wrongHost)}/wrong-host`,
        valid: `${await httpsOrigin(certs.valid)}/valid`,
        after: `${origin.url}/after-tls`,
      };
      const script = join(certs.dir, 'child.mts');
      const output = join(certs.dir, 'child-results.json');
      await writeFile(script, CHILD_SCRIPT);
      await new Promise<void>((resolve, reject) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', script],
          {
            cwd: process.cwd(),
            env: {
              ...process.env,
              NODE_EXTRA_CA_CERTS: certs.caCert,
              WRTUI_TEST_HARNESS: pathToFileURL(join(process.cwd(), 'test/helpers/proxy-harness.ts')).href,
              WRTUI_TEST_URLS: JSON.stringify(urls),
              WRTUI_TEST_OUTPUT: output,
            },
            timeout: 30_000,
          },
          (error, _stdout, stderr) => (error ? reject(new Error(`child failed: ${error.message}\n${stderr}`)) : resolve()),
        );
      });
      results = JSON.parse(await readFile(output, 'utf8'));
    }, 40_000);

    it('control: a valid certificate from that CA is served', () => {
      expect(results.valid.client).toEqual({ failed: false, status: 200, body: 'secret' });
      expect(results.valid.events).toEqual([...STARTED, 'onCompleted']);
    });

    it('expired certificate → net::ERR_CERT_DATE_INVALID', () => {
      expect(results.expired.client).toEqual(badGateway('net::ERR_CERT_DATE_INVALID'));
      expect(results.expired.events).toEqual([...SENT, 'onErrorOccurred']);
      expect(results.expired.error).toBe('net::ERR_CERT_DATE_INVALID');
    });

    it('certificate for another name → net::ERR_CERT_COMMON_NAME_INVALID', () => {
      expect(results.wrongHost.client).toEqual(badGateway('net::ERR_CERT_COMMON_NAME_INVALID'));
      expect(results.wrongHost.events).toEqual([...SENT, 'onErrorOccurred']);
      expect(results.wrongHost.error).toBe('net::ERR_CERT_COMMON_NAME_INVALID');
    });

    it('the proxy keeps serving after them', () => {
      expect(results.after.client).toEqual({ failed: false, status: 200, body: 'fine' });
      expect(results.after.events).toEqual([...STARTED, 'onCompleted']);
    });
  });
});

/** Runs in the child: one harness, each URL fetched in turn, results written as JSON. */
const CHILD_SCRIPT = `
import { writeFileSync } from 'node:fs';
const { startProxyHarness, requestIdOf, finished } = await import(process.env.WRTUI_TEST_HARNESS);
const urls = JSON.parse(process.env.WRTUI_TEST_URLS);
const harness = await startProxyHarness();
const results = {};
try {
  for (const [name, url] of Object.entries(urls)) {
    let client;
    let response;
    try {
      response = await harness.fetch(url);
    } catch (error) {
      client = { failed: 'before-response', code: error.code };
    }
    if (response) {
      try {
        client = { failed: false, status: response.statusCode, body: await response.body.text() };
      } catch (error) {
        client = { failed: 'in-body', status: response.statusCode, code: error.code };
      }
    }
    const requestId = requestIdOf(harness, url);
    const last = await finished(harness, requestId);
    await new Promise((resolve) => setTimeout(resolve, 50));
    results[name] = { url, client, events: harness.events(requestId), error: last.details.error };
  }
} finally {
  await harness.close();
}
writeFileSync(process.env.WRTUI_TEST_OUTPUT, JSON.stringify(results));
`;
