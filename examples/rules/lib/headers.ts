// Small helpers for HttpHeaders arrays, shared by the example rules. Header names compare
// case-insensitively, as in HTTP.
import type { HttpHeaders } from 'wrtui/rules';

/** The headers without any named `name`. */
export function withoutHeader(headers: HttpHeaders, name: string): HttpHeaders {
  const lower = name.toLowerCase();
  return headers.filter((header) => header.name.toLowerCase() !== lower);
}

/** The headers with `name` set to `value` (replacing any previous value). */
export function withHeader(headers: HttpHeaders, name: string, value: string): HttpHeaders {
  return [...withoutHeader(headers, name), { name, value }];
}

/** The value of the first header named `name`. */
export function headerValue(headers: HttpHeaders, name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find((header) => header.name.toLowerCase() === lower)?.value;
}
