// Upstream failures named as Chrome names them in onErrorOccurred (§6.2 `error`): a Node or undici
// failure becomes the `net::ERR_*` string a browser extension would have seen.
//
// Sources of Chrome's mapping: net/base/net_errors_posix.cc (MapSystemError), the connect-time
// refinement in net/socket/socket_posix.cc (MapConnectError), net/ssl/openssl_ssl_util.cc
// (MapOpenSSLErrorSSL) and the certificate status → error table of net/cert.
//
// Where Chrome's answer cannot be copied:
// - Node reports "the server closed before any response" as ECONNRESET "socket hang up"; from the
//   error object wrtui recognises it (Chrome: net::ERR_EMPTY_RESPONSE). Node says the same when the
//   request is destroyed locally: callers know their own aborts (ERR_ABORTED).
// - A body cut short by the server is ECONNRESET "aborted" in Node, whether the server closed (FIN)
//   or reset (RST); cutShortError() tells them apart as Chromium 156 does (checked in
//   test/extensions/extension-network.test.ts).
// - A TLS handshake_failure alert is ERR_SSL_VERSION_OR_CIPHER_MISMATCH in Chrome only when it
//   answers the ClientHello, which OpenSSL does not tell; servers almost always send it there (no
//   shared cipher, version or curve), so wrtui reports the mismatch.
import type { IncomingMessage } from 'node:http';
import type { NetError } from '../types.js';

export const ERR_FAILED: NetError = 'net::ERR_FAILED';

// Maps, not object lookups: a code such as "constructor" must not find Object.prototype's.
const table = (entries: Record<string, NetError>): ReadonlyMap<string, NetError> => new Map(Object.entries(entries));

const SYSTEM_ERRORS = table({
  // MapSystemError (POSIX)
  EACCES: 'net::ERR_ACCESS_DENIED',
  EPERM: 'net::ERR_ACCESS_DENIED',
  ENETDOWN: 'net::ERR_INTERNET_DISCONNECTED',
  ETIMEDOUT: 'net::ERR_TIMED_OUT',
  ECONNRESET: 'net::ERR_CONNECTION_RESET',
  ENETRESET: 'net::ERR_CONNECTION_RESET',
  EPIPE: 'net::ERR_CONNECTION_RESET',
  ECONNABORTED: 'net::ERR_CONNECTION_ABORTED',
  ECONNREFUSED: 'net::ERR_CONNECTION_REFUSED',
  EHOSTUNREACH: 'net::ERR_ADDRESS_UNREACHABLE',
  EHOSTDOWN: 'net::ERR_ADDRESS_UNREACHABLE',
  ENETUNREACH: 'net::ERR_ADDRESS_UNREACHABLE',
  EAFNOSUPPORT: 'net::ERR_ADDRESS_UNREACHABLE',
  EADDRNOTAVAIL: 'net::ERR_ADDRESS_INVALID',
  EADDRINUSE: 'net::ERR_ADDRESS_IN_USE',
  EMSGSIZE: 'net::ERR_MSG_TOO_BIG',
  ENOTCONN: 'net::ERR_SOCKET_NOT_CONNECTED',
  EISCONN: 'net::ERR_SOCKET_IS_CONNECTED',
  EINVAL: 'net::ERR_INVALID_ARGUMENT',
  ENOBUFS: 'net::ERR_NO_BUFFER_SPACE',
  EMFILE: 'net::ERR_INSUFFICIENT_RESOURCES',
  ENFILE: 'net::ERR_INSUFFICIENT_RESOURCES',
  ECANCELED: 'net::ERR_ABORTED',
  // Timeouts named by libraries rather than the kernel.
  ESOCKETTIMEDOUT: 'net::ERR_TIMED_OUT',
  ERR_TLS_HANDSHAKE_TIMEOUT: 'net::ERR_TIMED_OUT',
  UND_ERR_HEADERS_TIMEOUT: 'net::ERR_TIMED_OUT',
  UND_ERR_BODY_TIMEOUT: 'net::ERR_TIMED_OUT',
  UND_ERR_CONNECT_TIMEOUT: 'net::ERR_CONNECTION_TIMED_OUT',
  // Aborts asked for by someone (the client, the caller), not caused by the network.
  ABORT_ERR: 'net::ERR_ABORTED',
  UND_ERR_ABORTED: 'net::ERR_ABORTED',
  // HTTP framing
  HPE_HEADER_OVERFLOW: 'net::ERR_RESPONSE_HEADERS_TOO_BIG',
  UND_ERR_HEADERS_OVERFLOW: 'net::ERR_RESPONSE_HEADERS_TOO_BIG',
  HPE_INVALID_CHUNK_SIZE: 'net::ERR_INVALID_CHUNKED_ENCODING',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'net::ERR_CONTENT_LENGTH_MISMATCH',
});

