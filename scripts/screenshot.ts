// The README's picture of the screen, made from the real TUI so that it can be regenerated:
// starts `wrtui --rules examples/rules` in a tmux of its own at a fixed size, sends some traffic
// through its proxy to a local origin (the hostnames are mapped there with --resolve, so the
// example rules' verdicts show), opens one request's detail pane, captures the pane with its
// colours (`tmux capture-pane -e -p`) and renders that to SVG (scripts/ansi-to-svg.ts).
//
//   node --import tsx scripts/screenshot.ts [--out docs/screen.svg] [--columns 120] [--rows 32]
//
// Needs tmux and a built dist/ (node scripts/build.js). Leaves nothing behind: its tmux server,
// state folder and origin are its own and are removed whatever happens.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ansiToSvg } from './ansi-to-svg.js';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : (process.argv[index + 1] ?? fallback);
}

const out = resolve(option('out', join(root, 'docs/screen.svg')));
const columns = Number(option('columns', '120'));
const rows = Number(option('rows', '32'));
const STARTUP_MS = Number(process.env.SCREENSHOT_TIMEOUT_MS ?? 60_000);

/** What the origin answers: a small shop page and what it loads. */
function answer(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? '/', 'http://origin').pathname;
  const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
    res.end(body);
  };
  if (path === '/') return send(200, 'text/html; charset=utf-8', '<!doctype html><title>Shop</title><h1>Shop</h1>', { 'set-cookie': 'session=4f2a9c; Path=/; HttpOnly' });
  if (path.endsWith('.js')) return send(200, 'text/javascript', 'console.log("analytics");');
  if (path.endsWith('.css')) return send(200, 'text/css', 'body { font-family: sans-serif }');
  if (path.endsWith('.gif')) return send(200, 'image/gif', Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
  if (path === '/api/cart') return send(200, 'application/json', JSON.stringify({ items: [{ sku: 'A-1', qty: 2 }], total: 39.8 }));
  if (path === '/old-offers') return send(301, 'text/plain', '', { location: '/offers' });
  if (path === '/api/login' && req.method === 'POST') return send(401, 'application/json', '{"error":"bad password"}');
  return send(404, 'text/plain', 'not found');
}

/** The traffic a page load makes, in order: [method, url, headers, body]. */
type Exchange = [method: string, url: string, headers: Record<string, string>, body?: string];

function traffic(port: number): Exchange[] {
  const at = (host: string, path: string) => `http://${host}:${port}${path}`;
  const page = { accept: 'text/html,application/xhtml+xml', 'sec-fetch-dest': 'document' };
  const script = { accept: '*/*', 'sec-fetch-dest': 'script' };
  const image = { accept: 'image/avif,image/webp,*/*', 'sec-fetch-dest': 'image' };
  return [
    ['GET', at('shop.example.com', '/?utm_source=newsletter&utm_medium=email'), page],
    ['GET', at('shop.example.com', '/static/site.css'), { accept: 'text/css', 'sec-fetch-dest': 'style' }],
    ['GET', at('www.google-analytics.com', '/analytics.js'), script],
    ['GET', at('stats.doubleclick.net', '/pixel.gif?id=42'), image],
    ['GET', at('api.example.com', '/api/cart'), { accept: 'application/json', 'sec-fetch-dest': 'empty' }],
    ['POST', at('api.example.com', '/api/login'), { 'content-type': 'application/json', 'sec-fetch-dest': 'empty' }, '{"user":"ada","password":"…"}'],
    ['GET', at('shop.example.com', '/old-offers'), page],
    ['GET', at('cdn.example.com', '/img/missing.png'), image],
  ];
}

function listenOnFreePort(server: Server): Promise<number> {
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolveListen((server.address() as AddressInfo).port));
  });
}

async function freePort(): Promise<number> {
  const probe = createServer();
  const port = await listenOnFreePort(probe);
  await new Promise((done) => probe.close(() => done(undefined)));
  return port;
}

/** One request through the proxy, as curl -x does it; resolves when the response has ended. */
function viaProxy(proxyPort: number, [method, url, headers, body]: Exchange): Promise<void> {
  return new Promise((done, reject) => {
    const target = new URL(url);
    const req = request({ host: '127.0.0.1', port: proxyPort, method, path: url, headers: { host: target.host, 'user-agent': 'curl/8.14.1', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => done());
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'wrtui-screenshot-'));
  const socket = join(work, 'tmux.sock');
  const tmux = (...args: string[]): Promise<string> => run('tmux', ['-S', socket, '-f', '/dev/null', ...args]).then((result) => result.stdout);
  const origin = createServer(answer);
  try {
    const originPort = await listenOnFreePort(origin);
    const proxyPort = await freePort();
    const wrtui = [
      'env -u CI -u CONTINUOUS_INTEGRATION TERM=xterm-256color',
      JSON.stringify(process.execPath),
      JSON.stringify(join(root, 'bin/wrtui.js')),
      '--port', String(proxyPort), '--incognito-port', '0',
      '--state-dir', JSON.stringify(join(work, 'state')),
      '--rules', JSON.stringify(join(root, 'examples/rules')), '--no-watch',
      '--resolve', '*:127.0.0.1',
      '; sleep 60',
    ].join(' ');
    await tmux('new-session', '-d', '-s', 'shot', '-x', String(columns), '-y', String(rows), '-c', work, wrtui);
    const screen = () => tmux('capture-pane', '-p', '-t', 'shot');
    const waitFor = async (test: (text: string) => boolean, what: string): Promise<string> => {
      const deadline = Date.now() + STARTUP_MS;
      let last = '';
      while (Date.now() < deadline) {
        last = await screen().catch(() => '');
        if (test(last)) return last;
        await new Promise((wait) => setTimeout(wait, 100));
      }
      throw new Error(`screenshot: timed out waiting for ${what}; the screen:\n${last}`);
    };
    await waitFor((text) => text.includes(`127.0.0.1:${proxyPort}`) && /rules \d+ active/.test(text), 'wrtui to start');
    const requests = traffic(originPort);
    for (const item of requests) await viaProxy(proxyPort, item);
    await waitFor((text) => text.includes('missing.png') && text.includes('404'), 'the requests to be listed');
    // The detail pane of the page load: its verdicts and timeline are what wrtui is about.
    for (const key of ['Home', 'Enter']) {
      await tmux('send-keys', '-t', 'shot', key);
      await new Promise((wait) => setTimeout(wait, 150));
    }
    await waitFor((text) => text.includes('[Timeline]') && text.includes('onCompleted'), 'the detail pane');
    const ansi = await tmux('capture-pane', '-e', '-p', '-t', 'shot');
    writeFileSync(out, ansiToSvg(ansi, { columns, rows, title: 'wrtui: the request list and one request\'s timeline' }));
    console.log(`screenshot: ${out} (${columns}x${rows})`);
  } finally {
    await tmux('kill-server').catch(() => {});
    await new Promise((done) => origin.close(() => done(undefined)));
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
