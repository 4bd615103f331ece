// wrtui's hold on mockttp (mockttp-hooks.ts): every request goes from mockttp's connection handling
// straight to wrtui's handler (no handleRequest, no response tracking, no announcements), and
// nothing subscribes to the mockttp events that make every request dearer.
import http from 'node:http';
import * as mockttp from 'mockttp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costlySubscriptions } from '../../src/engine/capture/mockttp-hooks.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { finished, requestIdOf, startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

let origin: Origin;
let h: ProxyHarness;
beforeAll(async () => {
  origin = await startOrigin((req, res, body) => res.end(`origin ${req.method} ${req.url} ${body.length}`));
  h = await startProxyHarness();
});
afterAll(async () => {
  await h.close();
  await origin.close();
});

describe("mockttp's costly events: none is subscribed (one listener costs ≈ 240 µs a request)", () => {
  it('a running capture proxy, after serving requests, subscribes to none of them', async () => {
    const response = await h.fetch(`${origin.url}/served`);
    expect(await response.body.text()).toBe('origin GET /served 0');
    expect(h.proxy.costlySubscriptions).toEqual([]);
  });

  it('the check names a subscription when there is one (so the guard can fail)', async () => {
    const server = mockttp.getLocal();
    expect(costlySubscriptions(server)).toEqual([]);
    await server.on('response', () => undefined);
    await server.on('request-initiated', () => undefined);
    expect(costlySubscriptions(server)).toEqual(['request-initiated', 'response']);
  });
});

describe("requests go to wrtui's handler without mockttp's request handling", () => {
  it('mockttp has no request rule to match: a request is served by wrtui, journaled once from start to end', async () => {
    const url = `${origin.url}/no-rule`;
    const response = await h.fetch(url);
    expect(await response.body.text()).toBe('origin GET /no-rule 0');
    await finished(h, requestIdOf(h, url));
    expect(h.events(requestIdOf(h, url))).toEqual(['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onResponseStarted', 'onCompleted']);
  });

  it('Expect: 100-continue: the client is told to go on, sends its body, and the origin gets it', async () => {
    const url = `${origin.url}/continue`;
    const { status, body, continued } = await new Promise<{ status: number; body: string; continued: boolean }>((resolve, reject) => {
      let continued = false;
      const request = http.request({ host: '127.0.0.1', port: h.proxy.port, method: 'POST', path: url, headers: { Expect: '100-continue', 'Content-Length': '5' } }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text, continued }));
      });
      request.on('continue', () => {
        continued = true;
        request.end('hello');
      });
      request.on('error', reject);
      request.flushHeaders();
    });
    expect(continued).toBe(true);
    expect(status).toBe(200);
    expect(body).toBe('origin POST /continue 5');
  });

  it('an origin-form request (sent to the proxy as to a server) goes to its Host, on the port the Host names', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const request = http.request({ host: '127.0.0.1', port: h.proxy.port, path: '/origin-form?q=1', headers: { Host: `127.0.0.1:${origin.port}` } }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve(body));
      });
      request.on('error', reject);
      request.end();
    });
    expect(text).toBe('origin GET /origin-form?q=1 0');
    await finished(h, requestIdOf(h, `${origin.url}/origin-form?q=1`));
  });
});
