// The personas by name, and how a runtime's persona is chosen (docs/personas.md).
import { chromePersona } from './chrome.js';
import { firefoxPersona } from './firefox.js';
import { PERSONA_NAMES, type Persona, type PersonaName } from './persona.js';
import { specPersona } from './spec.js';

export { chromePersona, firefoxPersona, specPersona };
export * from './persona.js';

const BY_NAME: Record<PersonaName, Persona> = { spec: specPersona, chrome: chromePersona, firefox: firefoxPersona };

export function personaNamed(name: PersonaName): Persona {
  return BY_NAME[name];
}

export function isPersonaName(value: unknown): value is PersonaName {
  return typeof value === 'string' && (PERSONA_NAMES as readonly string[]).includes(value);
}

/**
 * A runtime's persona: what its own manifest says (a rule's `persona` key), else what `--persona`
 * says, else, for an extension whose manifest has `browser_specific_settings.gecko`, firefox;
 * else the spec.
 */
export function choosePersona(options: { declared?: PersonaName; flag?: PersonaName; manifest?: Record<string, unknown> }): PersonaName {
  if (options.declared) return options.declared;
  if (options.flag) return options.flag;
  const settings = (options.manifest?.browser_specific_settings ?? options.manifest?.applications) as { gecko?: unknown } | undefined;
  if (settings && typeof settings === 'object' && settings.gecko !== undefined) return 'firefox';
  return 'spec';
}