// What a connect() failure becomes (MapConnectError): more specific than the generic mapping.
const CONNECT_ERRORS = table({
  ETIMEDOUT: 'net::ERR_CONNECTION_TIMED_OUT',
  EACCES: 'net::ERR_NETWORK_ACCESS_DENIED',
});

const DNS_ERRORS = new Set([
  'ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA', 'ENODATA', 'ESERVFAIL', 'ENONAME',
  'EREFUSED', 'EBADNAME', 'EBADRESP', 'ETIMEOUT',
]);

// OpenSSL certificate verification results (Node puts them in `code`) → Chrome's certificate errors.
const CERTIFICATE_ERRORS = table({
  CERT_HAS_EXPIRED: 'net::ERR_CERT_DATE_INVALID',
  CERT_NOT_YET_VALID: 'net::ERR_CERT_DATE_INVALID',
  ERROR_IN_CERT_NOT_BEFORE_FIELD: 'net::ERR_CERT_DATE_INVALID',
  ERROR_IN_CERT_NOT_AFTER_FIELD: 'net::ERR_CERT_DATE_INVALID',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'net::ERR_CERT_AUTHORITY_INVALID',
  SELF_SIGNED_CERT_IN_CHAIN: 'net::ERR_CERT_AUTHORITY_INVALID',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'net::ERR_CERT_AUTHORITY_INVALID',
  UNABLE_TO_GET_ISSUER_CERT: 'net::ERR_CERT_AUTHORITY_INVALID',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'net::ERR_CERT_AUTHORITY_INVALID',
  CERT_UNTRUSTED: 'net::ERR_CERT_AUTHORITY_INVALID',
  CERT_REJECTED: 'net::ERR_CERT_AUTHORITY_INVALID',
  ERR_TLS_CERT_ALTNAME_INVALID: 'net::ERR_CERT_COMMON_NAME_INVALID',
  HOSTNAME_MISMATCH: 'net::ERR_CERT_COMMON_NAME_INVALID',
  CERT_REVOKED: 'net::ERR_CERT_REVOKED',
  UNABLE_TO_GET_CRL: 'net::ERR_CERT_UNABLE_TO_CHECK_REVOCATION',
  CRL_HAS_EXPIRED: 'net::ERR_CERT_UNABLE_TO_CHECK_REVOCATION',
  CRL_NOT_YET_VALID: 'net::ERR_CERT_UNABLE_TO_CHECK_REVOCATION',
  CRL_SIGNATURE_FAILURE: 'net::ERR_CERT_UNABLE_TO_CHECK_REVOCATION',
  UNABLE_TO_DECRYPT_CRL_SIGNATURE: 'net::ERR_CERT_UNABLE_TO_CHECK_REVOCATION',
  CA_MD_TOO_WEAK: 'net::ERR_CERT_WEAK_SIGNATURE_ALGORITHM',
  CA_KEY_TOO_SMALL: 'net::ERR_CERT_WEAK_KEY',
  EE_KEY_TOO_SMALL: 'net::ERR_CERT_WEAK_KEY',
  PERMITTED_VIOLATION: 'net::ERR_CERT_NAME_CONSTRAINT_VIOLATION',
  EXCLUDED_VIOLATION: 'net::ERR_CERT_NAME_CONSTRAINT_VIOLATION',
  CERT_SIGNATURE_FAILURE: 'net::ERR_CERT_INVALID',
  UNABLE_TO_DECRYPT_CERT_SIGNATURE: 'net::ERR_CERT_INVALID',
  UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY: 'net::ERR_CERT_INVALID',
  CERT_CHAIN_TOO_LONG: 'net::ERR_CERT_INVALID',
  INVALID_CA: 'net::ERR_CERT_INVALID',
  PATH_LENGTH_EXCEEDED: 'net::ERR_CERT_INVALID',
  INVALID_PURPOSE: 'net::ERR_CERT_INVALID',
  ERR_TLS_CERT_ALTNAME_FORMAT: 'net::ERR_CERT_INVALID',
});

