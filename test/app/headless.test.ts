// The real `wrtui headless` binary, as a user runs it.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyAgent, request } from 'undici';
import { startOrigin, type Origin } from '../helpers/origin.js';

const BIN = join(process.cwd(), 'bin/wrtui.js');

async function startHeadless(args: string[], cwd: string) {
  const child = spawn(process.execPath, [BIN, 'headless', '--port', '0', '--incognito-port', '0', ...args], { cwd }) as ChildProcessWithoutNullStreams;
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const reader = createInterface({ input: child.stdout });
  const waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  reader.on('line', (line) => {
    lines.push(line);
    for (const waiter of waiters.splice(0)) {
      if (waiter.test(line)) waiter.resolve(line);
      else waiters.push(waiter);
    }
  });
  const waitFor = (test: (line: string) => boolean, timeoutMs = 10_000) =>
    new Promise<string>((resolve, reject) => {
      const found = lines.find(test);
      if (found) return resolve(found);
      const timer = setTimeout(() => reject(new Error(`timed out; stdout:\n${lines.join('\n')}\nstderr:\n${stderr}`)), timeoutMs);
      waiters.push({ test, resolve: (line) => (clearTimeout(timer), resolve(line)) });
    });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, lines, waitFor, exited, stderr: () => stderr };
}

let origin: Origin;
let workDir: string;
beforeAll(async () => {
  origin = await startOrigin((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Set-Cookie': 'visit=1; Max-Age=3600' });
    res.end(`hello ${req.url}`);
  });
  workDir = await mkdtemp(join(tmpdir(), 'wrtui-headless-'));
});
afterAll(async () => {
  await origin.close();
  await rm(workDir, { recursive: true, force: true });
});

