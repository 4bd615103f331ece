// The guard between a client's request and the process (client-guard.ts): a request target none of
// RFC 9112's forms is refused, and a listener that throws or rejects answers 400, never the process.
import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { guarded, targetProblem, type ClientAnswer, type ClientFault, type NodeListener } from '../../src/engine/capture/client-guard.js';

describe('targetProblem: only the request-target forms a proxy serves', () => {
  it('takes origin-form, absolute http(s) URLs (any case), OPTIONS *, and leaves CONNECT to its own check', () => {
    for (const [method, target] of [['GET', '/'], ['GET', '/a?b'], ['GET', 'http://example.test/'], ['GET', 'HTTPS://x/'], ['OPTIONS', '*'], ['CONNECT', 'anything']] as const) expect(targetProblem(method, target)).toBeUndefined();
  });

  it('refuses other schemes and bare words, which mockttp would read as a path on the Host header', () => {
    expect(targetProblem('GET', 'ws://[zz/')).toMatch(/"ws:\/\/\[zz\/" is not a request target a proxy serves/);
    expect(targetProblem('GET', 'ftp://x/')).toBeDefined();
    expect(targetProblem('GET', 'example.test')).toBeDefined();
    expect(targetProblem('GET', '')).toBeDefined();
    expect(targetProblem('GET', '*')).toBe('the asterisk-form target (*) is for OPTIONS only');
  });
});

/** A response that records what it was told. */
function fakeResponse(): ClientAnswer & { status?: number; body?: string } {
  const response = {
    headersSent: false,
    writeHead(status: number) {
      response.status = status;
      return response;
    },
    end(body: string) {
      response.body = body;
    },
    destroy() {},
  } as unknown as ClientAnswer & { status?: number; body?: string };
  return response;
}

const request = { method: 'GET', url: 'http://[zz/' } as IncomingMessage;

describe('guarded: a listener fault is the client\'s 400 and one journal line, not the end of the process', () => {
  it('a synchronous throw', () => {
    const faults: ClientFault[] = [];
    const response = fakeResponse();
    guarded<NodeListener>(() => {
      throw Object.assign(new TypeError('Invalid URL'), { code: 'ERR_INVALID_URL' });
    }, (fault) => faults.push(fault))(request, response);
    expect(response.status).toBe(400);
    expect(response.body).toContain('ERR_INVALID_URL: Invalid URL');
    expect(faults).toEqual([{ method: 'GET', target: 'http://[zz/', reason: 'ERR_INVALID_URL: Invalid URL' }]);
  });

  it('a rejected promise (mockttp handles upgrades asynchronously)', async () => {
    const faults: ClientFault[] = [];
    const socket = new Socket();
    const written: string[] = [];
    socket.end = ((data: string) => written.push(data)) as never;
    guarded<NodeListener>(() => Promise.reject(new Error('late')), (fault) => faults.push(fault))(request, socket);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written[0]).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[^]*wrtui could not read this request: late\n$/);
    expect(faults).toHaveLength(1);
  });

  it('a check that refuses: the listener never runs', () => {
    let ran = false;
    const response = fakeResponse();
    guarded<NodeListener>(() => (ran = true), () => {}, () => 'no')(request, response);
    expect(ran).toBe(false);
    expect(response.status).toBe(400);
  });

  it('a target is quoted in the journal at most 200 characters long', () => {
    const faults: ClientFault[] = [];
    guarded<NodeListener>(() => {
      throw new Error('x');
    }, (fault) => faults.push(fault))({ method: 'GET', url: `/${'a'.repeat(500)}` } as IncomingMessage, fakeResponse());
    expect(faults[0]!.target).toHaveLength(201);
  });
});
