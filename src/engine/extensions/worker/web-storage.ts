// localStorage and sessionStorage of a background page (runs inside the extension's realm), as a
// window has them: synchronous, strings only, items reachable as properties
// (`localStorage.theme = 'dark'`). MV2 extensions keep their settings there and read them at
// start-up. localStorage persists per extension: the worker starts with the items the host kept,
// and every change is sent to the host (batched per turn), which writes them to
// `<state-dir>/extensions/<id>/local-storage.json` (0600). sessionStorage lives as long as the worker.
// A service worker has neither (in Chrome neither).

/** What one storage area may hold, in UTF-16 code units of keys and values (wrtui's limit: 5 M, 10 MiB). */
export const WEB_STORAGE_QUOTA = 5 * 1024 * 1024;

export type WebStorageChange = ['set', string, string] | ['remove', string] | ['clear'];

/** The Storage interface's constructor: `localStorage instanceof Storage`, never `new Storage()`. */
export function Storage(): never {
  throw new TypeError('Illegal constructor');
}
Object.defineProperty(Storage.prototype, Symbol.toStringTag, { value: 'Storage', configurable: true });

/** A Storage over `initial`, telling `changed` (if given) what changes. */
export function createWebStorage(initial: Record<string, string>, changed?: (change: WebStorageChange) => void): object {
  const items = new Map<string, string>(Object.entries(initial));
  let used = 0;
  for (const [key, value] of items) used += key.length + value.length;
  const methods = {
    getItem(key: unknown): string | null {
      return items.get(String(key)) ?? null;
    },
    setItem(key: unknown, value: unknown): void {
      const name = String(key);
      const text = String(value);
      const before = items.get(name);
      const after = used - (before === undefined ? 0 : name.length + before.length) + name.length + text.length;
      if (after > WEB_STORAGE_QUOTA) throw new DOMException(`Failed to execute 'setItem' on 'Storage': Setting the value of '${name}' exceeded the quota.`, 'QuotaExceededError');
      if (before === text) return;
      items.set(name, text);
      used = after;
      changed?.(['set', name, text]);
    },
    removeItem(key: unknown): void {
      const name = String(key);
      const before = items.get(name);
      if (before === undefined) return;
      items.delete(name);
      used -= name.length + before.length;
      changed?.(['remove', name]);
    },
    clear(): void {
      if (items.size === 0) return;
      items.clear();
      used = 0;
      changed?.(['clear']);
    },
    key(index: unknown): string | null {
      return [...items.keys()][Number(index)] ?? null;
    },
    get length(): number {
      return items.size;
    },
  };
  const target = Object.create(Storage.prototype) as object;
  const own = (property: string | symbol): property is string => typeof property === 'string' && items.has(property);
  return new Proxy(target, {
    get: (_, property) => (property in methods ? Reflect.get(methods, property) : own(property) ? items.get(property) : Reflect.get(target, property)),
    set: (_, property, value) => {
      if (typeof property === 'symbol' || property in methods) return false;
      methods.setItem(property, value);
      return true;
    },
    has: (_, property) => property in methods || own(property) || Reflect.has(target, property),
    deleteProperty: (_, property) => {
      if (typeof property === 'string') methods.removeItem(property);
      return true;
    },
    ownKeys: () => [...items.keys()],
    getOwnPropertyDescriptor: (_, property) => (own(property) ? { value: items.get(property), writable: true, enumerable: true, configurable: true } : undefined),
    defineProperty: (_, property, descriptor) => {
      if (typeof property === 'symbol' || !('value' in descriptor)) return false;
      methods.setItem(property, descriptor.value);
      return true;
    },
  });
}
