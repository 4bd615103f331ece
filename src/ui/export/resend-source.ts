// The request to resend, from what the TUI holds: the URL and method the client first asked for,
// the headers as the client sent them (the proxy adds the jar's cookies and rules act again), and
// the whole body, or a refusal when only part of it was kept.
import type { ResendRequest } from '../../app/resend.js';
import { clientHeaders } from '../detail/header-origins.js';
import type { RequestRecord } from '../store/request-record.js';

export function resendSource(record: RequestRecord): { ok: true; request: ResendRequest } | { ok: false; error: string } {
  const first = record.events.find((event) => event.event === 'onBeforeRequest');
  const method = first?.details.method ?? record.method;
  const headers = clientHeaders(record) ?? [];
  let body: Uint8Array | undefined;
  if (record.requestBytes) {
    if (!record.requestBytes.complete) return { ok: false, error: `the request body (${record.requestBytes.size} B) was cut at --max-body-size: it cannot be resent whole` };
    body = record.requestBytes.bytes;
  } else if (record.requestBody?.raw) {
    body = Buffer.concat(record.requestBody.raw.map((part) => (part.bytes ? new Uint8Array(part.bytes) : new Uint8Array())));
  } else if (record.requestBody?.formData) {
    const params = new URLSearchParams();
    for (const [name, values] of Object.entries(record.requestBody.formData)) for (const value of values) params.append(name, value);
    body = new Uint8Array(Buffer.from(params.toString()));
  }
  return { ok: true, request: { method, url: record.firstUrl, headers, ...(body && { body }) } };
}
