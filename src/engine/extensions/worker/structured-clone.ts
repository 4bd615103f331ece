// The structured clone IndexedDB stores and hands back (runs inside the extension's realm, in the
// IndexedDB script): every object it makes is of the extension's realm, as a browser's is. Node's
// structuredClone would make them in wrtui's own realm (whose intrinsics are frozen): a record read
// back would fail `record instanceof Object` and `Object.getPrototypeOf(record) === Object.prototype`,
// which libraries check. What it clones, as the HTML standard's StructuredSerializeForStorage does:
// primitives; Boolean, Number, BigInt and String objects; Date; RegExp (without lastIndex);
// ArrayBuffer, typed arrays and DataView (one buffer shared by two views stays shared); Map; Set;
// Error (name, message); arrays and plain objects (own enumerable properties, read through their
// getters; a class instance becomes a plain object); Blob and File as they are (they cannot
// change). Shared and cyclic references are kept. A function, a symbol, a WeakMap, a Promise,
// a SharedArrayBuffer … throw a DataCloneError. Kinds are told apart by their internal slots, not
// `instanceof`, so values of another realm (the snapshot the worker restores) clone alike.

const uncurry = <T extends unknown[], R>(fn: (this: unknown, ...args: T) => R) => (self: unknown, ...args: T): R => Reflect.apply(fn, self, args);
const getter = (prototype: object, name: PropertyKey) => uncurry(Object.getOwnPropertyDescriptor(prototype, name)!.get as () => unknown);

const dateTime = uncurry(Date.prototype.getTime);
const regexpSource = getter(RegExp.prototype, 'source');
const regexpFlags = getter(RegExp.prototype, 'flags');
const bufferLength = getter(ArrayBuffer.prototype, 'byteLength');
const sharedBufferLength = typeof SharedArrayBuffer === 'function' ? getter(SharedArrayBuffer.prototype, 'byteLength') : undefined;
const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
const typedArrayName = getter(typedArrayPrototype, Symbol.toStringTag) as (view: unknown) => string | undefined;
const typedArrayBuffer = getter(typedArrayPrototype, 'buffer') as (view: unknown) => ArrayBuffer;
const typedArrayOffset = getter(typedArrayPrototype, 'byteOffset') as (view: unknown) => number;
const typedArrayLength = getter(typedArrayPrototype, 'length') as (view: unknown) => number;
const dataViewBuffer = getter(DataView.prototype, 'buffer') as (view: unknown) => ArrayBuffer;
const dataViewOffset = getter(DataView.prototype, 'byteOffset') as (view: unknown) => number;
const dataViewLength = getter(DataView.prototype, 'byteLength') as (view: unknown) => number;
const mapSize = getter(Map.prototype, 'size');
const mapEntries = uncurry(Map.prototype.entries) as (map: unknown) => IterableIterator<[unknown, unknown]>;
const setSize = getter(Set.prototype, 'size');
const setValues = uncurry(Set.prototype.values) as (set: unknown) => IterableIterator<unknown>;
const booleanValue = uncurry(Boolean.prototype.valueOf);
const numberValue = uncurry(Number.prototype.valueOf);
const stringValue = uncurry(String.prototype.valueOf);
const bigintValue = uncurry(BigInt.prototype.valueOf);
const objectTag = uncurry(Object.prototype.toString);
const sliceBuffer = uncurry(ArrayBuffer.prototype.slice) as (buffer: unknown, start?: number, end?: number) => ArrayBuffer;

