// The worker's own realm (Node's) is where the Web globals an extension is given come from: URL,
// fetch, TextEncoder, crypto, structuredClone's results, the errors they throw. Each of them leads
// back to this realm: `URL.constructor.constructor('return process')()` compiled code here, where
// `process` (and through it every file of the user's) is one name away, and this realm's
// prototypes (Array.prototype.push, Promise.prototype.then) are the ones wrtui's own code in the
// worker calls. So, before the extension's realm is made:
//  - the constructors that compile source text (Function, AsyncFunction, GeneratorFunction,
//    AsyncGeneratorFunction) cannot be reached from their prototypes: `constructor` there throws,
//    as a realm that disallows code generation from strings would;
//  - this realm's intrinsics are frozen, as Node's --frozen-intrinsics freezes them, with the same
//    allowance: assigning a property on an object of one's own (`error.name = …`) still works where
//    the prototype's property is frozen.
// The extension's realm keeps intrinsics of its own, unfrozen: it may patch them as in a browser.
// This closes the ways out that need no bug in Node; a vm context is not a process boundary, and
// docs/extensions-and-host.md says so.

/** What `Function.prototype.constructor` and its kin are here: no way back to source compilation. */
const refuseCompilation = {
  constructor(): never {
    throw new EvalError('Code generation from strings disallowed for this context');
  },
}.constructor;

/** The intrinsics of this realm that are not reachable as globals. */
function hiddenIntrinsics(): object[] {
  const proto = Object.getPrototypeOf as (value: unknown) => object;
  const asyncGenerator = async function* () {};
  return [
    proto(function* () {}), // GeneratorFunction.prototype
    proto(asyncGenerator), // AsyncGeneratorFunction.prototype
    proto(async function () {}), // AsyncFunction.prototype
    proto(proto(asyncGenerator())), // AsyncGeneratorPrototype
    proto(proto(proto(asyncGenerator()))), // AsyncIteratorPrototype
    proto(function* () {}()), // GeneratorPrototype's prototype chain
    proto([][Symbol.iterator]()), // ArrayIteratorPrototype
    proto(proto([][Symbol.iterator]())), // IteratorPrototype
    proto(''[Symbol.iterator]()), // StringIteratorPrototype
    proto(new Map()[Symbol.iterator]()),
    proto(new Set()[Symbol.iterator]()),
    proto(/e/[Symbol.matchAll]('')), // RegExpStringIteratorPrototype
    proto(Uint8Array), // TypedArray
    Object.getOwnPropertyDescriptor(Function.prototype, 'caller')!.get!, // ThrowTypeError
  ];
}

/** The intrinsics reachable as globals (ECMAScript's, and the two namespaces V8 adds). */
const GLOBAL_INTRINSICS = [
  'Object', 'Function', 'Array', 'Boolean', 'Symbol', 'Error', 'AggregateError', 'EvalError', 'RangeError', 'ReferenceError',
  'SyntaxError', 'TypeError', 'URIError', 'Number', 'BigInt', 'Math', 'Date', 'String', 'RegExp', 'Int8Array', 'Uint8Array',
  'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array',
  'BigUint64Array', 'Map', 'Set', 'WeakMap', 'WeakSet', 'ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Atomics', 'JSON', 'WeakRef',
  'FinalizationRegistry', 'Promise', 'Reflect', 'Proxy', 'Intl', 'WebAssembly', 'eval', 'isFinite', 'isNaN', 'parseFloat', 'parseInt',
  'decodeURI', 'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'unescape',
] as const;

let lockedDown = false;

/** Locks this realm down (once; later calls do nothing). Call before any of its objects reach an extension. */
export function lockDownHostRealm(): void {
  if (lockedDown) return;
  lockedDown = true;
  const hidden = hiddenIntrinsics();
  for (const functionPrototype of [Function.prototype, hidden[0]!, hidden[1]!, hidden[2]!]) {
    Object.defineProperty(functionPrototype, 'constructor', { value: refuseCompilation, writable: false, enumerable: false, configurable: false });
  }
  const roots = [...GLOBAL_INTRINSICS.map((name) => (globalThis as Record<string, unknown>)[name]).filter((value) => value !== undefined), ...hidden] as object[];
  // Prototypes first: their data properties become accessors that let a derived object override them.
  for (const root of roots) {
    const prototype = typeof root === 'function' ? (root as { prototype?: unknown }).prototype : root;
    if (prototype && (typeof prototype === 'object' || typeof prototype === 'function')) allowDerivedOverrides(prototype);
  }
  allowDerivedOverrides(Object.prototype);
  allowDerivedOverrides(Function.prototype);
  deepFreeze(roots);
}

/**
 * ES5's "override mistake": once a prototype's property is frozen, `object.prop = value` fails
 * for every object inheriting it, though the object has no such property of its own. Such
 * assignments are everyday code (`this.name = 'AbortError'` in an Error subclass), so each data
 * property becomes an accessor: read, it is the value; assigned on another object, it defines
 * that object's own property; assigned on the prototype itself, it fails as a frozen one does.
 */
function allowDerivedOverrides(prototype: object): void {
  for (const key of Reflect.ownKeys(prototype)) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, key)!;
    if (!('value' in descriptor) || !descriptor.configurable) continue;
    const value: unknown = descriptor.value;
    Object.defineProperty(prototype, key, {
      get: () => value,
      set(this: object, assigned: unknown) {
        if (this === prototype) throw new TypeError(`Cannot assign to read only property '${String(key)}' of a frozen prototype`);
        if (Object.hasOwn(this, key)) (this as Record<PropertyKey, unknown>)[key] = assigned;
        else Object.defineProperty(this, key, { value: assigned, writable: true, enumerable: true, configurable: true });
      },
      enumerable: descriptor.enumerable ?? false,
      configurable: false,
    });
  }
}

/** Freezes `roots` and everything reachable from them through properties, accessors and prototypes. */
function deepFreeze(roots: object[]): void {
  const seen = new WeakSet<object>();
  const queue: object[] = [...roots];
  while (queue.length > 0) {
    const value = queue.pop()!;
    if (seen.has(value)) continue;
    seen.add(value);
    Object.freeze(value);
    const next = (candidate: unknown) => {
      if ((typeof candidate === 'object' && candidate !== null) || typeof candidate === 'function') queue.push(candidate);
    };
    next(Object.getPrototypeOf(value));
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key)!;
      if ('value' in descriptor) next(descriptor.value);
      else {
        next(descriptor.get);
        next(descriptor.set);
      }
    }
  }
}
