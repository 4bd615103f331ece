// A flight's answer to an auth challenge: the challenge a response makes, and which personas' events
// the retry with credentials fires again.
import { getHeaderValues } from '../headers.js';
import type { EventFacts } from '../personas/index.js';
import type { HttpHeaders } from '../types.js';
import { parseChallenge, type AuthChallenge } from './auth-challenge.js';
import type { PersonaFilter } from './event-firing.js';

/** Firefox's auth retry: the events only it fires again. */
export const AUTH_RETRY_REFIRES: PersonaFilter = { test: (persona) => persona.refiresAuthRetry, names: ['firefox'], journalAlways: true };

/** onBeforeRequest is re-fired for Firefox only, and journaled only then (a journaled onBeforeRequest starts a request). */
export const AUTH_RETRY_FACTS: EventFacts = { authRetry: true };
export const AUTH_RETRY_BEFORE_REQUEST: PersonaFilter = { ...AUTH_RETRY_REFIRES, journalAlways: false };

/** The challenge of a 401 (WWW-Authenticate) or 407 (Proxy-Authenticate) response, if it makes one wrtui can parse. */
export function challengeOf(statusCode: number, headers: HttpHeaders): (AuthChallenge & { isProxy: boolean }) | undefined {
  const isProxy = statusCode === 407;
  if (statusCode !== 401 && !isProxy) return undefined;
  const value = getHeaderValues(headers, isProxy ? 'proxy-authenticate' : 'www-authenticate')[0];
  const challenge = value === undefined ? undefined : parseChallenge(value);
  return challenge && { ...challenge, isProxy };
}
