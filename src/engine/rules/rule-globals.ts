// How a rule's code gets its own console and timers without any change to what authors write.
// esbuild's `inject` replaces every free reference to `console`, `setTimeout`, … in the bundle
// (the rule and the helpers it imports) with this module's exports; the module asks wrtui, at
// the bundle's evaluation, for the globals registered under the bundle's own URL (each build is a
// distinct file, so its URL names exactly one loaded version of one rule). Packages the rule
// imports stay external and keep the process's console.
import type { RuleTimers } from './rule-timers.js';

export interface RuleGlobals {
  console: Console;
  timers: RuleTimers;
}

const PROVIDER = Symbol.for('wrtui.rule-globals');
const EXPORTED = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate'] as const;

/** The virtual module esbuild injects into every rule bundle. */
export const RULE_GLOBALS_MODULE = [
  `const globals = globalThis[Symbol.for(${JSON.stringify(PROVIDER.description)})]?.(import.meta.url);`,
  'export const console = globals?.console ?? globalThis.console;',
  ...EXPORTED.map((name) => `export const ${name} = globals?.timers.${name} ?? globalThis.${name};`),
].join('\n');

const byModuleUrl = new Map<string, RuleGlobals>();

function install(): void {
  const scope = globalThis as unknown as Record<symbol, unknown>;
  if (typeof scope[PROVIDER] !== 'function') {
    // One provider per process, shared by every RuleHost: keys are unique module URLs.
    Object.defineProperty(scope, PROVIDER, { value: (url: string) => byModuleUrl.get(url), configurable: true });
  }
}

/** Makes `globals` what the bundle at `moduleUrl` gets while it is imported; returns the removal. */
export function provideRuleGlobals(moduleUrl: string, globals: RuleGlobals): () => void {
  install();
  byModuleUrl.set(moduleUrl, globals);
  return () => byModuleUrl.delete(moduleUrl);
}
