// What the journal says when an extension reaches for an API it does not get: one its manifest
// does not ask for, one of the other browser's (under a persona), one the spec persona leaves out,
// or one wrtui does not have. Said once per name (the worker reports each name once).
import type { Persona } from '../personas/index.js';

export interface MissingApiNote {
  level: 'debug' | 'info' | 'warn';
  message: string;
}

/** `name` (`chrome.x.y`) is undefined for an extension of `persona`; `permission`: the one its manifest lacks. */
export function missingApiNote(name: string, permission: string | undefined, persona: Persona | undefined): MissingApiNote {
  if (permission !== undefined) return { level: 'debug', message: `${name} is undefined: the manifest does not ask for the "${permission}" permission` };
  if (persona?.name === 'chrome' && /^(chrome|browser)\.webRequest\.(filterResponseData|getSecurityInfo)$/.test(name))
    return { level: 'info', message: `${name} is Firefox's: Chrome has none, so it is undefined under the chrome persona (--persona firefox has it)` };
  if (persona?.hasFilterResponseData && /^(chrome|browser)\.webRequest\.filterResponseData$/.test(name))
    return { level: 'info', message: `${name} is undefined: Firefox gives it to an extension with the "webRequestBlocking" permission (and, in Manifest V3, "webRequestFilterResponse")` };
  if (persona?.name === 'spec' && /^(chrome|browser)\.webRequest\.(ResourceType|On\w+Options|IgnoredActionType|onActionIgnored|filterResponseData|getSecurityInfo)$/.test(name))
    return { level: 'warn', message: `${name} is not in the spec persona (the seed interface); run with --persona chrome or firefox to see what that browser has` };
  return { level: 'warn', message: `${name} is not available in wrtui; it is undefined here, as an API without its permission is in a browser` };
}
