// --redact: credentials out of a session file. The values of Authorization, Proxy-Authorization,
// Cookie and Set-Cookie headers (wherever headers appear: event details and what listeners
// returned), the password of onAuthRequired answers, and the value of every cookie (cookieChanged
// entries, the cookie stores in the header) become REDACTED. Structure stays, so a redacted
// session still replays: cookie names and Set-Cookie attributes are kept (`sid=REDACTED; Path=/`),
// as is the scheme of an Authorization header (`Basic REDACTED`).
//
// Not redacted, because wrtui cannot know what is secret in them: URLs and query strings, bodies,
// other headers, and the text of rules' log messages.
import type { SerializedCookie } from 'tough-cookie';
import { headerText } from '../headers.js';
import type { JournalEntry, ListenerOutcome } from '../journal.js';
import type { BlockingResponse, HttpHeaders, WebRequestDetails } from '../types.js';

export const REDACTED = 'REDACTED';

const REDACTORS: Readonly<Record<string, (value: string) => string>> = {
  authorization: redactCredentials,
  'proxy-authorization': redactCredentials,
  cookie: redactCookieHeader,
  'set-cookie': redactSetCookie,
};

/** A copy with credential header values redacted; the same array when there was nothing to redact. */
export function redactHeaders(headers: HttpHeaders): HttpHeaders {
  if (!headers.some((header) => REDACTORS[header.name.toLowerCase()])) return headers;
  return headers.map((header) => {
    const redact = REDACTORS[header.name.toLowerCase()];
    return redact ? { name: header.name, value: redact(headerText(header)) } : header;
  });
}

/** The entry as a redacted session file holds it (a copy; `entry` is left alone). */
export function redactEntry<T extends JournalEntry>(entry: T): T {
  switch (entry.kind) {
    case 'webRequest':
      return {
        ...entry,
        details: redactDetails(entry.details),
        outcomes: entry.outcomes.map(redactOutcome),
        // The client's own Cookie value, kept beside the merged one, is as secret as that one.
        ...(entry.wrtuiAdded && { wrtuiAdded: entry.wrtuiAdded.map((added) => (added.clientValue === undefined ? added : { ...added, clientValue: redactCookieHeader(added.clientValue) })) }),
      };
    case 'cookieChanged':
      return { ...entry, changeInfo: { ...entry.changeInfo, cookie: { ...entry.changeInfo.cookie, value: REDACTED } } };
    default:
      return entry;
  }
}

export function redactSerializedCookies(cookies: SerializedCookie[]): SerializedCookie[] {
  return cookies.map((cookie) => ({ ...cookie, value: REDACTED }));
}

function redactDetails(details: WebRequestDetails): WebRequestDetails {
  const copy = { ...details } as WebRequestDetails & { requestHeaders?: HttpHeaders; responseHeaders?: HttpHeaders };
  if (copy.requestHeaders) copy.requestHeaders = redactHeaders(copy.requestHeaders);
  if (copy.responseHeaders) copy.responseHeaders = redactHeaders(copy.responseHeaders);
  return copy;
}

function redactOutcome(outcome: ListenerOutcome): ListenerOutcome {
  if (!outcome.response) return outcome;
  const response: BlockingResponse = { ...outcome.response };
  if (response.requestHeaders) response.requestHeaders = redactHeaders(response.requestHeaders);
  if (response.responseHeaders) response.responseHeaders = redactHeaders(response.responseHeaders);
  if (response.authCredentials) response.authCredentials = { username: response.authCredentials.username, password: REDACTED };
  return { ...outcome, response };
}

/** `Basic dXNlcjpwYXNz` → `Basic REDACTED`: the scheme says how the request authenticated, not with what. */
function redactCredentials(value: string): string {
  const scheme = /^\s*([!#$%&'*+\-.^_`|~0-9A-Za-z]+)\s+\S/.exec(value)?.[1];
  return scheme ? `${scheme} ${REDACTED}` : REDACTED;
}

/** `a=1; b=2` → `a=REDACTED; b=REDACTED`. */
function redactCookieHeader(value: string): string {
  return value
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '')
    .map((pair) => {
      const index = pair.indexOf('=');
      return index === -1 ? REDACTED : `${pair.slice(0, index).trim()}=${REDACTED}`;
    })
    .join('; ');
}

/** `sid=abc; Path=/; HttpOnly` → `sid=REDACTED; Path=/; HttpOnly`. */
function redactSetCookie(value: string): string {
  const end = value.indexOf(';');
  const pair = end === -1 ? value : value.slice(0, end);
  const rest = end === -1 ? '' : value.slice(end);
  const index = pair.indexOf('=');
  return `${index === -1 ? REDACTED : `${pair.slice(0, index).trim()}=${REDACTED}`}${rest}`;
}
