// The cookie jar's part in a request flight: the cookies a hop carries, and the Set-Cookie of its
// response the jar stores.
import type { CrossSite } from '../cookies/cookie-match.js';
import { getHeaderValues, withHeader } from '../headers.js';
import type { Journal, WrtuiAddedHeader } from '../journal.js';
import type { HttpHeaders } from '../types.js';
import { cookieNames, mergeCookieHeader } from './request-cookies.js';
import type { CookieAccess, CookieBridge } from './request-init.js';

/** The cross-site rule a request's cookies follow, when they do. */
export function crossSiteOf(access: CookieAccess): CrossSite | undefined {
  return typeof access === 'object' ? access : undefined;
}

/** `headers` with the jar's cookies for `url` merged into the client's; `added` notes it when that changed them. */
export function withJarCookies(cookies: CookieBridge, headers: HttpHeaders, url: string, storeId: string, access: CookieAccess): { headers: HttpHeaders; added?: WrtuiAddedHeader } {
  // A client may split its cookies over several Cookie fields (HTTP/2 does): all of them count.
  const fromClient = getHeaderValues(headers, 'cookie').join('; ') || undefined;
  const fromJar = cookies.cookieHeader(url, storeId, crossSiteOf(access));
  const merged = mergeCookieHeader(fromJar, fromClient);
  if (merged === fromClient) return { headers };
  return {
    headers: withHeader(headers, 'Cookie', merged),
    added: { header: 'Cookie', by: 'cookie jar', cookies: cookieNames(fromJar), ...(fromClient !== undefined && { clientValue: fromClient }) },
  };
}

/** Stores a response's Set-Cookie headers; each one the jar refuses gets a journal line naming the cookie (never its value). */
export function storeResponseCookies(
  cookies: CookieBridge,
  journal: Journal,
  request: { readonly requestId: string; readonly url: string; readonly storeId: string },
  access: CookieAccess,
  responseHeaders: HttpHeaders,
): void {
  const setCookies = getHeaderValues(responseHeaders, 'set-cookie');
  if (setCookies.length === 0) return;
  const result = cookies.setFromResponse(request.url, setCookies, request.storeId, crossSiteOf(access));
  for (const { header, reason } of result?.rejected ?? []) {
    // The cookie's name only: its value may be a secret (and a nameless cookie is all value).
    const pair = header.split(';', 1)[0]!;
    const equals = pair.indexOf('=');
    const name = equals === -1 ? '(nameless)' : pair.slice(0, equals).trim();
    journal.append({ kind: 'log', level: 'info', source: 'cookies', message: `request ${request.requestId}: Set-Cookie "${name}" ignored: ${reason}` });
  }
}
