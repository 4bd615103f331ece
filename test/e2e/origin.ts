// The origin server of the end-to-end test: serves fixtures/e2e/ over http and https on 127.0.0.1,
// plus the few dynamic answers the page needs (a JSON for fetch(), the form's POST target and a
// WebSocket that says hello). Every path starts with a run prefix (`/<run>/…`) that the server
// ignores, so each test's requests are told apart in the journal by URL alone.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tinyTrueTypeFont } from './tiny-font.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/e2e');

const STATIC: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'frame.html': 'text/html; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'image.png': 'image/png',
};

/** What the origin saw, for the test's own diagnostics. */
export interface OriginLog {
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders }[];
  posts: { url: string; body: string }[];
  websockets: { url: string; headers: http.IncomingHttpHeaders }[];
}

export interface Origin {
  /** e.g. http://127.0.0.1:41234 */
  httpUrl: string;
  httpsUrl: string;
  log: OriginLog;
  close(): Promise<void>;
}

// RFC 6455 §1.3. (A wrong one went unnoticed while mockttp terminated WebSockets with its own key.)
const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** Starts the origin; `tls` is the certificate the https side presents (any: the proxy is told not to check it). */
export async function startOrigin(tls: { cert: string; key: string }): Promise<Origin> {
  const font = tinyTrueTypeFont();
  const files = new Map<string, Buffer>();
  for (const name of Object.keys(STATIC)) files.set(name, await readFile(join(FIXTURES, name)));
  const log: OriginLog = { requests: [], posts: [], websockets: [] };
  const sockets = new Set<Socket>();

  const handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    log.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const file = fileOf(req.url);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const send = (status: number, type: string, body: string | Buffer): void => {
        res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
        res.end(body);
      };
      if (req.method === 'POST' && file === 'submit') {
        const body = Buffer.concat(chunks).toString('utf8');
        log.posts.push({ url: req.url ?? '', body });
        const fields = [...new URLSearchParams(body)].map(([k, v]) => `<li>${escapeHtml(k)}=${escapeHtml(v)}</li>`).join('');
        return send(200, 'text/html; charset=utf-8', `<!doctype html><title>received</title><ul id="done">${fields}</ul>`);
      }
      if (req.method !== 'GET') return send(405, 'text/plain', 'method not allowed');
      if (file === 'data.json') return send(200, 'application/json', JSON.stringify({ greeting: 'hello from data.json' }));
      if (file === 'font.ttf') return send(200, 'font/ttf', font);
      const type = STATIC[file];
      const bytes = files.get(file);
      if (type === undefined || bytes === undefined) return send(404, 'text/plain', 'not found');
      send(200, type, bytes);
    });
  };

  // A WebSocket handshake (RFC 6455 §4.2.2) and one text frame; nothing more is needed.
  const upgrade = (req: http.IncomingMessage, socket: Socket): void => {
    socket.on('error', () => {});
    const key = req.headers['sec-websocket-key'];
    if (fileOf(req.url) !== 'ws' || typeof key !== 'string') {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    log.websockets.push({ url: req.url ?? '', headers: req.headers });
    const accept = createHash('sha1').update(key + WEBSOCKET_GUID).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    const message = Buffer.from('hello over websocket');
    socket.write(Buffer.concat([Buffer.from([0x81, message.length]), message])); // FIN + text, unmasked, < 126 bytes
    // The client closes after the message; answer its close frame by closing too.
    socket.on('data', (data: Buffer) => {
      if ((data[0]! & 0x0f) === 0x8) socket.end(Buffer.from([0x88, 0]));
    });
  };

  const track = (server: http.Server | https.Server): void => {
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    server.on('upgrade', upgrade);
    server.on('clientError', (_error, socket) => socket.destroy());
  };
  const plain = http.createServer(handle);
  const secure = https.createServer({ cert: tls.cert, key: tls.key }, handle);
  track(plain);
  track(secure);
  secure.on('tlsClientError', () => {});
  await Promise.all([plain, secure].map((server) => new Promise<void>((done) => server.listen(0, '127.0.0.1', done))));

  return {
    httpUrl: `http://127.0.0.1:${(plain.address() as AddressInfo).port}`,
    httpsUrl: `https://127.0.0.1:${(secure.address() as AddressInfo).port}`,
    log,
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([plain, secure].map((server) => new Promise((done) => server.close(done))));
    },
  };
}

/** `/<run>/style.css?x` → `style.css` (the run prefix is only a label). */
function fileOf(url: string | undefined): string {
  const path = (url ?? '/').split(/[?#]/)[0] ?? '/';
  const segments = path.split('/').filter(Boolean);
  return segments.slice(1).join('/');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
