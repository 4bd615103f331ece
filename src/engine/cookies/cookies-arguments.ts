// Checks the arguments of a cookies call against its schema, as the browser's bindings do before
// the call reaches the browser: a missing required property, a wrong type or an unknown property
// throws a TypeError at the call site (Chrome and Firefox both throw synchronously here; these are
// programming errors, not runtime failures, so they are not reported through lastError or a
// rejected Promise). Messages follow Chrome's bindings (extensions/renderer/bindings).
import { SAME_SITE_STATUSES } from '../types.js';

type PropertyType = 'string' | 'boolean' | 'number';

interface PropertySpec {
  readonly type: PropertyType;
  readonly required: boolean;
  readonly values?: readonly string[];
}

type DetailsSchema = Readonly<Record<string, PropertySpec>>;

const required = (type: PropertyType): PropertySpec => ({ type, required: true });
const optional = (type: PropertyType, values?: readonly string[]): PropertySpec =>
  values ? { type, required: false, values } : { type, required: false };

/** The details each function accepts (spec §4.1–4.4, plus Chrome's sameSite for set). */
const SCHEMAS = {
  get: { url: required('string'), name: required('string'), storeId: optional('string') },
  getAll: {
    url: optional('string'),
    name: optional('string'),
    domain: optional('string'),
    path: optional('string'),
    secure: optional('boolean'),
    session: optional('boolean'),
    storeId: optional('string'),
  },
  set: {
    url: required('string'),
    name: optional('string'),
    value: optional('string'),
    domain: optional('string'),
    path: optional('string'),
    secure: optional('boolean'),
    httpOnly: optional('boolean'),
    expirationDate: optional('number'),
    storeId: optional('string'),
    sameSite: optional('string', SAME_SITE_STATUSES),
  },
  remove: { url: required('string'), name: required('string'), storeId: optional('string') },
} satisfies Record<string, DetailsSchema>;

export type CookiesFunctionWithDetails = keyof typeof SCHEMAS;

const SIGNATURES: Record<CookiesFunctionWithDetails | 'getAllCookieStores', string> = {
  get: 'cookies.get(object details, optional function callback)',
  getAll: 'cookies.getAll(object details, optional function callback)',
  set: 'cookies.set(object details, optional function callback)',
  remove: 'cookies.remove(object details, optional function callback)',
  getAllCookieStores: 'cookies.getAllCookieStores(optional function callback)',
};

export type Callback = (...results: never[]) => void;

export interface Invocation<D> {
  /** A fresh copy holding only the schema's properties; null and undefined values left out. */
  details: D;
  callback: Callback | undefined;
}

/**
 * Checks `(details, callback?)` (`(details)` alone for the Promise style); throws a TypeError in
 * Chrome's words when the arguments do not fit.
 */
export function checkDetailsInvocation<D>(fn: CookiesFunctionWithDetails, args: readonly unknown[], acceptsCallback: boolean): Invocation<D> {
  const [details, callback, ...extra] = trimTrailingUndefined(args);
  if (!fitsCallback(callback, extra, acceptsCallback)) throw invocationError(fn, 'No matching signature.');
  const problem = detailsProblem(SCHEMAS[fn], details);
  if (problem) throw invocationError(fn, `Error at parameter 'details': ${problem}`);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(SCHEMAS[fn])) {
    const value = (details as Record<string, unknown>)[key];
    if (value !== undefined && value !== null) copy[key] = value;
  }
  return { details: copy as D, callback: callback as Callback | undefined };
}

/** Checks `(callback?)` (no arguments for the Promise style). */
export function checkCallbackInvocation(fn: 'getAllCookieStores', args: readonly unknown[], acceptsCallback: boolean): Callback | undefined {
  const [callback, ...extra] = trimTrailingUndefined(args);
  if (!fitsCallback(callback, extra, acceptsCallback)) throw invocationError(fn, 'No matching signature.');
  return callback as Callback | undefined;
}

function fitsCallback(callback: unknown, extra: readonly unknown[], acceptsCallback: boolean): boolean {
  if (extra.length > 0) return false;
  return callback === undefined || (acceptsCallback && typeof callback === 'function');
}

/** For event methods: `cookies.onChanged.addListener(function callback)`. */
export function checkListener(method: string, listener: unknown): asserts listener is (...args: never[]) => unknown {
  if (typeof listener !== 'function') {
    throw new TypeError(`Error in invocation of cookies.onChanged.${method}(function callback): No matching signature.`);
  }
}

function detailsProblem(schema: DetailsSchema, details: unknown): string | undefined {
  if (typeof details !== 'object' || details === null || Array.isArray(details)) {
    return `Invalid type: expected object, found ${typeName(details)}.`;
  }
  const record = details as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(key in schema)) return `Unexpected property: '${key}'.`;
  }
  for (const [key, spec] of Object.entries(schema)) {
    const value = record[key];
    if (value === undefined || value === null) {
      if (spec.required) return `Missing required property '${key}'.`;
      continue;
    }
    if (typeof value !== spec.type) {
      return `Error at property '${key}': Invalid type: expected ${spec.type}, found ${typeName(value)}.`;
    }
    if (spec.values && !spec.values.includes(value as string)) {
      return `Error at property '${key}': Value must be one of ${spec.values.join(', ')}.`;
    }
  }
  return undefined;
}

function invocationError(fn: keyof typeof SIGNATURES, message: string): TypeError {
  return new TypeError(`Error in invocation of ${SIGNATURES[fn]}: ${message}`);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function trimTrailingUndefined(args: readonly unknown[]): unknown[] {
  let length = args.length;
  while (length > 0 && args[length - 1] === undefined) length--;
  return args.slice(0, length);
}
