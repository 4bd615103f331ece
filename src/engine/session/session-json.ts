// One JSON value per line, as session files and `wrtui headless --json` write them. JSON has no
// bytes: a Uint8Array or ArrayBuffer becomes {"base64": "…"} (the convention of src/app/json-line.ts,
// so a headless NDJSON capture reads back like a session file), and reading turns every object
// that is exactly {"base64": string} back into bytes.

/** Serialises `value` on one line; bytes become {"base64": "…"}. */
export function encodeLine(value: unknown): string {
  // A replacer takes JSON.stringify off its fast path (it calls back for every key): most entries
  // hold no bytes and do without it. Recording and `headless --json` encode every journal entry.
  return holdsBytes(value, 0) ? JSON.stringify(value, bytesAsBase64) : JSON.stringify(value);
}

/** Whether `value` may hold bytes (or anything the replacer must see): true when unsure. */
function holdsBytes(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  // Deep or cyclic: the replacer's path says what JSON.stringify says about it.
  if (depth > 32 || value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsBytes(item, depth + 1)) return true;
    return false;
  }
  // toJSON's result is not looked into here.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return true;
  for (const key in value) if (holdsBytes((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

// The holder's own value, not `item`: JSON.stringify calls toJSON first, and a Node Buffer's
// toJSON makes {"type":"Buffer","data":[…]}, three to four times the size and not read back as bytes.
function bytesAsBase64(this: unknown, key: string, item: unknown): unknown {
  const original = (this as Record<string, unknown>)[key];
  if (original instanceof ArrayBuffer) return { base64: Buffer.from(original).toString('base64') };
  if (ArrayBuffer.isView(original)) return { base64: Buffer.from(original.buffer, original.byteOffset, original.byteLength).toString('base64') };
  return item;
}

/** Parses one line; {"base64": "…"} objects become Uint8Arrays. Throws SyntaxError for bad JSON. */
export function decodeLine(line: string): unknown {
  // A reviver visits every value: only lines that hold bytes pay for it.
  if (!line.includes('"base64"')) return JSON.parse(line);
  return JSON.parse(line, (_key, item: unknown) => (isBase64Holder(item) ? new Uint8Array(Buffer.from(item.base64, 'base64')) : item));
}

function isBase64Holder(item: unknown): item is { base64: string } {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return false;
  const keys = Object.keys(item);
  return keys.length === 1 && keys[0] === 'base64' && typeof (item as { base64: unknown }).base64 === 'string';
}

/** Bytes read back from a line (Uint8Array), or undefined when `value` holds none. */
export function bytesOf(value: unknown): Uint8Array | undefined {
  return value instanceof Uint8Array ? value : undefined;
}

/** An ArrayBuffer holding exactly these bytes (requestBody.raw[].bytes is an ArrayBuffer, §2.9). */
export function arrayBufferOf(bytes: Uint8Array): ArrayBuffer {
  // A copy of exactly these bytes: a Node Buffer's slice() is a view, its .buffer possibly Node's shared pool.
  return new Uint8Array(bytes).buffer;
}
