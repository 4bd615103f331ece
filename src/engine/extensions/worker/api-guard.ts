// What an extension reaches for and wrtui does not have is missing (`undefined`), as a namespace
// without its permission is in a browser, and the journal says once, by name, what it tried to use:
// `chrome.tabs`, `chrome.runtime.connect`, … A Proxy over each namespace object notices.
import type { Bridge } from './bridge.js';

// Names probed by language machinery and libraries, not by an extension's intent.
const NOT_AN_API = new Set(['then', 'toJSON', 'constructor', 'inspect', 'nodeType', '$$typeof', 'asymmetricMatch', 'prototype', 'valueOf', 'toString']);

/** `needs`: namespaces wrtui has that the manifest did not grant, by the permission each needs. */
export function guardApi<T extends object>(path: string, target: T, bridge: Bridge, reported: Set<string>, needs: Readonly<Record<string, string>> = {}): T {
  // Nested namespaces (chrome.storage.local, runtime.OnInstalledReason) are guarded too, in this
  // Proxy, not in `target`: one namespace object may serve both `chrome` and `browser`. Events,
  // functions and getters (runtime.lastError) are not namespaces.
  const nested = new Map<string, unknown>();
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(target))) {
    if ('value' in descriptor && isNamespace(descriptor.value)) nested.set(key, guardApi(`${path}.${key}`, descriptor.value, bridge, reported));
  }
  return new Proxy(target, {
    get(object, property, receiver) {
      if (typeof property === 'string' && nested.has(property)) return nested.get(property);
      if (typeof property === 'symbol' || property in object || NOT_AN_API.has(property)) return Reflect.get(object, property, receiver);
      const name = `${path}.${property}`;
      if (!reported.has(name)) {
        reported.add(name);
        const permission = needs[property];
        bridge.post(permission === undefined ? ['missing', name] : ['missing', name, permission]);
      }
      return undefined;
    },
    // An extension may replace a namespace with its own (Proxy Switcher assigns `chrome.proxy` in
    // Firefox, as browsers allow): from then on the name is the extension's object, unguarded.
    set(object, property, value, receiver) {
      if (typeof property === 'string') nested.delete(property);
      return Reflect.set(object, property, value, receiver);
    },
    defineProperty(object, property, descriptor) {
      if (typeof property === 'string') nested.delete(property);
      return Reflect.defineProperty(object, property, descriptor);
    },
    deleteProperty(object, property) {
      if (typeof property === 'string') nested.delete(property);
      return Reflect.deleteProperty(object, property);
    },
  });
}

function isNamespace(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  // An event object (addListener …) is a leaf; `in` asks without reading (and reporting) it. So is
  // an enum (runtime.OnInstalledReason: only strings and numbers): it stays a plain object, which
  // an extension may pass back into a call (a Proxy cannot be cloned into the message).
  if ('addListener' in value) return false;
  return Object.values(value).some((member) => typeof member === 'function' || (typeof member === 'object' && member !== null));
}
