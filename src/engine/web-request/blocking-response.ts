// Checks what a blocking listener returned (§2.8) before anything is merged or applied.
import { invalidHeadersReason } from '../headers.js';
import { EXTENSION_PROTOCOLS } from '../match-pattern.js';
import { specPersona, type Persona } from '../personas/index.js';
import { BLOCKING_RESPONSE_KEYS, type BlockingResponse, type WebRequestEventName } from '../types.js';

const ALL_KEYS: ReadonlySet<string> = new Set(['cancel', 'redirectUrl', 'requestHeaders', 'responseHeaders', 'authCredentials']);
// Schemes a redirect may lead to: an extension's URL too (wrtui serves its web accessible resources).
const REDIRECT_SCHEMES: ReadonlySet<string> = new Set(['http:', 'https:', 'ws:', 'wss:', 'data:', 'about:', ...EXTENSION_PROTOCOLS]);

export type CheckedBlockingResponse =
  /** Nothing to do (undefined, null, {} or only keys the event does not use). */
  | { kind: 'empty'; unusedKeys: string[] }
  | { kind: 'valid'; response: BlockingResponse; unusedKeys: string[] }
  | { kind: 'invalid'; reason: string };

/** A listener that returned nothing: the common case, one shared (frozen) result. */
const NO_ANSWER: CheckedBlockingResponse = Object.freeze({ kind: 'empty', unusedKeys: Object.freeze([]) as unknown as string[] });

/**
 * Validates a listener's answer for `event`. Keys the event does not use (a redirectUrl returned
 * from onBeforeSendHeaders, say) are dropped and named, as Chrome drops them; a value of the wrong
 * shape makes the whole answer invalid, so that half a verdict is never applied.
 */
export function checkBlockingResponse(event: WebRequestEventName, value: unknown, persona: Persona = specPersona): CheckedBlockingResponse {
  if (value === undefined || value === null) return NO_ANSWER;
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { kind: 'invalid', reason: `a BlockingResponse must be an object, got ${describe(value)}` };
  }
  const record = value as Record<string, unknown>;
  const personaKeys = Object.values(persona.extraBlockingKeys).flat();
  const unexpected = Object.keys(record).find((key) => !ALL_KEYS.has(key) && !personaKeys.includes(key));
  if (unexpected !== undefined) return { kind: 'invalid', reason: `unexpected property "${unexpected}" in BlockingResponse` };

  const { cancel, redirectUrl, requestHeaders, responseHeaders, authCredentials, upgradeToSecure } = record;
  if (upgradeToSecure !== undefined && typeof upgradeToSecure !== 'boolean') return { kind: 'invalid', reason: '"upgradeToSecure" must be a boolean' };
  if (cancel !== undefined && typeof cancel !== 'boolean') return { kind: 'invalid', reason: '"cancel" must be a boolean' };
  if (cancel === true) {
    const others = Object.keys(record).filter((key) => key !== 'cancel' && record[key] !== undefined);
    if (others.length > 0) return { kind: 'invalid', reason: `"cancel: true" cannot be combined with ${others.map((k) => `"${k}"`).join(', ')}` };
  }
  let redirectHref: string | undefined;
  if (redirectUrl !== undefined) {
    const checked = checkRedirectUrl(redirectUrl);
    if ('reason' in checked) return { kind: 'invalid', reason: checked.reason };
    redirectHref = checked.href;
  }
  for (const [key, headers] of [['requestHeaders', requestHeaders], ['responseHeaders', responseHeaders]] as const) {
    if (headers === undefined) continue;
    const reason = invalidHeadersReason(headers);
    if (reason) return { kind: 'invalid', reason: `"${key}" ${reason}` };
  }
  if (authCredentials !== undefined) {
    const creds = authCredentials as Record<string, unknown> | null;
    if (typeof creds !== 'object' || creds === null || typeof creds.username !== 'string' || typeof creds.password !== 'string') {
      return { kind: 'invalid', reason: '"authCredentials" must be { username: string, password: string }' };
    }
  }

  const used: readonly string[] = [...(BLOCKING_RESPONSE_KEYS[event] ?? []), ...(persona.extraBlockingKeys[event] ?? [])];
  const response: BlockingResponse = {};
  const unusedKeys: string[] = [];
  for (const key of Object.keys(record) as (keyof BlockingResponse)[]) {
    if (record[key] === undefined) continue;
    if (used.includes(key)) (response as Record<string, unknown>)[key] = record[key];
    else unusedKeys.push(key);
  }
  // `cancel: false` and `upgradeToSecure: false` ask for nothing.
  if (response.cancel === false) delete response.cancel;
  if (response.upgradeToSecure === false) delete response.upgradeToSecure;
  if (Object.keys(response).length === 0) return { kind: 'empty', unusedKeys };
  // The URL as the browser's parser writes it (Chrome's GURL, Firefox's nsIURI): that is what
  // onBeforeRedirect reports and what goes into Location, where a raw space or control character
  // would be refused.
  if (response.redirectUrl !== undefined) response.redirectUrl = redirectHref!;
  return { kind: 'valid', response, unusedKeys };
}

/** A redirectUrl parsed (its href, as the parser writes it), or why it cannot be one. */
function checkRedirectUrl(value: unknown): { href: string } | { reason: string } {
  if (typeof value !== 'string') return { reason: '"redirectUrl" must be a string' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { reason: `"redirectUrl" is not a valid absolute URL: ${JSON.stringify(value)}` };
  }
  if (!REDIRECT_SCHEMES.has(url.protocol)) return { reason: `"redirectUrl" has an unsupported scheme "${url.protocol}"` };
  if (url.protocol === 'about:' && url.href !== 'about:blank') return { reason: '"redirectUrl" may only be about:blank among about: URLs' };
  return { href: url.href };
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `the string ${JSON.stringify(value)}` : String(value);
}

/** What a verdict would do, in words, for dry-run entries and the UI: "cancel", "redirect to …". */
export function describeVerdict(response: BlockingResponse): string {
  const parts: string[] = [];
  if (response.cancel) parts.push('cancel');
  if (response.redirectUrl) parts.push(`redirect to ${response.redirectUrl}`);
  if (response.requestHeaders) parts.push(`set request headers (${response.requestHeaders.length})`);
  if (response.responseHeaders) parts.push(`set response headers (${response.responseHeaders.length})`);
  if (response.authCredentials) parts.push(`answer auth as "${response.authCredentials.username}"`);
  if (response.upgradeToSecure) parts.push('upgrade to https');
  return parts.join(', ');
}
