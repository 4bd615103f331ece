// The WebDriver BiDi client: commands answered by id, errors as rejections that name the command,
// events emitted, pending commands failed when the browser goes, and never a non-loopback address.
// A real WebSocket server on 127.0.0.1 plays the browser's remote agent.
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { BidiSocket, type BidiEvent } from '../../src/app/bidi-socket.js';

let server: WebSocketServer | undefined;
afterEach(() => server?.close());

/** A remote agent on loopback answering each command with `answer`; resolves its URL and the socket once connected. */
async function agent(answer: (message: { id: number; method: string }, socket: WebSocket) => void): Promise<string> {
  server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server!.once('listening', resolve));
  server.on('connection', (socket) => socket.on('message', (data) => answer(JSON.parse(String(data)) as { id: number; method: string }, socket)));
  return `ws://127.0.0.1:${(server.address() as { port: number }).port}/session`;
}

describe('the BiDi client', () => {
  it('resolves a command with its result, rejects an error answer naming the command, and emits events', async () => {
    const url = await agent((message, socket) => {
      if (message.method === 'session.new') {
        socket.send(JSON.stringify({ type: 'event', method: 'browsingContext.contextCreated', params: { context: 'a' } }));
        socket.send(JSON.stringify({ type: 'success', id: message.id, result: { sessionId: 's' } }));
      } else socket.send(JSON.stringify({ type: 'error', id: message.id, error: 'unknown command', message: 'no such thing' }));
    });
    const bidi = await BidiSocket.connect(url);
    const events: BidiEvent[] = [];
    bidi.on('event', (event) => events.push(event));
    await expect(bidi.send('session.new', {})).resolves.toEqual({ sessionId: 's' });
    expect(events).toEqual([{ method: 'browsingContext.contextCreated', params: { context: 'a' } }]);
    await expect(bidi.send('nothing.here')).rejects.toThrow('nothing.here: unknown command (no such thing)');
    bidi.close();
  });

  it('fails the commands still waiting when the browser goes, and refuses new ones', async () => {
    const url = await agent((_message, socket) => socket.terminate());
    const bidi = await BidiSocket.connect(url);
    await expect(bidi.send('session.new')).rejects.toThrow("session.new: the browser's remote agent closed");
    expect(bidi.closed).toBe(true);
    await expect(bidi.send('session.status')).rejects.toThrow('is gone');
  });

  it('connects to loopback only', async () => {
    await expect(BidiSocket.connect('ws://192.0.2.1:9222/session')).rejects.toThrow('must listen on loopback');
  });
});
