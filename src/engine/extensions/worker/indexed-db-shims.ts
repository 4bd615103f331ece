// What fake-indexeddb finds in place of two globals, injected by the IndexedDB script's build
// (worker-script.ts): `structuredClone`, which must make the extension's realm's objects
// (structured-clone.ts), and `globalThis.setImmediate`, which a browser-like realm has not (without
// it fake-indexeddb falls back to setTimeout, 1 ms or more per request). Set once, by the engine.

export let structuredClone: <T>(value: T) => T = (value) => value;
export let wrtuiIndexedDbImmediate: (task: () => void) => void = (task) => void setTimeout(task, 0);

export function configureShims(clone: <T>(value: T) => T, immediate: (task: () => void) => void): void {
  structuredClone = clone;
  wrtuiIndexedDbImmediate = immediate;
}
