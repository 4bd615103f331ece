// The DevTools protocol over a pipe (cdp-pipe.ts): NUL-delimited JSON both ways, answers matched to
// commands by id, events to listeners, only the events asked for parsed. Real streams (a PassThrough
// pair stands for the browser's fds 3 and 4; the browser itself is in browser-attach.test.ts).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CdpPipe, type CdpEvent } from '../../src/app/cdp-pipe.js';

function pair(wanted?: string[]) {
  const toBrowser = new PassThrough();
  const fromBrowser = new PassThrough();
  const sent: string[] = [];
  toBrowser.on('data', (chunk: Buffer) => sent.push(...chunk.toString('utf8').split('\0').filter(Boolean)));
  return { cdp: new CdpPipe(toBrowser, fromBrowser, wanted), fromBrowser, sent };
}

describe('CdpPipe', () => {
  it('sends each command as one NUL-ended JSON text and resolves it with the answer of its id, in any order', async () => {
    const { cdp, fromBrowser, sent } = pair();
    const first = cdp.send('Target.setDiscoverTargets', { discover: true });
    const second = cdp.send('Page.navigate', { url: 'http://a.test/' }, 'SESSION');
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.map((text) => JSON.parse(text))).toEqual([
      { id: 1, method: 'Target.setDiscoverTargets', params: { discover: true } },
      { id: 2, method: 'Page.navigate', params: { url: 'http://a.test/' }, sessionId: 'SESSION' },
    ]);
    fromBrowser.write('{"id":2,"result":{"frameId":"F"}}\0{"id":1,"result":{}}\0');
    await expect(second).resolves.toEqual({ frameId: 'F' });
    await expect(first).resolves.toEqual({});
  });

  it('a message split across chunks is read whole; an error answer rejects with the method named', async () => {
    const { cdp, fromBrowser } = pair();
    const events: CdpEvent[] = [];
    cdp.on('event', (event) => events.push(event));
    const failing = cdp.send('Page.reload', {}, 'GONE');
    const text = Buffer.from('{"method":"Network.requestWillBeSent","params":{"request":{"url":"http://a.test/é"}},"sessionId":"S"}\0{"id":1,"error":{"message":"No session with given id"}}\0');
    // Cut inside a multi-byte character too.
    const cut = text.indexOf(Buffer.from('é')) + 1;
    fromBrowser.write(text.subarray(0, cut));
    fromBrowser.write(text.subarray(cut));
    await expect(failing).rejects.toThrow('Page.reload: No session with given id');
    expect(events).toEqual([{ method: 'Network.requestWillBeSent', params: { request: { url: 'http://a.test/é' } }, sessionId: 'S' }]);
  });

  it('events nobody asked for are dropped unparsed; answers always get through', async () => {
    const { cdp, fromBrowser } = pair(['Network.requestWillBeSent']);
    const events: string[] = [];
    cdp.on('event', (event) => events.push(event.method));
    const answered = cdp.send('Network.enable');
    fromBrowser.write('{"method":"Network.dataReceived","params":{not json at all}}\0{"method":"Network.requestWillBeSent","params":{}}\0{"id":1,"result":{}}\0');
    await expect(answered).resolves.toEqual({});
    expect(events).toEqual(['Network.requestWillBeSent']);
  });

  it('the browser closing its end rejects what is waiting, and later commands at once', async () => {
    const { cdp, fromBrowser } = pair();
    const waiting = cdp.send('Target.setAutoAttach', {});
    fromBrowser.destroy();
    await expect(waiting).rejects.toThrow("Target.setAutoAttach: the browser's pipe closed");
    expect(cdp.closed).toBe(true);
    await expect(cdp.send('Page.navigate', {})).rejects.toThrow('closed');
  });
});
