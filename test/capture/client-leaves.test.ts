// A client that leaves while a listener thinks: its request ends there, once (onErrorOccurred
// net::ERR_ABORTED, the event that was being waited for journaled just before it), and a redirect
// the listener answers afterwards is not followed by anyone: wrtui makes no request of its own.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Breakpoints } from '../../src/engine/breakpoints.js';
import type { JournalEntry, WebRequestEntry } from '../../src/engine/journal.js';
import type { BlockingResponse } from '../../src/engine/types.js';
import { journalViolations } from '../helpers/journal-invariants.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

let harness: ProxyHarness | undefined;
let origin: Origin | undefined;

afterEach(async () => {
  await harness?.close();
  await origin?.close();
  harness = origin = undefined;
});

/** Sends one request over a raw connection to the proxy and returns the socket (to be dropped). */
function rawRequest(proxyPort: number, url: string): net.Socket {
  const socket = net.connect(proxyPort, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(`GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n\r\n`);
  return socket;
}

const STAGES = ['onBeforeRequest', 'onHeadersReceived'] as const;

describe('a client that left ends its request once, and a redirect answered after that goes nowhere', () => {
  for (const stage of STAGES) {
    it(`${stage}: a listener's delayed redirect, the client gone meanwhile: the origin never gets the target, the journal ends the request once`, async () => {
      origin = await startOrigin((_req, res) => res.end('origin'));
      harness = await startProxyHarness();
      let answer!: (response: BlockingResponse) => void;
      const asked = new Promise<void>((resolveAsked) => {
        const webRequest = harness!.api().chrome.webRequest!;
        const event = webRequest[stage] as unknown as { addListener: (...args: unknown[]) => void };
        event.addListener(
          (details: { url: string }) => {
            if (!details.url.endsWith('/start')) return undefined;
            resolveAsked();
            return new Promise<BlockingResponse>((resolve) => (answer = resolve));
          },
          { urls: ['<all_urls>'] },
          ['blocking'],
        );
      });
      // A listener that answered at once is no part of what the request ended without.
      (harness.api('quick').chrome.webRequest![stage] as unknown as { addListener: (...args: unknown[]) => void }).addListener(() => undefined, { urls: ['<all_urls>'] }, ['blocking']);
      const h = harness;
      const socket = rawRequest(h.proxy.port, `${origin.url}/start`);
      await asked;
      socket.destroy();
      const requestId = ((await h.waitFor((entry) => entry.kind === 'webRequest' && entry.event === 'onErrorOccurred')) as WebRequestEntry).details.requestId;
      answer({ redirectUrl: `${origin.url}/target` });

      // A later request through the proxy has been served: the late answer was long dealt with.
      const sentinel = await h.fetch(`${origin.url}/sentinel`);
      await sentinel.body.text();
      await expect.poll(() => origin!.received.map((r) => r.url)).toContain('/sentinel');
      expect(origin.received.map((r) => r.url)).not.toContain('/target');
      expect(origin.received.filter((r) => r.headers['user-agent'] === 'node')).toEqual([]);

      const events = h.webRequestEntries((entry) => entry.details.requestId === requestId);
      const last = events.at(-1)!;
      expect(last.event).toBe('onErrorOccurred');
      expect((last.details as { error: string }).error).toBe('net::ERR_ABORTED');
      expect(events.filter((entry) => entry.event === 'onErrorOccurred' || entry.event === 'onCompleted')).toHaveLength(1);
      expect(events.map((entry) => entry.event)).not.toContain('onBeforeRedirect');
      // The event being waited for is journaled before the end, the answer it was waiting for ignored.
      const waited = events.find((entry) => entry.event === stage)!;
      expect(waited.outcomes).toMatchObject([{ owner: 'test-rule', event: stage, status: 'ignored' }]);
      expect(journalViolations(h.entries as JournalEntry[])).toEqual([]);
    });
  }

  it('a request paused at a breakpoint whose client leaves is paused no more; answering it then changes nothing', async () => {
    origin = await startOrigin((_req, res) => res.end('origin'));
    harness = await startProxyHarness();
    const h = harness;
    const breakpoints = new Breakpoints(h.engine);
    breakpoints.set({ stage: 'onBeforeRequest', description: 'every request', matches: () => true });
    const socket = rawRequest(h.proxy.port, `${origin.url}/start`);
    await expect.poll(() => breakpoints.paused().length).toBe(1);
    const { requestId } = breakpoints.paused()[0]!;
    socket.destroy();
    await expect.poll(() => breakpoints.paused()).toEqual([]);
    expect(breakpoints.answer(requestId, { redirectUrl: `${origin.url}/target` })).toBe(false);
    const events = h.webRequestEntries((entry) => entry.details.requestId === requestId);
    expect(events.map((entry) => entry.event)).toEqual(['onBeforeRequest', 'onErrorOccurred']);
    expect(events[0]!.outcomes).toMatchObject([{ owner: 'breakpoint', status: 'ignored' }]);
    breakpoints.close();
    expect(origin.received).toEqual([]);
  });
});
