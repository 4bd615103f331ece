// The last line between what a client sends and the process. mockttp and the libraries under it
// (connect's parseurl, Node's legacy url.parse) parse a client's request before any of wrtui's
// code runs, and some of what they parse throws: `GET http://[zz/ HTTP/1.1` made url.parse throw
// ERR_INVALID_URL inside a 'request' event, which ended the process. Every listener that receives
// a client's request from Node goes through `guarded`: a throw (or a rejected promise) becomes a
// 400 to that client and a journal entry, and the proxy goes on serving everyone else.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import type { Socket } from 'node:net';

/** Where a faulty request can still be answered: its response, or the socket of an upgrade or CONNECT. */
export type ClientAnswer = ServerResponse | Http2ServerResponse | Socket;

/** What the journal is told: the request line as the client sent it (never its headers) and why. */
export interface ClientFault {
  method: string;
  target: string;
  reason: string;
}

export type ClientFaultListener = (fault: ClientFault) => void;

/** At most this much of a client's request target goes into the journal. */
const SHOWN_TARGET = 200;

/** The request line's method and target, quoted as sent (cut at SHOWN_TARGET), for the journal. */
export function describeFault(request: Pick<IncomingMessage, 'method' | 'url'> | undefined, error: unknown): ClientFault {
  const target = String(request?.url ?? '');
  const reason = error instanceof Error ? `${(error as NodeJS.ErrnoException).code ? `${(error as NodeJS.ErrnoException).code}: ` : ''}${error.message}` : String(error);
  return { method: String(request?.method ?? ''), target: target.length > SHOWN_TARGET ? `${target.slice(0, SHOWN_TARGET)}…` : target, reason };
}

function isSocket(answer: ClientAnswer): answer is Socket {
  return typeof (answer as Socket).write === 'function' && typeof (answer as ServerResponse).writeHead !== 'function';
}

/** Answers 400 where nothing was answered yet; otherwise ends the exchange. Never throws. */
export function answerBadRequest(answer: ClientAnswer | undefined, text: string): void {
  if (!answer) return;
  const body = `wrtui: ${text}\n`;
  try {
    if (isSocket(answer)) {
      if (answer.destroyed) return;
      answer.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      return;
    }
    if (answer.headersSent) {
      answer.destroy();
      return;
    }
    const response = answer as ServerResponse;
    response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(Buffer.byteLength(body)), ...(response.req?.httpVersionMajor === 1 && { connection: 'close' }) });
    response.end(body);
  } catch {
    try {
      answer.destroy();
    } catch {
      // Already gone.
    }
  }
}

/** The absolute-form targets mockttp reads as such (its isAbsoluteUrl); a WebSocket's too (`GET http://…` with Upgrade). */
const ABSOLUTE_TARGET = /^https?:\/\//i;

/**
 * Why an HTTP/1 request target is none of RFC 9112 §3.2's forms a proxy serves, or undefined when
 * it is one: origin-form (`/path`), absolute-form (`http://host/path`, `https://…`), asterisk-form
 * (`*`, OPTIONS only). CONNECT's authority-form is checked where CONNECT is handled. mockttp took
 * any other target for a path on the Host header's host: `GET ws://[zz/` with `Host: x` went to
 * `http://xws//[zz/`, a host the client never named.
 */
export function targetProblem(method: string | undefined, target: string | undefined): string | undefined {
  if (method === 'CONNECT') return undefined;
  const url = target ?? '';
  if (url.startsWith('/') || ABSOLUTE_TARGET.test(url)) return undefined;
  if (url === '*') return method === 'OPTIONS' ? undefined : 'the asterisk-form target (*) is for OPTIONS only';
  return `${JSON.stringify(url.slice(0, 40))} is not a request target a proxy serves (a path, or an absolute http or https URL)`;
}

export type NodeListener = (this: unknown, request: IncomingMessage, answer: ClientAnswer, ...rest: unknown[]) => unknown;

/**
 * `listener` (a 'request', 'upgrade' or 'connect' listener of Node's servers) with its faults
 * contained: a request `check` refuses, a synchronous throw or a rejected promise answers the
 * client 400 and is told to `onFault` once. `this` is passed through (httpolyglot binds its own).
 */
export function guarded<L extends NodeListener>(listener: L, onFault: ClientFaultListener, check?: (request: IncomingMessage) => string | undefined): L {
  const contain = (request: IncomingMessage, answer: ClientAnswer, error: unknown) => {
    const fault = describeFault(request, error);
    answerBadRequest(answer, `wrtui could not read this request: ${fault.reason}`);
    try {
      onFault(fault);
    } catch {
      // Telling the journal must not become the fault that ends the process.
    }
  };
  return function guardedListener(this: unknown, request: IncomingMessage, answer: ClientAnswer, ...rest: unknown[]) {
    try {
      const problem = check?.(request);
      if (problem !== undefined) return contain(request, answer, new Error(problem));
      const result = listener.call(this, request, answer, ...rest);
      if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(undefined, (error: unknown) => contain(request, answer, error));
      return result;
    } catch (error) {
      contain(request, answer, error);
      return undefined;
    }
  } as L;
}
