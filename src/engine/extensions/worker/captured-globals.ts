// wrtui's own scripts in the extension's realm (the bindings, a background page's DOM) share that
// realm's global object with the extension, as a browser's bindings are native code beside the
// page's. A browser's are never affected by what the page defines; a script's free names are looked
// up on the global when they run, so wrtui's would be: Privacy Badger's background declares a
// global `function require(m)`, and the bundled DOM (linkedom, whose canvas support asks
// `typeof require` for Node's optional `canvas` package) called it and failed. So each of wrtui's
// scripts runs with the globals it names captured before the extension's scripts run:
//  - the names a module system gives a script (`require`, `module`, `exports`, `define`, …: what a
//    UMD wrapper probes) are undefined for it, whatever the extension defines;
//  - the built-ins and Web globals it uses are the ones the realm had then (an extension's own
//    global `URL`, `Promise` or `Map` is its own);
//  - a name the realm did not have yet (the `console` and timers the bindings make) is looked up
//    when used, as before.
// Which names a script uses is read from its text once (its identifiers that name globals); a
// Web global Node makes on first use (fetch, Headers, streams) is made when the script first uses
// it, not at capture.

/** The names a module system gives a script, which a UMD wrapper probes: never the extension's. */
export const MODULE_SYSTEM_NAMES: readonly string[] = ['require', 'module', 'exports', 'define', 'requirejs', 'global', 'process', 'Buffer', '__filename', '__dirname'];

/** Names never captured: not a parameter's name in strict code, constants, and the extension's console. */
const NOT_CAPTURED = new Set(['eval', 'arguments', 'undefined', 'NaN', 'Infinity', 'console']);

/**
 * The identifiers of `source` that name a global in `known` (the names a realm's global object
 * has, and the module system's): a superset of the globals it reads, since a property or a local
 * of the same name counts too (harmless: a local shadows the captured name).
 */
export function globalNamesIn(source: string, known: Iterable<string>): string[] {
  const candidates = new Set([...known, ...MODULE_SYSTEM_NAMES]);
  const found = new Set<string>();
  for (const identifier of source.match(/[A-Za-z_$][\w$]*/g) ?? []) if (candidates.has(identifier) && !NOT_CAPTURED.has(identifier)) found.add(identifier);
  return [...found].sort();
}

/** What a script is given in place of its free names (see withCapturedGlobals). */
export interface CapturedGlobals {
  /** Names given as parameters, with their values now (a module system's: undefined). */
  params: string[];
  values: unknown[];
  /** Names whose value the realm makes on first use: made when the script first reads them. */
  lazy: object;
}

/**
 * `names` as `global` has them now; `skip`: names left to be looked up when used (a page's DOM
 * globals, which the DOM itself is being made for).
 */
export function captureGlobals(global: object, names: readonly string[], skip: ReadonlySet<string> = new Set()): CapturedGlobals {
  const moduleSystem = new Set(MODULE_SYSTEM_NAMES);
  const params: string[] = [];
  const values: unknown[] = [];
  const lazy = Object.create(null) as object;
  for (const name of new Set(names)) {
    if (NOT_CAPTURED.has(name) || skip.has(name) || !/^[A-Za-z_$][\w$]*$/.test(name)) continue;
    if (moduleSystem.has(name)) {
      params.push(name);
      values.push(undefined);
      continue;
    }
    const descriptor = Object.getOwnPropertyDescriptor(global, name);
    if (!descriptor) continue;
    if ('value' in descriptor) {
      params.push(name);
      values.push(descriptor.value);
      continue;
    }
    const get = descriptor.get;
    if (!get) continue;
    let made = false;
    let value: unknown;
    Object.defineProperty(lazy, name, {
      get: () => {
        if (!made) {
          value = get.call(global);
          made = true;
        }
        return value;
      },
      enumerable: true,
    });
  }
  return { params, values, lazy };
}

/**
 * The text of a function that, given the CapturedGlobals of `params`, runs `source` (a classic
 * script) with them: its free names resolve to the captured values first (parameters), then to the
 * names made on first use (the `with` scope, outside the script's own strict code), then to the
 * global object. Its `this` is the global, as a script's top level has it.
 */
export function withCapturedGlobals(source: string, params: readonly string[]): string {
  return `(function (__wrtuiCaptured) { with (__wrtuiCaptured.lazy) { return (function (${params.join(', ')}) {\n${source}\n}).apply(this, __wrtuiCaptured.values); } })`;
}
