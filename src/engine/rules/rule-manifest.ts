// Checks the `manifest` a rule file exports, as a browser checks an extension's manifest.json:
// what would make the rule misbehave is an error (the rule does not load), what is merely unknown
// is a warning (Chrome's "Permission '…' is unknown" is one too).
import { validateMatchPattern } from '../match-pattern.js';
import type { RuleManifest, RulePermission } from './author-types.js';

export const KNOWN_PERMISSIONS: readonly RulePermission[] = ['webRequest', 'webRequestBlocking', 'cookies', 'storage', 'alarms'];
const KNOWN_KEYS = new Set(['name', 'permissions', 'host_permissions', 'dryRun', 'precedence', 'node', 'persona', 'ownWorker']);
const PERSONAS = ['spec', 'chrome', 'firefox'] as const;

/** A manifest that passed the checks, with plain mutable arrays. */
export interface ValidManifest {
  name: string;
  permissions: string[];
  host_permissions: string[];
  dryRun?: boolean;
  precedence?: number;
  /** The rule runs with Node's globals and built-in modules (the user's own code may opt in). */
  node?: boolean;
  persona?: (typeof PERSONAS)[number];
  /** The rule runs in a worker of its own rather than one the rule files share. */
  ownWorker?: boolean;
}

export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestError';
  }
}

export interface CheckedManifest {
  manifest: ValidManifest;
  warnings: string[];
}

/** Throws a ManifestError saying what is wrong; returns the manifest and warnings otherwise. */
export function checkManifest(value: unknown): CheckedManifest {
  if (value === undefined) throw new ManifestError('the rule does not export a `manifest` (export const manifest = { name, permissions, host_permissions })');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ManifestError('`manifest` must be an object');
  const input = value as Partial<Record<keyof RuleManifest, unknown>> & Record<string, unknown>;
  const warnings: string[] = [];

  if (typeof input.name !== 'string' || input.name.trim() === '') throw new ManifestError('manifest.name is required: a non-empty string, unique among the rules');
  if (/[\u0000-\u001f\u007f]/.test(input.name)) throw new ManifestError(`manifest.name ${JSON.stringify(input.name)} contains control characters`);

  const permissions = stringList(input.permissions, 'permissions');
  for (const permission of permissions) {
    if (!(KNOWN_PERMISSIONS as readonly string[]).includes(permission)) {
      warnings.push(`Permission '${permission}' is unknown or not supported by wrtui (known: ${KNOWN_PERMISSIONS.join(', ')}); it grants nothing`);
    }
  }
  if (permissions.includes('webRequestBlocking') && !permissions.includes('webRequest')) {
    warnings.push(`'webRequestBlocking' without 'webRequest' grants nothing: chrome.webRequest needs 'webRequest'`);
  }

  const hostPermissions = stringList(input.host_permissions, 'host_permissions');
  hostPermissions.forEach((pattern, index) => {
    const problem = validateMatchPattern(pattern);
    if (problem !== undefined) throw new ManifestError(`manifest.host_permissions[${index}]: ${problem}`);
  });
  if ((permissions.includes('webRequest') || permissions.includes('cookies')) && hostPermissions.length === 0) {
    warnings.push('no host_permissions: the rule sees no request and may touch no cookie (add e.g. "<all_urls>")');
  }

  if (input.dryRun !== undefined && typeof input.dryRun !== 'boolean') throw new ManifestError('manifest.dryRun must be true or false');
  if (input.precedence !== undefined && (typeof input.precedence !== 'number' || !Number.isFinite(input.precedence))) {
    throw new ManifestError('manifest.precedence must be a finite number (higher wins conflicts)');
  }
  if (input.node !== undefined && typeof input.node !== 'boolean') throw new ManifestError('manifest.node must be true or false (true gives the rule Node\'s globals and built-in modules)');
  if (input.ownWorker !== undefined && typeof input.ownWorker !== 'boolean') throw new ManifestError('manifest.ownWorker must be true or false (true runs the rule in a worker of its own)');
  if (input.persona !== undefined && !(PERSONAS as readonly unknown[]).includes(input.persona)) {
    throw new ManifestError(`manifest.persona must be one of ${PERSONAS.map((p) => `"${p}"`).join(', ')}, got ${JSON.stringify(input.persona)}`);
  }
  for (const key of Object.keys(input)) {
    if (!KNOWN_KEYS.has(key)) warnings.push(`unknown manifest key ${JSON.stringify(key)} ignored (known: ${[...KNOWN_KEYS].join(', ')})`);
  }

  return {
    manifest: {
      name: input.name,
      permissions,
      host_permissions: hostPermissions,
      ...(input.dryRun !== undefined && { dryRun: input.dryRun }),
      ...(input.precedence !== undefined && { precedence: input.precedence }),
      ...(input.node !== undefined && { node: input.node }),
      ...(input.ownWorker !== undefined && { ownWorker: input.ownWorker }),
      ...(input.persona !== undefined && { persona: input.persona as (typeof PERSONAS)[number] }),
    },
    warnings,
  };
}

function stringList(value: unknown, key: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ManifestError(`manifest.${key} must be an array of strings`);
  value.forEach((item, index) => {
    if (typeof item !== 'string') throw new ManifestError(`manifest.${key}[${index}] must be a string, not ${JSON.stringify(item) ?? typeof item}`);
  });
  return [...(value as string[])];
}
