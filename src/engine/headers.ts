// HttpHeaders (§2.7) helpers: conversion between the wire (bytes) and the spec's shape, in which a
// header carries `value` when it is representable as UTF-8 and `binaryValue` otherwise.
import type { HttpHeader, HttpHeaders } from './types.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
// RFC 9110 token: the characters a header name may contain.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Bytes that would split or end a header line on the wire.
const FORBIDDEN_VALUE_CHAR = /[\r\n\0]/;

/** A header from bytes: `value` when they decode as UTF-8, `binaryValue` otherwise. */
export function headerFromBytes(name: string, bytes: Uint8Array): HttpHeader {
  try {
    return { name, value: utf8.decode(bytes) };
  } catch {
    return { name, binaryValue: Array.from(bytes) };
  }
}

/**
 * Node's http module hands header values over as latin1 strings (one char per byte). Pure ASCII
 * needs no decoding, which keeps the hot path free of Buffer allocations.
 */
export function headerFromLatin1(name: string, latin1: string): HttpHeader {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(latin1)) return { name, value: latin1 };
  return headerFromBytes(name, Buffer.from(latin1, 'latin1'));
}

/** Node's `rawHeaders` ([name, value, name, value, …]) as HttpHeaders, order and duplicates kept. */
export function headersFromRaw(rawHeaders: readonly string[]): HttpHeaders {
  const headers: HttpHeaders = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) headers.push(headerFromLatin1(rawHeaders[i]!, rawHeaders[i + 1]!));
  return headers;
}

/** A header's value as bytes. */
export function headerBytes(header: HttpHeader): Uint8Array {
  if (header.binaryValue) return Uint8Array.from(header.binaryValue);
  return Buffer.from(header.value ?? '', 'utf8');
}

/** A header's value as the latin1 string Node writes byte for byte. */
export function headerLatin1(header: HttpHeader): string {
  if (header.binaryValue) return Buffer.from(header.binaryValue).toString('latin1');
  const value = header.value ?? '';
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(value) ? value : Buffer.from(value, 'utf8').toString('latin1');
}

/** A header's value for display and comparison: the UTF-8 value, or the bytes read as latin1. */
export function headerText(header: HttpHeader): string {
  return header.value ?? Buffer.from(header.binaryValue ?? []).toString('latin1');
}

/** Back to Node's flat [name, value, …] form. */
export function headersToRaw(headers: HttpHeaders): string[] {
  const raw: string[] = [];
  for (const header of headers) raw.push(header.name, headerLatin1(header));
  return raw;
}

/** The first value of a header, case-insensitively. */
export function getHeader(headers: HttpHeaders, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const header of headers) if (header.name.toLowerCase() === lower) return headerText(header);
  return undefined;
}

/** Every value of a header, case-insensitively (e.g. each Set-Cookie). */
export function getHeaderValues(headers: HttpHeaders, name: string): string[] {
  const lower = name.toLowerCase();
  const values: string[] = [];
  for (const header of headers) if (header.name.toLowerCase() === lower) values.push(headerText(header));
  return values;
}

/** A copy with `name` replaced by one header of `value` (or removed when value is undefined). */
export function withHeader(headers: HttpHeaders, name: string, value: string | undefined): HttpHeaders {
  const lower = name.toLowerCase();
  const kept = headers.filter((header) => header.name.toLowerCase() !== lower);
  if (value !== undefined) kept.push({ name, value });
  return kept;
}

/** Lower-case name → value, or values for a repeated name: Node's header-object shape. */
export function headerObject(headers: HttpHeaders): Record<string, string | string[]> {
  const object: Record<string, string | string[]> = {};
  for (const header of headers) {
    const name = header.name.toLowerCase();
    const value = headerLatin1(header);
    const existing = object[name];
    object[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return object;
}

/** Deep enough for a listener to mutate freely: new array, new header objects. */
export function cloneHeaders(headers: HttpHeaders): HttpHeaders {
  return headers.map((header) =>
    header.binaryValue ? { name: header.name, binaryValue: [...header.binaryValue] } : { name: header.name, value: header.value },
  );
}

/** Why a listener-supplied HttpHeaders array is not acceptable, or undefined when it is. */
export function invalidHeadersReason(headers: unknown): string | undefined {
  if (!Array.isArray(headers)) return 'must be an array of { name, value } objects';
  for (const [index, header] of headers.entries()) {
    const where = `header ${index}`;
    if (typeof header !== 'object' || header === null) return `${where} is not an object`;
    const { name, value, binaryValue } = header as Record<string, unknown>;
    if (typeof name !== 'string' || !TOKEN.test(name)) return `${where} has an invalid name ${JSON.stringify(name)}`;
    if ((value === undefined) === (binaryValue === undefined)) return `header "${name}" needs exactly one of value or binaryValue`;
    if (value !== undefined) {
      if (typeof value !== 'string') return `header "${name}" has a value that is not a string`;
      if (FORBIDDEN_VALUE_CHAR.test(value)) return `header "${name}" has a value with CR, LF or NUL`;
    } else {
      if (!Array.isArray(binaryValue) || !binaryValue.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
        return `header "${name}" has a binaryValue that is not an array of bytes 0..255`;
      }
      if (binaryValue.some((b) => b === 10 || b === 13 || b === 0)) return `header "${name}" has a binaryValue with CR, LF or NUL`;
    }
  }
  return undefined;
}

/** Request headers that describe the client's connection or framing, not the request: a copy of the request (curl, a resend) makes its own. */
export const CONNECTION_REQUEST_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'te', 'upgrade']);