// OpenSSL SSL-library reasons (Node: `ERR_SSL_<REASON>`, or EPROTO with the reason in the message)
// that Chrome names specifically; every other one is ERR_SSL_PROTOCOL_ERROR.
const SSL_REASONS = table({
  NO_CIPHER_MATCH: 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH',
  NO_SHARED_CIPHER: 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH',
  NO_PROTOCOLS_AVAILABLE: 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH',
  UNSUPPORTED_PROTOCOL: 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH',
  TLSV1_ALERT_PROTOCOL_VERSION: 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH',
  TLSV1_ALERT_INSUFFICIENT_SECURITY: 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH',
  SSLV3_ALERT_HANDSHAKE_FAILURE: 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH',
  SSLV3_ALERT_BAD_CERTIFICATE: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
  SSLV3_ALERT_UNSUPPORTED_CERTIFICATE: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
  SSLV3_ALERT_CERTIFICATE_REVOKED: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
  SSLV3_ALERT_CERTIFICATE_EXPIRED: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
  SSLV3_ALERT_CERTIFICATE_UNKNOWN: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
  TLSV1_ALERT_ACCESS_DENIED: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
  TLSV1_ALERT_UNKNOWN_CA: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
  TLSV13_ALERT_CERTIFICATE_REQUIRED: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
  SSLV3_ALERT_DECOMPRESSION_FAILURE: 'net::ERR_SSL_DECOMPRESSION_FAILURE_ALERT',
  SSLV3_ALERT_BAD_RECORD_MAC: 'net::ERR_SSL_BAD_RECORD_MAC_ALERT',
  TLSV1_ALERT_DECRYPT_ERROR: 'net::ERR_SSL_DECRYPT_ERROR_ALERT',
  TLSV1_UNRECOGNIZED_NAME: 'net::ERR_SSL_UNRECOGNIZED_NAME_ALERT',
  TLSV1_ALERT_UNRECOGNIZED_NAME: 'net::ERR_SSL_UNRECOGNIZED_NAME_ALERT',
});

// The same, keyed by the TLS alert number the server sent (RFC 8446 §6), for OpenSSL's
// "SSL alert number N" messages.
const TLS_ALERTS = table({
  20: 'net::ERR_SSL_BAD_RECORD_MAC_ALERT',
  30: 'net::ERR_SSL_DECOMPRESSION_FAILURE_ALERT',
  40: 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH', // handshake_failure: see the top comment
  42: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
  43: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
  44: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
  45: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
  46: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
  48: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
  49: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
  51: 'net::ERR_SSL_DECRYPT_ERROR_ALERT',
  70: 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH',
  71: 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH',
  112: 'net::ERR_SSL_UNRECOGNIZED_NAME_ALERT',
  116: 'net::ERR_BAD_SSL_CLIENT_AUTH_CERT',
});

const SSL_PROTOCOL_ERROR: NetError = 'net::ERR_SSL_PROTOCOL_ERROR';
const NET_ERROR_NAME = /^net::ERR_[A-Z0-9_]+$/;
// Wrappers nest shallowly (fetch → cause → AggregateError → errors); the bound stops cycles.
const MAX_ERRORS_EXAMINED = 32;

/**
 * Chrome's name for a failure: looks at the error, then its `cause` chain and an AggregateError's
 * `errors` (Node's happy-eyeballs connect), outermost first, and takes the first it can name.
 * Accepts Errors, plain `{ name, code, message }` objects and bare codes or net:: names.
 */
/**
 * What to do about an upstream certificate wrtui refused: name --insecure-upstream (the user
 * trusts that host's certificate) for errors that flag is for; undefined for every other error.
 */
export function insecureUpstreamHint(netError: string, hostname: string): string | undefined {
  if (!netError.startsWith('net::ERR_CERT_') || netError === 'net::ERR_CERT_REVOKED') return undefined;
  return `to accept ${hostname}'s certificate anyway, start wrtui with --insecure-upstream ${hostname}`;
}

export function netErrorOf(error: unknown): NetError {
  const queue: unknown[] = [error];
  const seen = new Set<unknown>();
  while (queue.length > 0 && seen.size < MAX_ERRORS_EXAMINED) {
    const current = queue.shift();
    if (current === undefined || current === null || seen.has(current)) continue;
    seen.add(current);
    const named = nameOne(current);
    if (named !== undefined) return named;
    if (typeof current === 'object') {
      const { cause, errors } = current as { cause?: unknown; errors?: unknown };
      if (cause !== undefined) queue.push(cause);
      if (Array.isArray(errors)) queue.push(...errors);
    }
  }
  return ERR_FAILED;
}

