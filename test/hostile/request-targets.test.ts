// No request line ends the process. A real `wrtui headless` (the built bin, as a user runs it) is
// sent request targets and heads from every form RFC 9112 names (origin, absolute, authority,
// asterisk) with the parts parsers trip on: brackets, userinfo, percent-escapes, IDNA and
// non-ASCII hosts, ports out of range, odd schemes. After each one the process must still be
// alive; every few, and at the end, a real request through it must still be served. Before this
// test, `GET http://[zz/ HTTP/1.1` ended wrtui (connect's url.parse threw inside mockttp).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrigin, type Origin } from '../helpers/origin.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 250);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

// Nothing the fuzzer makes up may leave this machine: the proxy cancels every request that is not
// for a loopback host, as a rule file (so the rule path is under fire too).
const HERMETIC_RULE = `
export const manifest = { name: 'hermetic', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'] };
export default function background({ chrome }) {
  chrome.webRequest.onBeforeRequest.addListener((details) => {
    let host = '';
    try { host = new URL(details.url).hostname; } catch {}
    return { cancel: !['127.0.0.1', 'localhost', '[::1]'].includes(host) };
  }, { urls: ['<all_urls>'] }, ['blocking']);
}
`;

let work: string;
let origin: Origin;
let child: ChildProcess;
let port = 0;
let exited: string | undefined;
const journal: { kind: string; level?: string; message?: string; action?: string }[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'wrtui-targets-'));
  origin = await startOrigin((_req, res) => res.end('fine'));
  await mkdir(join(work, 'rules'));
  await writeFile(join(work, 'rules', 'hermetic.js'), HERMETIC_RULE);
  child = spawn(process.execPath, [join(process.cwd(), 'bin/wrtui.js'), 'headless', '--json', '--port', '0', '--incognito-port', '0', '--state-dir', join(work, 'state'), '--rules', join(work, 'rules'), '--no-watch'], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.once('exit', (code, signal) => (exited = `exit ${code ?? signal}: ${stderr.slice(-2000)}`));
  createInterface({ input: child.stdout! }).on('line', (line) => journal.push(JSON.parse(line)));
  // Ready once its rule is loaded (or gone, with stderr's last words).
  for (const deadline = Date.now() + 30_000; !journal.some((entry) => entry.kind === 'rule' && entry.action === 'loaded'); ) {
    if (exited !== undefined || Date.now() > deadline) throw new Error(`wrtui headless did not load its rule: ${exited ?? JSON.stringify(journal)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const listening = journal.find((entry) => entry.kind === 'listening') as unknown as { url: string };
  port = Number(new URL(listening.url).port);
}, 40_000);

afterAll(async () => {
  if (child && exited === undefined) {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
  }
  await origin?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/**
 * Sends raw bytes, keeping its side open as browsers do (a half-close is a client that left, to
 * wrtui as to nginx); resolves with the first bytes of the answer once the proxy closed or the
 * answer's head arrived ('' if the proxy closed without one).
 */
function exchange(bytes: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1').slice(0, 300));
      socket.destroy();
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      // A WebSocket handshake that succeeded stays open: its head is the answer.
      if (/^HTTP\/1\.1 101 [^]*\r\n\r\n/.test(Buffer.concat(chunks).toString('latin1'))) done();
    });
    socket.on('error', () => {});
    socket.on('close', done);
    const timer = setTimeout(done, 5_000);
  });
}

/** A plain GET through the proxy to the test's origin: the proxy still serves. */
async function stillServing(): Promise<void> {
  const answer = await exchange(Buffer.from(`GET ${origin.url}/after HTTP/1.1\r\nHost: ${new URL(origin.url).host}\r\nConnection: close\r\n\r\n`));
  expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  expect(answer).toMatch(/fine$/);
}

// The parts of a target parsers trip on.
const scheme = fc.constantFrom('http', 'https', 'ws', 'wss', 'HTTP', 'ftp', 'file', 'h', '');
const userinfo = fc.constantFrom('', 'a@', 'a:b@', '@', 'a@b@', '%zz@', '[@', ':@');
const host = fc.oneof(
  fc.constantFrom('[zz', '[::1', '[', ']', '[::1]', '[::1]]', '[v1.x]', '[127.0.0.1]', '[fe80::1%25lo]', '[::ffff:127.0.0.1]', '127.0.0.1', 'localhost', '127.1', '0x7f.1', '%zz', '%31%32%37.0.0.1', 'xn--', 'xn--bcher-kva.test', 'bücher.test', '☃.test', 'a..b', '', '.', 'a b', '-', 'a_b.test', '999.999.999.999'),
  fc.string({ unit: 'binary-ascii', maxLength: 12 }),
);
const portPart = fc.constantFrom('', ':', ':0', ':80', ':65535', ':65536', ':99999', ':-1', ':abc', ':8080:80', '::');
const pathPart = fc.oneof(fc.constantFrom('', '/', '/x', '/%zz', '/%00', '/[', '/a?b=%', '/#frag', '//x', '/../..', '/\u00e9'), fc.webPath());
const absolute = fc.tuple(scheme, fc.constantFrom('://', ':/', ':', '///'), userinfo, host, portPart, pathPart).map((parts) => parts.join(''));
const originForm = pathPart.map((path) => (path.startsWith('/') ? path : `/${path}`));
const authority = fc.tuple(userinfo, host, portPart).map((parts) => parts.join(''));
const method = fc.constantFrom('GET', 'POST', 'HEAD', 'OPTIONS', 'CONNECT', 'PUT', 'get', 'G\u00e9T');

/** A request head: the target in one of the four forms, with a Host header that may be as odd. */
const head = fc.oneof(
  fc.tuple(method, absolute, fc.option(authority)).map(([verb, target, hostHeader]) => ({ verb, target, hostHeader })),
  fc.tuple(method, originForm, fc.option(authority)).map(([verb, target, hostHeader]) => ({ verb, target, hostHeader })),
  fc.tuple(fc.constantFrom('CONNECT', 'GET'), authority, fc.option(authority)).map(([verb, target, hostHeader]) => ({ verb, target, hostHeader })),
  fc.tuple(fc.constantFrom('OPTIONS', 'GET'), fc.constant('*'), fc.option(authority)).map(([verb, target, hostHeader]) => ({ verb, target, hostHeader })),
);
const upgrade = fc.boolean();

describe('no request line or head ends the process', () => {
  it(`the exact lines that ended wrtui are answered 400 and journaled, and it serves on`, { timeout: 60_000 }, async () => {
    for (const target of ['http://[zz/', 'http://[::1', 'http://[', 'http://a@[zz/', 'https://[zz/', 'ws://[zz/', 'http://%zz/']) {
      const before = journal.length;
      expect(await exchange(Buffer.from(`GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`, 'latin1'))).toMatch(/^HTTP\/1\.1 400 /);
      expect(exited).toBeUndefined();
      // The journal says what came and what was done, quoting the target.
      await expect.poll(() => journal.slice(before).some((entry) => entry.kind === 'log' && entry.message?.includes('400') && entry.message.includes(JSON.stringify(target).slice(1, -1))), { timeout: 5_000 }).toBe(true);
    }
    // The same as a WebSocket handshake.
    const handshake = 'GET ws://[zz/ HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n';
    expect(await exchange(Buffer.from(handshake))).toMatch(/^HTTP\/1\.1 400 /);
    expect(exited).toBeUndefined();
    await stillServing();
  });

  it(`fuzzed targets in every form, with odd Host headers and upgrades: alive after each, serving after all (${RUNS} cases)`, { timeout: 600_000 }, async () => {
    let count = 0;
    await fc.assert(
      fc.asyncProperty(head, upgrade, async ({ verb, target, hostHeader }, asUpgrade) => {
        const headers = [
          ...(hostHeader === null ? [] : [`Host: ${hostHeader}`]),
          ...(asUpgrade ? ['Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13'] : ['Connection: close']),
        ];
        const answer = await exchange(Buffer.from(`${verb} ${target} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`, 'utf8'));
        expect(exited).toBeUndefined();
        expect(answer === '' || /^HTTP\/1\.[01] \d{3} /.test(answer)).toBe(true);
        if (++count % 50 === 0) await stillServing();
      }),
      { numRuns: RUNS, ...(SEED !== undefined && { seed: SEED }) },
    );
    await stillServing();
    expect(exited).toBeUndefined();
  });
});
