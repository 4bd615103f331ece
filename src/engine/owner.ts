// An owner is whoever registers listeners and calls the cookies API: in wrtui, one rule file,
// behaving like one browser extension. Permissions and host permissions come from its manifest.
import { MatchPatternSet } from './match-pattern.js';
import { specPersona, type Persona } from './personas/index.js';

export interface Owner {
  /** Unique and stable across reloads of the same rule (the rule's name). */
  readonly id: string;
  /** Manifest `permissions`: webRequest, webRequestBlocking, cookies, … */
  readonly permissions: ReadonlySet<string>;
  /** Manifest `host_permissions`: which URLs its listeners see and its cookie calls may touch. */
  readonly hostPermissions: MatchPatternSet;
  /** Verdicts of a dry-run owner are computed and journaled, never applied. */
  dryRun: boolean;
  /**
   * When owners' verdicts conflict the higher precedence wins. Chrome lets the most recently
   * installed extension win; createOwner therefore defaults to install order.
   */
  precedence: number;
  /** The browser whose interface it sees (personas/): what registration accepts and what details show. */
  readonly persona: Persona;
  /** The origin of its own URLs (chrome-extension://<id>, moz-extension://<uuid>; extensions and rules): its own requests come from it. */
  readonly extensionOrigin?: string;
  /** That origin's host: the URLs there are its to see. */
  readonly extensionHost?: string;
  /** Chrome's webRequest.onActionIgnored: told when one of its answers lost to another extension's. */
  actionIgnored?: (requestId: string, action: IgnoredAction) => void;
  /** Its blocking answers come from a person at the keyboard (breakpoints): no listener timeout. */
  answersByHand?: boolean;
}

export type IgnoredAction = 'redirect' | 'request_headers' | 'response_headers' | 'auth_credentials';

export interface OwnerManifest {
  name: string;
  permissions?: string[];
  host_permissions?: string[];
  dryRun?: boolean;
  persona?: Persona;
  /** Its base URL (chrome-extension://<id>/): its origin and host follow from it. */
  baseUrl?: string;
}

let installCounter = 0;

/** Builds an owner from a manifest; invalid host permission patterns throw a MatchPatternError. */
export function createOwner(manifest: OwnerManifest, options: { precedence?: number } = {}): Owner {
  return {
    id: manifest.name,
    permissions: new Set(manifest.permissions ?? []),
    hostPermissions: new MatchPatternSet(manifest.host_permissions ?? []),
    dryRun: manifest.dryRun ?? false,
    precedence: options.precedence ?? ++installCounter,
    persona: manifest.persona ?? specPersona,
    ...(manifest.baseUrl !== undefined && originAndHost(manifest.baseUrl)),
  };
}

/** chrome-extension://<id>/ → its origin and host (URL's own origin is "null" for such schemes). */
function originAndHost(baseUrl: string): { extensionOrigin: string; extensionHost: string } {
  const url = new URL(baseUrl);
  return { extensionOrigin: `${url.protocol}//${url.host}`, extensionHost: url.host };
}

/** An owner with every permission and `<all_urls>`, for tests and in-process embedding. */
export function createTrustedOwner(id: string, options: { precedence?: number; dryRun?: boolean; persona?: Persona } = {}): Owner {
  return createOwner(
    {
      name: id,
      permissions: ['webRequest', 'webRequestBlocking', 'cookies'],
      host_permissions: ['<all_urls>'],
      dryRun: options.dryRun ?? false,
      ...(options.persona && { persona: options.persona }),
    },
    options,
  );
}