describe('wrtui headless --json', () => {
  it('prints {"kind":"listening"} first, then every event of a request as it happens, as NDJSON', async () => {
    const run = await startHeadless(['--json'], workDir);
    const first = JSON.parse(await run.waitFor(() => true));
    expect(first).toMatchObject({ kind: 'listening', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });

    const response = await request(`${origin.url}/page`, { dispatcher: new ProxyAgent({ uri: first.url, proxyTunnel: false }) });
    expect(await response.body.text()).toBe('hello /page');
    await run.waitFor((line) => line.includes('"onCompleted"'));
    const events = run.lines.map((line) => JSON.parse(line)).filter((entry) => entry.kind === 'webRequest').map((entry) => entry.event);
    expect(events).toEqual(['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onResponseStarted', 'onCompleted']);
    expect(run.lines.every((line) => JSON.parse(line) && true)).toBe(true);

    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('an extension that fetches as soon as its top level runs, before the proxy listens, is journaled as its own request (not sent around the proxy)', async () => {
    const extension = join(workDir, 'eager');
    await mkdir(extension, { recursive: true });
    await writeFile(join(extension, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'Eager', version: '1', host_permissions: ['<all_urls>'], background: { service_worker: 'sw.js' } }));
    await writeFile(join(extension, 'sw.js'), `fetch(${JSON.stringify(`${origin.url}/eager-config`)});`);
    const run = await startHeadless(['--json', '--extension', extension, '--rules', join(workDir, 'no-rules')], workDir);
    const line = await run.waitFor((text) => text.includes('"onBeforeRequest"') && text.includes('/eager-config'));
    expect(JSON.parse(line)).toMatchObject({ kind: 'webRequest', madeBy: { extension: 'Eager' } });
    await run.waitFor((text) => text.includes('"listening"'));
    run.child.kill('SIGTERM');
    expect(await run.exited, run.stderr()).toBe(0);
  });

  it('SIGINT stops it cleanly and the cookie store is on disk (0600)', async () => {
    const run = await startHeadless(['--json'], workDir);
    const { url } = JSON.parse(await run.waitFor(() => true));
    await (await request(`${origin.url}/cookie`, { dispatcher: new ProxyAgent({ uri: url, proxyTunnel: false }) })).body.text();
    await run.waitFor((line) => line.includes('"cookieChanged"'));
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    const saved = JSON.parse(await readFile(join(workDir, '.wrtui/cookies.json'), 'utf8'));
    expect(saved.cookies.map((c: { key: string }) => c.key)).toContain('visit');
    const { statSync } = await import('node:fs');
    expect(statSync(join(workDir, '.wrtui/cookies.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(workDir, '.wrtui/ca.key')).mode & 0o777).toBe(0o600);
  });
});

describe('wrtui headless (plain)', () => {
  it('prints one line per finished request', async () => {
    const run = await startHeadless([], workDir);
    const listening = await run.waitFor((line) => line.startsWith('wrtui listening on '));
    const url = /on (http:\/\/\S+)/.exec(listening)![1]!;
    await (await request(`${origin.url}/plain`, { dispatcher: new ProxyAgent({ uri: url, proxyTunnel: false }) })).body.text();
    const line = await run.waitFor((l) => l.includes('/plain'));
    expect(line).toMatch(/GET\s+200 other\s+http:\/\/127\.0\.0\.1:\d+\/plain\s+\d+ ms/);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('stops with one summary line, not a line per rule unloaded', async () => {
    const rules = join(workDir, 'summary-rules');
    await mkdir(rules, { recursive: true });
    for (const name of ['one', 'two', 'three']) {
      await writeFile(join(rules, `${name}.ts`), `export const manifest = { name: '${name}', permissions: ['webRequest'], host_permissions: ['<all_urls>'] };\nexport default function background({ chrome }: any) {\n  chrome.webRequest.onCompleted.addListener(() => {}, { urls: ['<all_urls>'] });\n}\n`);
    }
    const run = await startHeadless(['--rules', rules], workDir);
    const listening = await run.waitFor((line) => line.startsWith('wrtui listening on '));
    await run.waitFor((line) => line.startsWith('rule three loaded'));
    const url = /on (http:\/\/\S+)/.exec(listening)![1]!;
    await (await request(`${origin.url}/summary`, { dispatcher: new ProxyAgent({ uri: url, proxyTunnel: false }) })).body.text();
    await run.waitFor((l) => l.includes('/summary'));
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.lines.filter((l) => l.includes('unloaded'))).toEqual([]);
    expect(run.lines.at(-1)).toMatch(/^wrtui stopped on SIGINT: 1 request \(0 failed, 0 touched by rules\), 3 rules loaded; cookie store saved in /);
  });

  it('with --record, its last line says where the recording went and how to replay it', async () => {
    const run = await startHeadless(['--record', 'my session.ndjson'], workDir);
    const listening = await run.waitFor((line) => line.startsWith('wrtui listening on '));
    const url = /on (http:\/\/\S+)/.exec(listening)![1]!;
    await (await request(`${origin.url}/recorded`, { dispatcher: new ProxyAgent({ uri: url, proxyTunnel: false }) })).body.text();
    await run.waitFor((l) => l.includes('/recorded'));
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.lines.at(-1)).toMatch(/; recorded 1 request to my session\.ndjson \(wrtui replay 'my session\.ndjson'\)$/);
    expect((await readFile(join(workDir, 'my session.ndjson'), 'utf8')).split('\n').some((line) => line.includes('/recorded'))).toBe(true);
  });
});

describe('wrtui ca', () => {
  it('prints where the certificate is and how to trust it, never the private key', async () => {
    const child = spawn(process.execPath, [BIN, 'ca', '--state-dir', join(workDir, 'ca-state')]);
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    await new Promise((resolve) => child.on('exit', resolve));
    expect(out).toContain(`wrtui CA certificate: ${join(workDir, 'ca-state', 'ca.pem')}`);
    expect(out).toContain('--cacert');
    expect(out).toContain('NODE_EXTRA_CA_CERTS=');
    expect(out).toContain('--ignore-certificate-errors-spki-list=');
    expect(out).not.toContain('PRIVATE KEY');
  });
});
