// What a differential test says when wrtui and a real browser disagree. The whole list is still
// shown (vitest's diff), but a line above it names the browser's exact version and the first thing
// that differs, field by field, so a browser that moved (a new ESR, a new Chromium) is seen as such
// at a glance instead of in a diff of forty JSON lines.
import { execFileSync } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';

const versions = new Map<string, string>();

/** `binary --version` (`Mozilla Firefox 153.8.0esr`, `Chromium 156.0.…`), asked once per run. */
export function browserVersion(binary: string): string {
  let version = versions.get(binary);
  if (version === undefined) {
    try {
      version = execFileSync(binary, ['--version'], { encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch (error) {
      version = `${binary} (its version unknown: ${(error as Error).message.split('\n')[0]})`;
    }
    versions.set(binary, version);
  }
  return version;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

function parsed(line: unknown): unknown {
  if (typeof line !== 'string' || !/^[[{]/.test(line)) return line;
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return line;
  }
}

/** What an item is, for a reader: its event, method and path where it has them. */
function label(item: unknown): string {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return show(item);
  const record = item as Record<string, unknown>;
  const parts = ['event', 'method', 'path', 'url', 'type'].map((key) => record[key]).filter((value) => typeof value === 'string');
  return parts.length > 0 ? parts.join(' ') : show(item);
}

/** Two arrays of names or values: what one has that the other lacks. */
function arrayChange(oracle: unknown[], ours: unknown[]): string {
  const oracleKeys = oracle.map((value) => JSON.stringify(value));
  const ourKeys = ours.map((value) => JSON.stringify(value));
  const extra = ourKeys.filter((key) => !oracleKeys.includes(key));
  const missing = oracleKeys.filter((key) => !ourKeys.includes(key));
  if (extra.length === 0 && missing.length === 0) return `the same items in another order: browser ${show(oracle)}, wrtui ${show(ours)}`;
  return [extra.length > 0 && `wrtui has ${extra.join(', ')} more`, missing.length > 0 && `wrtui lacks ${missing.join(', ')}`].filter(Boolean).join('; ');
}

/** The first field (depth first, keys in order) where `oracle` and `ours` differ, or undefined. */
function firstField(oracle: unknown, ours: unknown, at: string): string | undefined {
  if (isDeepStrictEqual(oracle, ours)) return undefined;
  if (Array.isArray(oracle) && Array.isArray(ours)) return `${at || 'the list'}: ${arrayChange(oracle, ours)}`;
  const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
  if (isRecord(oracle) && isRecord(ours)) {
    for (const key of [...new Set([...Object.keys(oracle), ...Object.keys(ours)])].sort()) {
      const found = firstField(oracle[key], ours[key], at ? `${at}.${key}` : key);
      if (found) return found;
    }
  }
  return `${at || 'the value'}: browser ${show(oracle)}, wrtui ${show(ours)}`;
}

/** How many top-level fields two records differ in (to pair a record with its nearest twin). */
function distance(a: unknown, b: unknown): number {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return isDeepStrictEqual(a, b) ? 0 : 1_000;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  let count = 0;
  for (const key of keys) if (!isDeepStrictEqual(left[key], right[key])) count++;
  return count;
}

/**
 * The first difference between the browser's `oracle` and wrtui's `ours`, in words; undefined when
 * they are equal. Lists are compared as lists of records (JSON lines are read back): the first
 * record the browser has and wrtui lacks is paired with wrtui's nearest record and the first field
 * they differ in is named.
 */
export function firstDifference(oracle: unknown, ours: unknown): string | undefined {
  if (isDeepStrictEqual(oracle, ours)) return undefined;
  if (!Array.isArray(oracle) || !Array.isArray(ours)) return firstField(oracle, ours, '');
  const theirs = oracle.map(parsed);
  const mine = ours.map(parsed);
  const unmatchedMine = [...mine];
  const lacking: unknown[] = [];
  for (const item of theirs) {
    const index = unmatchedMine.findIndex((candidate) => isDeepStrictEqual(candidate, item));
    if (index >= 0) unmatchedMine.splice(index, 1);
    else lacking.push(item);
  }
  const first = lacking[0];
  if (first === undefined) {
    if (unmatchedMine.length > 0) return `wrtui has ${unmatchedMine.length} more: ${label(unmatchedMine[0])} first`;
    return `the same ${theirs.length} items in another order`;
  }
  const nearest = unmatchedMine.reduce<{ item: unknown; score: number } | undefined>((best, item) => {
    const score = distance(first, item);
    return best && best.score <= score ? best : { item, score };
  }, undefined);
  const count = lacking.length === 1 ? '' : ` (${lacking.length} records differ)`;
  if (!nearest || nearest.score >= 1_000) return `${label(first)}: the browser has it, wrtui has nothing like it${count}`;
  return `${label(first)}: ${firstField(first, nearest.item, '')}${count}`;
}

/**
 * Asserts that wrtui agrees with the browser. On a failure the message's first line names the
 * browser (`Mozilla Firefox 153.8.0esr`) and the first difference; the full diff follows.
 */
export function expectAgreement(browser: string, what: string, ours: unknown, oracle: unknown): void {
  const difference = firstDifference(oracle, ours);
  expect(ours, difference && `${what}: wrtui and ${browser} differ; first: ${difference}`).toEqual(oracle);
}
