// A real Engine (no proxy) whose requests run through its own lifecycle against a scripted
// origin: the journal entries the UI folds are exactly those a live session journals.
import type { ResourceType } from '../../src/engine/types.js';
import { Engine } from '../../src/engine/engine.js';
import { createTrustedOwner } from '../../src/engine/owner.js';
import type { HttpHeaders } from '../../src/engine/types.js';
import { parseRequestBody } from '../../src/engine/web-request/request-body.js';
import { runRequest, type RequestResult } from '../../src/engine/web-request/run-request.js';
import { TransportError, type OutgoingRequest, type TransportResponse } from '../../src/engine/web-request/transport.js';

export type Route = (request: OutgoingRequest) => TransportResponse | Promise<TransportResponse>;

export function respond(statusCode = 200, body = 'ok', headers: { name: string; value: string }[] = []): TransportResponse {
  return {
    statusCode,
    statusMessage: statusCode === 200 ? 'OK' : 'Status',
    headers: [{ name: 'Content-Type', value: 'text/plain' }, { name: 'Content-Length', value: String(Buffer.byteLength(body)) }, ...headers],
    body: Buffer.from(body),
    ip: '127.0.0.1',
  };
}

export interface RequestOptions {
  method?: string;
  headers?: HttpHeaders;
  body?: string;
  route?: Route;
  /** The origin refuses the connection. */
  refuse?: boolean;
  /** The resource type (as the capture proxy infers it); `other` when not given. */
  type?: ResourceType;
}

export interface EngineDriver {
  engine: Engine;
  request(url: string, options?: RequestOptions): Promise<RequestResult>;
  /** The webRequest namespace of a trusted owner (a rule with every permission). */
  rule(name: string, options?: { dryRun?: boolean }): NonNullable<ReturnType<Engine['extensionApi']>['chrome']['webRequest']>;
  close(): Promise<void>;
}

export async function createEngineDriver(route: Route = () => respond()): Promise<EngineDriver> {
  const engine = await Engine.open({ listenerTimeoutMs: 500 });
  return {
    engine,
    request(url, options = {}) {
      const method = options.method ?? 'GET';
      const requestHeaders = options.headers ?? [{ name: 'Accept', value: '*/*' }];
      const body = options.body === undefined ? undefined : new Uint8Array(Buffer.from(options.body));
      // As the capture proxy does: onBeforeRequest gets the parsed requestBody.
      const contentType = requestHeaders.find((header) => header.name.toLowerCase() === 'content-type')?.value;
      const requestBody = parseRequestBody({ method, contentType, bytes: body });
      return runRequest(
        engine.lifecycle,
        { url, method, requestHeaders, ...(body && { body }), ...(requestBody && { requestBody }), ...(options.type && { type: options.type }) },
        {
          send: async (request) => {
            if (options.refuse) throw new TransportError('net::ERR_CONNECTION_REFUSED');
            return (options.route ?? route)(request);
          },
        },
      );
    },
    rule(name, options = {}) {
      return engine.extensionApi(createTrustedOwner(name, { dryRun: options.dryRun ?? false })).chrome.webRequest!;
    },
    close: () => engine.close(),
  };
}
