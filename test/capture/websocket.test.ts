// WebSocket handshakes through the proxy: Chrome reports them as type "websocket" with the full
// event sequence, onCompleted when the 101 arrives; a listener may cancel one or change its headers;
// after the 101 the bytes flow both ways untouched.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { JournalEntry } from '../../src/engine/journal.js';
import type { OnCompletedDetails, OnErrorOccurredDetails } from '../../src/engine/types.js';
import { finished, startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

let origin: http.Server;
let originPort: number;
/** The handshake request headers the origin received, by path. */
const handshakes = new Map<string, http.IncomingHttpHeaders>();
let h: ProxyHarness;

beforeAll(async () => {
  origin = http.createServer((_req, res) => res.end('not a socket'));
  const sockets = new WebSocketServer({ noServer: true });
  origin.on('upgrade', (req, socket, head) => {
    handshakes.set(req.url ?? '', req.headers);
    if (req.url === '/deny') return void socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
    sockets.handleUpgrade(req, socket, head, (ws) => ws.on('message', (message) => ws.send(`echo ${String(message)}`)));
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  originPort = (origin.address() as AddressInfo).port;
  h = await startProxyHarness();
});
afterAll(async () => {
  await h.close();
  origin.closeAllConnections();
  origin.close();
});

/** A ws client whose TCP connection goes to the proxy (a plain ws:// request in proxy form). */
function open(path: string, onUpgrade?: (response: http.IncomingMessage) => void, message = 'hi'): Promise<{ echoed?: string; error?: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${originPort}${path}`, { createConnection: () => net.connect(h.proxy.port, '127.0.0.1') });
    if (onUpgrade) ws.on('upgrade', onUpgrade);
    ws.on('open', () => ws.send(message));
    ws.on('message', (message) => {
      resolve({ echoed: String(message) });
      ws.close();
    });
    ws.on('error', (error) => resolve({ error: error.message }));
  });
}

const idOf = (path: string) =>
  h.webRequestEntries((e) => e.event === 'onBeforeRequest' && e.details.url === `ws://127.0.0.1:${originPort}${path}`)[0]!.details.requestId;

describe('WebSocket handshakes', () => {
  it('type websocket, the full event sequence, onCompleted with the 101', async () => {
    expect(await open('/chat')).toEqual({ echoed: 'echo hi' });
    const id = idOf('/chat');
    await finished(h, id);
    expect(h.events(id)).toEqual(['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onResponseStarted', 'onCompleted']);
    const completed = h.webRequestEntries((e) => e.details.requestId === id && e.event === 'onCompleted')[0]!.details as OnCompletedDetails;
    expect(completed).toMatchObject({ type: 'websocket', statusCode: 101, url: `ws://127.0.0.1:${originPort}/chat` });
  });

  it('a listener cancelling the handshake: the client fails to connect, onErrorOccurred net::ERR_BLOCKED_BY_CLIENT', async () => {
    h.api('no-sockets').chrome.webRequest!.onBeforeRequest.addListener(
      (d) => (d.url.endsWith('/blocked') ? { cancel: true } : undefined),
      { urls: ['ws://*/*'], types: ['websocket'] },
      ['blocking'],
    );
    expect((await open('/blocked')).error).toBeDefined();
    const id = idOf('/blocked');
    await finished(h, id);
    expect(h.events(id)).toEqual(['onBeforeRequest', 'onErrorOccurred']);
    expect((h.webRequestEntries((e) => e.details.requestId === id).at(-1)!.details as OnErrorOccurredDetails).error).toBe('net::ERR_BLOCKED_BY_CLIENT');
  });

  it('an origin refusing the upgrade: the request completes with its status', async () => {
    expect((await open('/deny')).error).toMatch(/403/);
    const id = idOf('/deny');
    await finished(h, id);
    expect(h.events(id).slice(-3)).toEqual(['onHeadersReceived', 'onResponseStarted', 'onCompleted']);
  });

  it('a listener\'s request and response header changes apply to the handshake; the ip is the origin\'s', async () => {
    const api = h.api('socket-headers').chrome.webRequest!;
    const filter = { urls: ['ws://*/*'], types: ['websocket' as const] };
    api.onBeforeSendHeaders.addListener(
      (d) => (d.url.endsWith('/headers') ? { requestHeaders: [...d.requestHeaders!, { name: 'X-Rule', value: 'handshake' }] } : undefined),
      filter,
      ['blocking', 'requestHeaders'],
    );
    api.onHeadersReceived.addListener(
      (d) => (d.url.endsWith('/headers') ? { responseHeaders: [...d.responseHeaders!, { name: 'X-Rule-Answer', value: 'yes' }] } : undefined),
      filter,
      ['blocking', 'responseHeaders'],
    );
    let upgradeHeaders: http.IncomingHttpHeaders = {};
    expect(await open('/headers', (response) => (upgradeHeaders = response.headers))).toEqual({ echoed: 'echo hi' });
    expect(handshakes.get('/headers')?.['x-rule']).toBe('handshake');
    expect(upgradeHeaders['x-rule-answer']).toBe('yes');
    const id = idOf('/headers');
    await finished(h, id);
    const completed = h.webRequestEntries((e) => e.details.requestId === id && e.event === 'onCompleted')[0]!.details as OnCompletedDetails;
    expect(completed.ip).toBe('127.0.0.1');
  });

  it('after the 101 the connection carries any bytes both ways: a 200 KiB message is echoed whole', async () => {
    const big = 'x'.repeat(200 * 1024);
    expect(await open('/big', undefined, big)).toEqual({ echoed: `echo ${big}` });
  });
});

describe('WebSocket messages', () => {
  it('with bodies journaled, every message both ways is a websocketMessage entry of the handshake: direction, opcode, size, text; the bytes flow unchanged', async () => {
    const withBodies = await startProxyHarness({ proxy: { journalBodies: true } });
    try {
      const echoed = await new Promise<string[]>((resolve, reject) => {
        const got: string[] = [];
        const ws = new WebSocket(`ws://127.0.0.1:${originPort}/messages`, { createConnection: () => net.connect(withBodies.proxy.port, '127.0.0.1') });
        ws.on('open', () => {
          ws.send('one');
          ws.send('two'.repeat(100));
        });
        ws.on('message', (message) => {
          got.push(String(message));
          if (got.length === 2) {
            ws.close(1000, 'done');
            resolve(got);
          }
        });
        ws.on('error', reject);
      });
      expect(echoed).toEqual(['echo one', `echo ${'two'.repeat(100)}`]);
      const id = withBodies.webRequestEntries((e) => e.event === 'onBeforeRequest' && e.details.url.endsWith('/messages'))[0]!.details.requestId;
      const messages = () => withBodies.entries.filter((entry) => entry.kind === 'websocketMessage' && entry.requestId === id) as Extract<JournalEntry, { kind: 'websocketMessage' }>[];
      for (let waited = 0; messages().filter((m) => m.opcode === 'close').length < 2 && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      const way = (direction: 'send' | 'receive') => messages().filter((m) => m.direction === direction).map((m) => [m.opcode, m.size, m.opcode === 'text' ? Buffer.from(m.data).toString() : '']);
      expect(way('send')).toEqual([
        ['text', 3, 'one'],
        ['text', 300, 'two'.repeat(100)],
        ['close', 6, ''],
      ]);
      expect(way('receive')).toEqual([
        ['text', 8, 'echo one'],
        ['text', 305, `echo ${'two'.repeat(100)}`],
        ['close', 6, ''],
      ]);
    } finally {
      await withBodies.close();
    }
  });
});

describe('compressed WebSocket messages', () => {
  it('with permessage-deflate agreed on, messages are journaled inflated (context kept between them), in order, the size on the wire', async () => {
    const deflating = http.createServer((_req, res) => res.end('not a socket'));
    const server = new WebSocketServer({ server: deflating, perMessageDeflate: { threshold: 0 } });
    server.on('connection', (ws) => ws.on('message', (message) => ws.send(`echo ${String(message)}`)));
    await new Promise<void>((resolve) => deflating.listen(0, '127.0.0.1', resolve));
    const port = (deflating.address() as AddressInfo).port;
    const withBodies = await startProxyHarness({ proxy: { journalBodies: true } });
    try {
      const text = 'compress me '.repeat(50);
      await new Promise<void>((resolve, reject) => {
        let got = 0;
        const ws = new WebSocket(`ws://127.0.0.1:${port}/deflate`, { perMessageDeflate: { threshold: 0 }, createConnection: () => net.connect(withBodies.proxy.port, '127.0.0.1') });
        ws.on('open', () => {
          ws.send(text);
          ws.send(text); // the second refers back to the first (context takeover)
        });
        ws.on('message', () => {
          if (++got === 2) {
            ws.close();
            resolve();
          }
        });
        ws.on('error', reject);
      });
      const id = withBodies.webRequestEntries((e) => e.event === 'onBeforeRequest' && e.details.url.endsWith('/deflate'))[0]!.details.requestId;
      const messages = () => withBodies.entries.filter((entry) => entry.kind === 'websocketMessage' && entry.requestId === id && entry.opcode === 'text') as Extract<JournalEntry, { kind: 'websocketMessage' }>[];
      for (let waited = 0; messages().length < 4 && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      const way = (direction: 'send' | 'receive') => messages().filter((m) => m.direction === direction);
      expect(way('send').map((m) => Buffer.from(m.data).toString())).toEqual([text, text]);
      expect(way('receive').map((m) => Buffer.from(m.data).toString())).toEqual([`echo ${text}`, `echo ${text}`]);
      for (const message of messages()) expect(message.compressed).toBeUndefined();
      expect(way('send')[1]!.size).toBeLessThan(text.length); // compressed on the wire
    } finally {
      await withBodies.close();
      server.close();
      deflating.closeAllConnections();
      deflating.close();
    }
  });
});
