// What an extension reaches for and wrtui does not have is missing (`undefined`), as a namespace
// without its permission is in a browser, and the journal says once, by name, what it tried to use:
// `chrome.tabs`, `chrome.runtime.connect`, … A Proxy over each namespace object notices.
import type { Bridge } from './bridge.js';

// Names probed by language machinery and libraries, not by an extension's intent.
const NOT_AN_API = new Set(['then', 'toJSON', 'constructor', 'inspect', 'nodeType', '$$typeof', 'asymmetricMatch', 'prototype', 'valueOf', 'toString']);

/** `needs`: namespaces wrtui has that the manifest did not grant, by the permission each needs. */
export function guardApi<T extends object>(path: string, target: T, bridge: Bridge, reported: Set<string>, needs: Readonly<Record<string, string>> = {}): T {
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(target))) {
    // Nested namespaces (chrome.storage.local) are guarded too; events, functions and getters
    // (runtime.lastError) are not namespaces.
    if ('value' in descriptor && isNamespace(descriptor.value)) (target as Record<string, unknown>)[key] = guardApi(`${path}.${key}`, descriptor.value, bridge, reported);
  }
  return new Proxy(target, {
    get(object, property, receiver) {
      if (typeof property === 'symbol' || property in object || NOT_AN_API.has(property)) return Reflect.get(object, property, receiver);
      const name = `${path}.${property}`;
      if (!reported.has(name)) {
        reported.add(name);
        const permission = needs[property];
        bridge.post(permission === undefined ? ['missing', name] : ['missing', name, permission]);
      }
      return undefined;
    },
  });
}

function isNamespace(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  // An event object (addListener …) is a leaf.
  return typeof (value as { addListener?: unknown }).addListener !== 'function';
}
