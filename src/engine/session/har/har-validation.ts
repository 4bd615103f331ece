// Reading untrusted HAR JSON with errors that say where: `log.entries[3].request.url: missing`.
// Required means "required for replay"; what HAR 1.2 requires but replay can do without is
// optional here (browsers' exports differ, and hand-edited files lose fields).

export class HarFormatError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'HarFormatError';
  }
}

export type JsonObject = Record<string, unknown>;

export function objectAt(value: unknown, path: string): JsonObject {
  if (value === undefined) throw new HarFormatError(path, 'missing');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new HarFormatError(path, `not an object (${describe(value)})`);
  return value as JsonObject;
}

export function optionalObjectAt(value: unknown, path: string): JsonObject | undefined {
  return value === undefined || value === null ? undefined : objectAt(value, path);
}

export function arrayAt(value: unknown, path: string): unknown[] {
  if (value === undefined) throw new HarFormatError(path, 'missing');
  if (!Array.isArray(value)) throw new HarFormatError(path, `not an array (${describe(value)})`);
  return value;
}

export function optionalArrayAt(value: unknown, path: string): unknown[] {
  return value === undefined || value === null ? [] : arrayAt(value, path);
}

export function stringAt(value: unknown, path: string): string {
  if (value === undefined) throw new HarFormatError(path, 'missing');
  if (typeof value !== 'string') throw new HarFormatError(path, `not a string (${describe(value)})`);
  return value;
}

export function optionalStringAt(value: unknown, path: string): string | undefined {
  return value === undefined || value === null ? undefined : stringAt(value, path);
}

export function numberAt(value: unknown, path: string): number {
  if (value === undefined) throw new HarFormatError(path, 'missing');
  // Some exporters write numbers as strings ("200").
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || Number.isNaN(number)) throw new HarFormatError(path, `not a number (${describe(value)})`);
  return number;
}

export function optionalNumberAt(value: unknown, path: string): number | undefined {
  return value === undefined || value === null ? undefined : numberAt(value, path);
}

/** Epoch ms of an ISO 8601 date (with any offset). */
export function dateAt(value: unknown, path: string): number {
  const text = stringAt(value, path);
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw new HarFormatError(path, `not a date (${JSON.stringify(text)})`);
  return time;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value === 'object' ? 'an object' : String(value);
}
