import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { getLocal, generateCACertificate, type Mockttp } from 'mockttp';
import { getCA } from 'mockttp/dist/util/certificates';
import { ProxyAgent, fetch as undiciFetch, request as undiciRequest } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { netErrorOf } from '../../src/engine/capture/net-error.js';

// ── Real failures ─────────────────────────────────────────────────────────────────────────────

const openServers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(openServers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

async function listen<T extends net.Server>(server: T): Promise<number> {
  openServers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as AddressInfo).port;
}

/** A TCP server that answers every request with `respond`, byte for byte. */
function rawServer(respond: (socket: net.Socket) => void): net.Server {
  return net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => respond(socket));
  });
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/** The error Node's http client reports for `url`, body included. */
function nodeFailure(url: string, options: https.RequestOptions = {}): Promise<unknown> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(url, { ...options, agent: false }, (res) => {
      res.on('error', resolve);
      res.on('data', () => {});
      res.on('end', () => reject(new Error(`expected a failure, got ${res.statusCode}`)));
    });
    req.on('error', resolve);
    req.setTimeout(5_000, () => req.destroy(new Error('test timed out')));
  });
}

/** The error undici's fetch reports for `url` (a TypeError with the real failure as its cause). */
async function fetchFailure(url: string, init: Parameters<typeof undiciFetch>[1] = {}): Promise<unknown> {
  try {
    const response = await undiciFetch(url, { signal: AbortSignal.timeout(5_000), ...init });
    await response.arrayBuffer();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

async function undiciFailure(url: string): Promise<unknown> {
  try {
    const response = await undiciRequest(url, { headersTimeout: 5_000, bodyTimeout: 5_000 });
    await response.body.arrayBuffer();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('netErrorOf: real connection failures', () => {
  it('a connect to a closed port is net::ERR_CONNECTION_REFUSED (Node, undici, fetch’s cause)', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/`;
    expect(netErrorOf(await nodeFailure(url))).toBe('net::ERR_CONNECTION_REFUSED');
    expect(netErrorOf(await undiciFailure(url))).toBe('net::ERR_CONNECTION_REFUSED');
    expect(netErrorOf(await fetchFailure(url))).toBe('net::ERR_CONNECTION_REFUSED');
  });

  it('a reset in the middle of the response is net::ERR_CONNECTION_RESET', async () => {
    const port = await listen(rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc');
      setTimeout(() => socket.resetAndDestroy(), 20);
    }));
    expect(netErrorOf(await nodeFailure(`http://127.0.0.1:${port}/`))).toBe('net::ERR_CONNECTION_RESET');
    expect(netErrorOf(await undiciFailure(`http://127.0.0.1:${port}/`))).toBe('net::ERR_CONNECTION_RESET');
  });

  it('a socket destroyed mid-body is net::ERR_CONNECTION_RESET from Node, net::ERR_CONNECTION_CLOSED from undici', async () => {
    const port = await listen(rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc');
      setTimeout(() => socket.destroy(), 20);
    }));
    // Node: ECONNRESET "aborted", however the socket closed. undici: "other side closed" after bytes.
    expect(netErrorOf(await nodeFailure(`http://127.0.0.1:${port}/`))).toBe('net::ERR_CONNECTION_RESET');
    expect(netErrorOf(await undiciFailure(`http://127.0.0.1:${port}/`))).toBe('net::ERR_CONNECTION_CLOSED');
  });

  it('a server that closes without a byte of response is net::ERR_EMPTY_RESPONSE', async () => {
    const port = await listen(rawServer((socket) => socket.end()));
    expect(netErrorOf(await nodeFailure(`http://127.0.0.1:${port}/`))).toBe('net::ERR_EMPTY_RESPONSE');
    expect(netErrorOf(await undiciFailure(`http://127.0.0.1:${port}/`))).toBe('net::ERR_EMPTY_RESPONSE');
    expect(netErrorOf(await fetchFailure(`http://127.0.0.1:${port}/`))).toBe('net::ERR_EMPTY_RESPONSE');
  });

  it('a reset before any response is net::ERR_CONNECTION_RESET', async () => {
    const port = await listen(rawServer((socket) => socket.resetAndDestroy()));
    expect(netErrorOf(await nodeFailure(`http://127.0.0.1:${port}/`))).toBe('net::ERR_CONNECTION_RESET');
  });

  it('a response that is not HTTP is net::ERR_INVALID_HTTP_RESPONSE', async () => {
    const port = await listen(rawServer((socket) => socket.end('SSH-2.0-OpenSSH_9.2\r\n\r\n')));
    expect(netErrorOf(await nodeFailure(`http://127.0.0.1:${port}/`))).toBe('net::ERR_INVALID_HTTP_RESPONSE');
    expect(netErrorOf(await undiciFailure(`http://127.0.0.1:${port}/`))).toBe('net::ERR_INVALID_HTTP_RESPONSE');
  });

  it('response headers over the parser’s limit are net::ERR_RESPONSE_HEADERS_TOO_BIG', async () => {
    const port = await listen(rawServer((socket) => socket.end(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`)));
    expect(netErrorOf(await nodeFailure(`http://127.0.0.1:${port}/`))).toBe('net::ERR_RESPONSE_HEADERS_TOO_BIG');
    expect(netErrorOf(await undiciFailure(`http://127.0.0.1:${port}/`))).toBe('net::ERR_RESPONSE_HEADERS_TOO_BIG');
  });

  it('a malformed chunk size is net::ERR_INVALID_CHUNKED_ENCODING', async () => {
    const port = await listen(rawServer((socket) => socket.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n')));
    expect(netErrorOf(await nodeFailure(`http://127.0.0.1:${port}/`))).toBe('net::ERR_INVALID_CHUNKED_ENCODING');
    expect(netErrorOf(await undiciFailure(`http://127.0.0.1:${port}/`))).toBe('net::ERR_INVALID_CHUNKED_ENCODING');
  });

  it('a host under .invalid (never resolves, RFC 6761) is net::ERR_NAME_NOT_RESOLVED', async () => {
    expect(netErrorOf(await nodeFailure('http://nonexistent.invalid/'))).toBe('net::ERR_NAME_NOT_RESOLVED');
    expect(netErrorOf(await fetchFailure('http://nonexistent.invalid/'))).toBe('net::ERR_NAME_NOT_RESOLVED');
  }, 15_000);

  it('a request the caller aborts is net::ERR_ABORTED', async () => {
    const port = await listen(rawServer(() => {})); // never answers
    const controller = new AbortController();
    const failure = fetchFailure(`http://127.0.0.1:${port}/`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect(netErrorOf(await failure)).toBe('net::ERR_ABORTED');
  });

  it('AbortSignal.timeout() firing is net::ERR_TIMED_OUT', async () => {
    const port = await listen(rawServer(() => {}));
    expect(netErrorOf(await fetchFailure(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(50) }))).toBe('net::ERR_TIMED_OUT');
  });
});

// ── Real TLS failures, with certificates from mockttp's CA ────────────────────────────────────

interface Pem {
  cert: string;
  key: string;
}
let root: Pem;
let localhostLeaf: Pem;
let expiredLeaf: Pem;

beforeAll(async () => {
  root = await generateCACertificate({ subject: { commonName: 'wrtui test root' } });
  const ca = await getCA({ cert: root.cert, key: root.key });
  localhostLeaf = await ca.generateCertificate('localhost');
  // mockttp dates certificates from `new Date()`: a clock 100 days back makes one that expired
  // 55 days ago (mockttp's leaves live 45 days).
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 100 * 86_400_000 });
  try {
    expiredLeaf = await ca.generateCertificate('localhost');
  } finally {
    vi.useRealTimers();
  }
}, 30_000);

async function httpsServer(options: https.ServerOptions): Promise<number> {
  const server = https.createServer(options, (_req, res) => res.end('ok'));
  server.on('tlsClientError', () => {});
  return listen(server);
}

describe('netErrorOf: real TLS failures', () => {
  it('a self-signed server certificate is net::ERR_CERT_AUTHORITY_INVALID', async () => {
    const port = await httpsServer({ cert: root.cert, key: root.key });
    const error = await nodeFailure(`https://127.0.0.1:${port}/`, { servername: 'localhost' });
    expect(error).toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(netErrorOf(error)).toBe('net::ERR_CERT_AUTHORITY_INVALID');
  });

  it('a certificate from an unknown CA is net::ERR_CERT_AUTHORITY_INVALID, with or without the chain', async () => {
    const leafOnly = await httpsServer({ cert: localhostLeaf.cert, key: localhostLeaf.key });
    const error = await nodeFailure(`https://127.0.0.1:${leafOnly}/`, { servername: 'localhost' });
    expect(error).toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(netErrorOf(error)).toBe('net::ERR_CERT_AUTHORITY_INVALID');

    const withChain = await httpsServer({ cert: `${localhostLeaf.cert}\n${root.cert}`, key: localhostLeaf.key });
    const chainError = await nodeFailure(`https://127.0.0.1:${withChain}/`, { servername: 'localhost' });
    expect(chainError).toMatchObject({ code: 'SELF_SIGNED_CERT_IN_CHAIN' });
    expect(netErrorOf(chainError)).toBe('net::ERR_CERT_AUTHORITY_INVALID');
  });

  it('an expired certificate is net::ERR_CERT_DATE_INVALID', async () => {
    const port = await httpsServer({ cert: expiredLeaf.cert, key: expiredLeaf.key });
    const error = await nodeFailure(`https://127.0.0.1:${port}/`, { servername: 'localhost', ca: root.cert });
    expect(error).toMatchObject({ code: 'CERT_HAS_EXPIRED' });
    expect(netErrorOf(error)).toBe('net::ERR_CERT_DATE_INVALID');
  });

  it('a certificate for another host name is net::ERR_CERT_COMMON_NAME_INVALID', async () => {
    const port = await httpsServer({ cert: localhostLeaf.cert, key: localhostLeaf.key });
    const error = await nodeFailure(`https://127.0.0.1:${port}/`, { servername: 'wrong.test', ca: root.cert });
    expect(error).toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(netErrorOf(error)).toBe('net::ERR_CERT_COMMON_NAME_INVALID');
  });

  it('no TLS version in common is net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH (EPROTO, reason in the message)', async () => {
    const port = await httpsServer({ cert: localhostLeaf.cert, key: localhostLeaf.key, maxVersion: 'TLSv1.2' });
    const error = await nodeFailure(`https://127.0.0.1:${port}/`, { servername: 'localhost', ca: root.cert, minVersion: 'TLSv1.3' });
    expect(error).toMatchObject({ code: 'EPROTO' });
    expect(netErrorOf(error)).toBe('net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH');
  });

  it('HTTPS to a plain HTTP port is net::ERR_SSL_PROTOCOL_ERROR', async () => {
    const port = await listen(http.createServer((_req, res) => res.end('plain')));
    expect(netErrorOf(await nodeFailure(`https://127.0.0.1:${port}/`))).toBe('net::ERR_SSL_PROTOCOL_ERROR');
  });
});

// ── What cannot be provoked on loopback: tables ───────────────────────────────────────────────

function systemError(code: string, syscall?: string, message = `${syscall ?? 'read'} ${code}`): Error {
  return Object.assign(new Error(message), { code, ...(syscall ? { syscall } : {}) });
}

describe('netErrorOf: codes mapped as Chrome maps the system error', () => {
  it.each([
    ['ECONNREFUSED', 'connect', 'net::ERR_CONNECTION_REFUSED'],
    ['ECONNRESET', 'read', 'net::ERR_CONNECTION_RESET'],
    ['EPIPE', 'write', 'net::ERR_CONNECTION_RESET'],
    ['ENETRESET', 'read', 'net::ERR_CONNECTION_RESET'],
    ['ECONNABORTED', 'read', 'net::ERR_CONNECTION_ABORTED'],
    ['ETIMEDOUT', 'connect', 'net::ERR_CONNECTION_TIMED_OUT'],
    ['ETIMEDOUT', 'read', 'net::ERR_TIMED_OUT'],
    ['ESOCKETTIMEDOUT', undefined, 'net::ERR_TIMED_OUT'],
    ['EHOSTUNREACH', 'connect', 'net::ERR_ADDRESS_UNREACHABLE'],
    ['EHOSTDOWN', 'connect', 'net::ERR_ADDRESS_UNREACHABLE'],
    ['ENETUNREACH', 'connect', 'net::ERR_ADDRESS_UNREACHABLE'],
    ['ENETDOWN', 'connect', 'net::ERR_INTERNET_DISCONNECTED'],
    ['EADDRNOTAVAIL', 'connect', 'net::ERR_ADDRESS_INVALID'],
    ['EACCES', 'connect', 'net::ERR_NETWORK_ACCESS_DENIED'],
    ['EACCES', 'open', 'net::ERR_ACCESS_DENIED'],
    ['EMFILE', 'socket', 'net::ERR_INSUFFICIENT_RESOURCES'],
    ['ENOTFOUND', 'getaddrinfo', 'net::ERR_NAME_NOT_RESOLVED'],
    ['EAI_AGAIN', 'getaddrinfo', 'net::ERR_NAME_NOT_RESOLVED'],
    ['ESERVFAIL', 'queryA', 'net::ERR_NAME_NOT_RESOLVED'],
    ['ECONNREFUSED', 'queryAaaa', 'net::ERR_NAME_NOT_RESOLVED'],
    ['ECANCELED', undefined, 'net::ERR_ABORTED'],
  ] as const)('%s (%s) → %s', (code, syscall, expected) => {
    expect(netErrorOf(systemError(code, syscall))).toBe(expected);
  });
});

describe('netErrorOf: library codes', () => {
  it.each([
    ['UND_ERR_CONNECT_TIMEOUT', 'net::ERR_CONNECTION_TIMED_OUT'],
    ['UND_ERR_HEADERS_TIMEOUT', 'net::ERR_TIMED_OUT'],
    ['UND_ERR_BODY_TIMEOUT', 'net::ERR_TIMED_OUT'],
    ['ERR_TLS_HANDSHAKE_TIMEOUT', 'net::ERR_TIMED_OUT'],
    ['UND_ERR_ABORTED', 'net::ERR_ABORTED'],
    ['ABORT_ERR', 'net::ERR_ABORTED'],
    ['UND_ERR_HEADERS_OVERFLOW', 'net::ERR_RESPONSE_HEADERS_TOO_BIG'],
    ['HPE_HEADER_OVERFLOW', 'net::ERR_RESPONSE_HEADERS_TOO_BIG'],
    ['HPE_INVALID_CONSTANT', 'net::ERR_INVALID_HTTP_RESPONSE'],
    ['HPE_INVALID_STATUS', 'net::ERR_INVALID_HTTP_RESPONSE'],
    ['HPE_INVALID_CHUNK_SIZE', 'net::ERR_INVALID_CHUNKED_ENCODING'],
    ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'net::ERR_CONTENT_LENGTH_MISMATCH'],
  ] as const)('%s → %s', (code, expected) => {
    expect(netErrorOf(systemError(code))).toBe(expected);
  });
});

describe('netErrorOf: certificate verification results', () => {
  it.each([
    ['CERT_HAS_EXPIRED', 'net::ERR_CERT_DATE_INVALID'],
    ['CERT_NOT_YET_VALID', 'net::ERR_CERT_DATE_INVALID'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'net::ERR_CERT_AUTHORITY_INVALID'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'net::ERR_CERT_AUTHORITY_INVALID'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'net::ERR_CERT_AUTHORITY_INVALID'],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'net::ERR_CERT_AUTHORITY_INVALID'],
    ['CERT_UNTRUSTED', 'net::ERR_CERT_AUTHORITY_INVALID'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'net::ERR_CERT_COMMON_NAME_INVALID'],
    ['HOSTNAME_MISMATCH', 'net::ERR_CERT_COMMON_NAME_INVALID'],
    ['CERT_REVOKED', 'net::ERR_CERT_REVOKED'],
    ['UNABLE_TO_GET_CRL', 'net::ERR_CERT_UNABLE_TO_CHECK_REVOCATION'],
    ['CA_MD_TOO_WEAK', 'net::ERR_CERT_WEAK_SIGNATURE_ALGORITHM'],
    ['EE_KEY_TOO_SMALL', 'net::ERR_CERT_WEAK_KEY'],
    ['CERT_SIGNATURE_FAILURE', 'net::ERR_CERT_INVALID'],
    ['INVALID_CA', 'net::ERR_CERT_INVALID'],
  ] as const)('%s → %s', (code, expected) => {
    expect(netErrorOf(systemError(code, undefined, 'certificate problem'))).toBe(expected);
  });
});

describe('netErrorOf: TLS handshake failures as Chrome’s MapOpenSSLErrorSSL names them', () => {
  it.each([
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'net::ERR_SSL_PROTOCOL_ERROR'],
    ['ERR_SSL_NO_SHARED_CIPHER', 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH'],
    ['ERR_SSL_UNSUPPORTED_PROTOCOL', 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH'],
    ['ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH'],
    ['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH'],
    ['ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT'],
    ['ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT'],
    ['ERR_SSL_SSLV3_ALERT_BAD_RECORD_MAC', 'net::ERR_SSL_BAD_RECORD_MAC_ALERT'],
    ['ERR_SSL_TLSV1_ALERT_DECRYPT_ERROR', 'net::ERR_SSL_DECRYPT_ERROR_ALERT'],
    ['ERR_SSL_TLSV1_UNRECOGNIZED_NAME', 'net::ERR_SSL_UNRECOGNIZED_NAME_ALERT'],
    ['ERR_TLS_CONTEXT_UNSUPPORTED', 'net::ERR_SSL_PROTOCOL_ERROR'],
    ['EPROTO', 'net::ERR_SSL_PROTOCOL_ERROR'],
  ] as const)('%s → %s', (code, expected) => {
    expect(netErrorOf(systemError(code, undefined, 'handshake failed'))).toBe(expected);
  });

  it('reads the OpenSSL reason and the alert number out of an EPROTO message', () => {
    const unrecognizedName = systemError('EPROTO', 'write', 'write EPROTO 80:error:0A000458:SSL routines::tlsv1 unrecognized name:../deps/openssl/ssl/record/rec_layer_s3.c:1605:SSL alert number 112');
    expect(netErrorOf(unrecognizedName)).toBe('net::ERR_SSL_UNRECOGNIZED_NAME_ALERT');
    const alertOnly = systemError('EPROTO', 'write', 'write EPROTO 80:error:0A000000:SSL routines::unknown:SSL alert number 48');
    expect(netErrorOf(alertOnly)).toBe('net::ERR_BAD_SSL_CLIENT_AUTH_CERT');
  });

  it('a TLS connection closed by the peer during the handshake is net::ERR_CONNECTION_CLOSED', () => {
    const eof = systemError('ECONNRESET', undefined, 'Client network socket disconnected before secure TLS connection was established');
    expect(netErrorOf(eof)).toBe('net::ERR_CONNECTION_CLOSED');
  });
});

describe('netErrorOf: where it looks', () => {
  it('follows the cause chain, outermost name first', () => {
    const inner = systemError('ECONNREFUSED', 'connect');
    expect(netErrorOf(new TypeError('fetch failed', { cause: new Error('wrapped', { cause: inner }) }))).toBe('net::ERR_CONNECTION_REFUSED');
    expect(netErrorOf(Object.assign(new Error('outer'), { code: 'ECONNRESET', cause: inner }))).toBe('net::ERR_CONNECTION_RESET');
  });

  it('looks into an AggregateError’s errors (Node’s happy-eyeballs connect)', () => {
    const aggregate = new AggregateError([new Error('no code'), systemError('ECONNREFUSED', 'connect')], 'all failed');
    expect(netErrorOf(aggregate)).toBe('net::ERR_CONNECTION_REFUSED');
  });

  it('reads plain { name, code, message } error objects', () => {
    expect(netErrorOf({ name: 'Error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:1' })).toBe('net::ERR_CONNECTION_REFUSED');
  });

  it('reads a bare code, and passes a net:: name through', () => {
    expect(netErrorOf('EHOSTUNREACH')).toBe('net::ERR_ADDRESS_UNREACHABLE');
    expect(netErrorOf('net::ERR_BLOCKED_BY_CLIENT')).toBe('net::ERR_BLOCKED_BY_CLIENT');
  });

  it('is net::ERR_FAILED for anything it cannot name, and survives cycles', () => {
    const cyclic: { cause?: unknown } = {};
    cyclic.cause = cyclic;
    const prototypeNames = ['constructor', 'toString', '__proto__', 'hasOwnProperty'].map((code) => ({ code }));
    for (const unknown of [undefined, null, 42, 'nonsense', new Error('boom'), { code: 'EWHATEVER' }, cyclic, ...prototypeNames]) {
      expect(netErrorOf(unknown)).toBe('net::ERR_FAILED');
    }
  });
});