function nameOne(error: unknown): NetError | undefined {
  if (typeof error === 'string') return nameCode(error);
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, syscall, message, name, socket } = error as {
    code?: unknown; syscall?: unknown; message?: unknown; name?: unknown; socket?: { bytesRead?: unknown };
  };
  const text = typeof message === 'string' ? message : '';

  if (typeof code === 'string' && code !== '') {
    // Node's http client: the server closed without sending a byte of response.
    if (code === 'ECONNRESET' && text === 'socket hang up') return 'net::ERR_EMPTY_RESPONSE';
    // Node's TLS client: EOF during the handshake (Chrome treats a FIN as a close, not a reset).
    if (code === 'ECONNRESET' && text.includes('before secure TLS connection was established')) return 'net::ERR_CONNECTION_CLOSED';
    // undici: the server closed the connection; nothing read means an empty response.
    if (code === 'UND_ERR_SOCKET' && text === 'other side closed') {
      return socket?.bytesRead === 0 ? 'net::ERR_EMPTY_RESPONSE' : 'net::ERR_CONNECTION_CLOSED';
    }
    const connectError = syscall === 'connect' ? CONNECT_ERRORS.get(code) : undefined;
    if (connectError !== undefined) return connectError;
    if (typeof syscall === 'string' && (syscall === 'getaddrinfo' || syscall.startsWith('query'))) return 'net::ERR_NAME_NOT_RESOLVED';
    if (code === 'EPROTO' || code.startsWith('ERR_SSL_')) return nameTlsFailure(code, text);
    const named = nameCode(code);
    if (named !== undefined) return named;
  }
  // undici's HTTPParserError carries no code, only llhttp's reason in the message.
  if (name === 'HTTPParserError') return /chunk/i.test(text) ? 'net::ERR_INVALID_CHUNKED_ENCODING' : 'net::ERR_INVALID_HTTP_RESPONSE';
  if (name === 'AbortError') return 'net::ERR_ABORTED';
  if (name === 'TimeoutError') return 'net::ERR_TIMED_OUT'; // AbortSignal.timeout()
  return undefined;
}

function nameCode(code: string): NetError | undefined {
  if (NET_ERROR_NAME.test(code)) return code as NetError;
  if (DNS_ERRORS.has(code)) return 'net::ERR_NAME_NOT_RESOLVED';
  const named = SYSTEM_ERRORS.get(code) ?? CERTIFICATE_ERRORS.get(code);
  if (named !== undefined) return named;
  if (code.startsWith('HPE_')) return 'net::ERR_INVALID_HTTP_RESPONSE';
  // ERR_TLS_* without an entry above: Node refused the TLS setup itself (ERR_TLS_CONTEXT_UNSUPPORTED
  // for legacy configurations, bad protocol bounds…).
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return nameTlsFailure(code, '');
  return undefined;
}

/**
 * A TLS handshake failure other than certificate verification. Node gives the OpenSSL reason
 * either in the code (`ERR_SSL_NO_SHARED_CIPHER`) or, as EPROTO, only in the message
 * ("…:SSL routines:ssl3_read_bytes:tlsv1 alert protocol version:…SSL alert number 70").
 */
function nameTlsFailure(code: string, message: string): NetError {
  if (code.startsWith('ERR_SSL_')) {
    const named = SSL_REASONS.get(code.slice('ERR_SSL_'.length));
    if (named !== undefined) return named;
  }
  const reason = /SSL routines:[^:]*:([^:]+)/.exec(message)?.[1];
  if (reason !== undefined) {
    const named = SSL_REASONS.get(reason.trim().toUpperCase().replace(/[^A-Z0-9]+/g, '_'));
    if (named !== undefined) return named;
  }
  const alert = /SSL alert number (\d+)/.exec(message)?.[1];
  if (alert !== undefined) return TLS_ALERTS.get(String(Number(alert))) ?? SSL_PROTOCOL_ERROR;
  return SSL_PROTOCOL_ERROR;
}

/**
 * What Chrome names an upstream response whose body ended before its framing said it would (Node
 * says ECONNRESET "aborted" for all of them): a reset connection is net::ERR_CONNECTION_RESET (the
 * socket keeps the error); a clean close short of the Content-Length is
 * net::ERR_CONTENT_LENGTH_MISMATCH, and before the last chunk net::ERR_INCOMPLETE_CHUNKED_ENCODING.
 */
export function cutShortError(response: IncomingMessage): NetError {
  // (the response's own error, when the caller has one, says only "aborted")
  const socketError = response.socket?.errored;
  if (socketError) return netErrorOf(socketError);
  if (/chunked/i.test(response.headers['transfer-encoding'] ?? '')) return 'net::ERR_INCOMPLETE_CHUNKED_ENCODING';
  if (response.headers['content-length'] !== undefined) return 'net::ERR_CONTENT_LENGTH_MISMATCH';
  return 'net::ERR_CONNECTION_RESET';
}

/** Node's error for a response body cut short (ECONNRESET "aborted"): cutShortError() names it. */
export const isCutShort = (error: unknown): boolean => (error as { code?: unknown })?.code === 'ECONNRESET' && (error as Error).message === 'aborted';