const TYPED_ARRAYS: Record<string, new (buffer: ArrayBuffer, offset: number, length: number) => ArrayBufferView> = {
  Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array,
};
const ERROR_NAMES = new Set(['Error', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError', 'TypeError', 'URIError']);

/** Whether `test(value)` holds without throwing: how an internal slot is found (the accessor refuses other objects). */
function has(test: (value: unknown) => unknown, value: unknown): boolean {
  try {
    test(value);
    return true;
  } catch {
    return false;
  }
}

const cannotClone = (what: string) => new DOMException(`${what} could not be cloned.`, 'DataCloneError');

/** Objects a browser refuses to store (by their tag). */
const REFUSED = new Set(['Symbol', 'WeakMap', 'WeakSet', 'WeakRef', 'Promise', 'FinalizationRegistry', 'SharedArrayBuffer']);
/** What a tag claims, checked against the internal slot it needs (a tag alone can be set by anyone). */
const SLOT_CHECKS: Record<string, (value: unknown) => unknown> = {
  Date: dateTime,
  ArrayBuffer: bufferLength,
  Map: mapSize,
  Set: setSize,
  RegExp: regexpSource,
  Boolean: booleanValue,
  Number: numberValue,
  String: stringValue,
  BigInt: bigintValue,
};

/**
 * The kind of an object (undefined: an ordinary object, cloned property by property). Its tag
 * (Object.prototype.toString, no exception thrown) says which internal slot to look for, and that
 * slot's accessor confirms it: cheap for the plain objects that most records are made of.
 */
function kindOf(value: object, isBlob: (value: object) => boolean): string | undefined {
  if (Array.isArray(value)) return 'Array';
  if (ArrayBuffer.isView(value)) return typedArrayName(value) ?? 'DataView';
  const tag = objectTag(value).slice(8, -1);
  if (tag === 'Object') return undefined;
  const check = SLOT_CHECKS[tag];
  if (check) return has(check, value) && !(tag === 'RegExp' && value === RegExp.prototype) ? tag : undefined;
  if (tag === 'Error') return 'Error';
  if (REFUSED.has(tag)) return sharedBufferLength && tag === 'SharedArrayBuffer' && !has(sharedBufferLength, value) ? undefined : 'refused';
  if (isBlob(value)) return 'Blob';
  return undefined;
}

/**
 * Makes a structured clone of `value` in this realm; `isBlob` tells a Blob (kept as it is), and a
 * clone that holds one is added to `blobHolders` (wrtui does not write Blobs to disk).
 */
export function createStructuredClone(isBlob: (value: object) => boolean, blobHolders?: WeakSet<object>): <T>(value: T) => T {
  return function structuredClone<T>(value: T): T {
    const memory = new Map<object, unknown>();
    let sawBlob = false;
    const clone = (input: unknown): unknown => {
      if (typeof input === 'function') throw cannotClone(`function ${(input as { name?: string }).name || ''}`.trim());
      if (typeof input === 'symbol') throw cannotClone(String(input));
      if (typeof input !== 'object' || input === null) return input;
      const seen = memory.get(input);
      if (seen !== undefined) return seen;
      const kind = kindOf(input, isBlob);
      const remember = <V>(made: V): V => {
        memory.set(input, made);
        return made;
      };
      switch (kind) {
        case 'Date':
          return remember(new Date(dateTime(input)));
        case 'RegExp':
          return remember(new RegExp(regexpSource(input) as string, regexpFlags(input) as string));
        case 'ArrayBuffer':
          return remember(sliceBuffer(input));
        case 'Boolean':
          return remember(Object(booleanValue(input)));
        case 'Number':
          return remember(Object(numberValue(input)));
        case 'String':
          return remember(Object(stringValue(input)));
        case 'BigInt':
          return remember(Object(bigintValue(input)));
        case 'Blob':
          sawBlob = true;
          return remember(input);
        case 'DataView': {
          const buffer = clone(dataViewBuffer(input)) as ArrayBuffer;
          return remember(new DataView(buffer, dataViewOffset(input), dataViewLength(input)));
        }
        case 'Map': {
          const map = remember(new Map());
          for (const [key, item] of [...mapEntries(input)]) map.set(clone(key), clone(item));
          return map;
        }
        case 'Set': {
          const set = remember(new Set());
          for (const item of [...setValues(input)]) set.add(clone(item));
          return set;
        }
        case 'Error': {
          const name = (input as Error).name;
          const message = Object.getOwnPropertyDescriptor(input, 'message');
          const Made = ERROR_NAMES.has(name) ? (globalThis as unknown as Record<string, ErrorConstructor>)[name]! : Error;
          return remember(message && 'value' in message ? new Made(String(message.value)) : new Made());
        }
        case 'refused':
          throw cannotClone(objectTag(input));
        case undefined:
        case 'Array':
          break;
        default: {
          const Typed = TYPED_ARRAYS[kind];
          if (!Typed) throw cannotClone(objectTag(input));
          const buffer = clone(typedArrayBuffer(input)) as ArrayBuffer;
          return remember(new Typed(buffer, typedArrayOffset(input), typedArrayLength(input)));
        }
      }
      const out = remember(kind === 'Array' ? new Array((input as unknown[]).length) : {}) as Record<string, unknown>;
      for (const key of Object.keys(input)) {
        const item = clone((input as Record<string, unknown>)[key]);
        if (key === '__proto__') Object.defineProperty(out, key, { value: item, writable: true, enumerable: true, configurable: true });
        else out[key] = item;
      }
      return out;
    };
    const result = clone(value);
    if (sawBlob && blobHolders && typeof result === 'object' && result !== null) blobHolders.add(result);
    return result as T;
  };
}
