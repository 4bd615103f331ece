// Chrome evaluates regexFilter with RE2, which has no lookaround, no backreferences, no possessive
// or atomic groups, and at most 1000 repetitions in a counted repeat; it also refuses a regex whose
// compiled program exceeds 2 KB ("memoryLimitExceeded"). wrtui runs the regex with JavaScript's
// engine, so it first refuses what RE2 refuses (checked against Chromium 156's isRegexSupported:
// `(?=a)b`, `a(b)\1` and `[a-z]{1000}{1000}` are syntax errors there). The memory limit is
// estimated from the program's size, calibrated against Chromium's answers (programUnits).

/** When supported, the regex as JavaScript runs it. */
import { setFlagsFromString } from 'node:v8';

export type RegexSupport = { isSupported: true; regex: RegExp } | { isSupported: false; reason: 'syntaxError' | 'memoryLimitExceeded'; detail: string };

/** RE2's program in Chrome (2 KB of memory) holds this many instructions (measured: see programUnits). */
const MAX_PROGRAM_UNITS = 112;

const RE2_REJECTS: readonly [RegExp, string][] = [
  [/\(\?<?[=!]/, 'lookahead and lookbehind are not supported by RE2'],
  [/\(\?>/, 'atomic groups are not supported by RE2'],
  [/\\[1-9]|\\k</, 'backreferences are not supported by RE2'],
  [/[*+?}][*+]/, 'a repetition of a repetition (or a possessive quantifier) is not supported by RE2'],
  [/\\[ZG]/, '\\Z and \\G are not supported by RE2 (\\z is)'],
];

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alpha: 'A-Za-z', digit: '0-9', alnum: '0-9A-Za-z', upper: 'A-Z', lower: 'a-z', space: '\\t\\n\\v\\f\\r ', xdigit: '0-9A-Fa-f',
  word: '0-9A-Za-z_', punct: '!-\\/:-@\\[-`{-~', blank: '\\t ', cntrl: '\\x00-\\x1f\\x7f', print: ' -~', graph: '!-~', ascii: '\\x00-\\x7f',
};

/**
 * RE2's syntax in JavaScript's: `(?i)` at the start becomes the flag, `(?P<name>` a named group,
 * `\z` the end, `\Q…\E` escaped text, `[[:alpha:]]` a range, `\pL` a Unicode property (with the u flag).
 */
export function re2ToJs(source: string, caseSensitive: boolean): { source: string; flags: string } {
  let out = source.replace(/\(\?P</g, '(?<').replace(/\\Q(.*?)(?:\\E|$)/g, (_all, text: string) => text.replace(/[\\^$.*+?()[\]{}|\/-]/g, '\\$&'));
  out = out.replace(/\[:(\w+):\]/g, (all, name: string) => POSIX_CLASSES[name] ?? all).replace(/\\z/g, '$');
  let flags = caseSensitive ? '' : 'i';
  if (out.startsWith('(?i)')) {
    out = out.slice(4);
    flags = 'i';
  }
  if (/\\[pP]/.test(out)) {
    out = out.replace(/\\([pP])([A-Z])(?![a-z{])/g, '\\$1{$2}');
    flags += 'u';
  }
  return { source: out, flags };
}

export function regexSupport(regex: string, options: { isCaseSensitive?: boolean; requireCapturing?: boolean } = {}): RegexSupport {
  const stripped = stripClassesAndEscapes(regex);
  // Escapes are looked for in the regex as written, the rest with classes and escapes blanked out.
  for (const [pattern, detail] of RE2_REJECTS) if (pattern.test(pattern.source.startsWith('\\\\') ? regex : stripped)) return { isSupported: false, reason: 'syntaxError', detail };
  for (const match of regex.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) {
    if (Number(match[1]) > 1000 || (match[2] !== undefined && match[2] !== '' && Number(match[2]) > 1000)) return { isSupported: false, reason: 'syntaxError', detail: 'RE2 allows at most 1000 repetitions' };
  }
  const { source, flags } = re2ToJs(regex, options.isCaseSensitive ?? false);
  let compiled: RegExp;
  try {
    compiled = new RegExp(source, flags);
  } catch (error) {
    return { isSupported: false, reason: 'syntaxError', detail: (error as Error).message };
  }
  if (programUnits(regex) > MAX_PROGRAM_UNITS) return { isSupported: false, reason: 'memoryLimitExceeded', detail: 'the compiled regex would exceed RE2\'s 2 KB limit in Chrome' };
  return { isSupported: true, regex: compiled };
}

/** The regex with character classes and escaped characters blanked, so `[(?=]` or `\(?=` are not taken for syntax. */
function stripClassesAndEscapes(regex: string): string {
  return regex.replace(/\\./g, '_').replace(/\[(?:\\.|[^\]])*\]/g, '_');
}

/**
 * RE2's program size, in instructions, as measured against Chromium 156's isRegexSupported: a
 * literal, `\d` or a one-range class costs 1, a class of r ranges 2r - 1, `.` 3; an optional or
 * unbounded repeat adds 1; `{n}` repeats n times, `{n,m}` adds m - n optional copies; a group of
 * single-character alternatives is one class. Chromium accepts up to 112 (a{112}, (abc){37},
 * a{1,56}, .{37}) and answers memoryLimitExceeded beyond (a{113}, (abc){38}, a{1,57}, .{38}).
 */
function programUnits(regex: string): number {
  let index = 0;
  const sequence = (): number => {
    const alternatives: number[] = [];
    const singles: boolean[] = [];
    let units = 0;
    let single = true;
    let atoms = 0;
    while (index < regex.length && regex[index] !== ')') {
      const character = regex[index]!;
      if (character === '|') {
        alternatives.push(units);
        singles.push(single && atoms === 1);
        units = 0;
        single = true;
        atoms = 0;
        index++;
        continue;
      }
      let atom: number;
      let simple = true;
      if (character === '(') {
        index++;
        if (regex[index] === '?') {
          // (?:  (?P<name>  (?<name>  (?i)
          const close = regex.slice(index).search(/[:>)]/);
          index += close === -1 ? 1 : close + 1;
          if (regex[index - 1] === ')') continue; // a flag group: no atom
        }
        atom = sequence();
        index++; // the ')'
        simple = atom <= 1;
      } else if (character === '[') {
        const end = classEnd(regex, index);
        const ranges = Math.max(1, countRanges(regex.slice(index + 1, end)));
        atom = ranges === 1 ? 1 : 2 * ranges - 1;
        index = end + 1;
        simple = ranges === 1;
      } else if (character === '\\') {
        atom = 1;
        index += 2;
      } else if (character === '.') {
        atom = 3;
        simple = false;
        index++;
      } else if (character === '^' || character === '$') {
        atom = 1;
        index++;
      } else {
        atom = 1;
        index++;
      }
      // The quantifier, if any.
      const quantifier = /^(?:\{(\d+)(?:(,)(\d*))?\}|[*+?])\??/.exec(regex.slice(index));
      if (quantifier) {
        index += quantifier[0].length;
        simple = false;
        if (quantifier[1] !== undefined) {
          const least = Number(quantifier[1]);
          const most = quantifier[2] === undefined ? least : quantifier[3] === '' ? undefined : Number(quantifier[3]);
          atom = atom * least + (most === undefined ? atom + 1 : (atom + 1) * (most - least));
        } else atom += 1;
      }
      units += atom;
      single &&= simple;
      atoms++;
    }
    alternatives.push(units);
    singles.push(single && atoms === 1);
    if (alternatives.length === 1) return alternatives[0]!;
    // (a|b|c) is one class; other alternations cost each branch and a split between them.
    if (singles.every(Boolean)) return 1;
    return alternatives.reduce((sum, branch) => sum + branch, 0) + alternatives.length - 1;
  };
  let total = 0;
  while (index < regex.length) {
    total += sequence();
    index++; // an unbalanced ')' (JavaScript already refused it)
  }
  return total;
}

function classEnd(regex: string, open: number): number {
  let index = open + 1;
  if (regex[index] === '^') index++;
  if (regex[index] === ']') index++;
  while (index < regex.length && regex[index] !== ']') index += regex[index] === '\\' ? 2 : regex.startsWith('[:', index) ? regex.indexOf(':]', index) + 2 - index : 1;
  return index;
}

/** Ranges in a class body: `a-z` one, `0-9a-f` two, `abc` three, `[:alpha:]` two. */
function countRanges(body: string): number {
  let ranges = 0;
  for (let index = body.startsWith('^') ? 1 : 0; index < body.length; ) {
    if (body.startsWith('[:', index)) {
      ranges += 2;
      index = body.indexOf(':]', index) + 2;
      continue;
    }
    index += body[index] === '\\' ? 2 : 1;
    if (body[index] === '-' && index + 1 < body.length) index += body[index + 1] === '\\' ? 3 : 2;
    ranges++;
  }
  return ranges;
}

let linearEngine: boolean | undefined;

/** V8's non-backtracking engine (the `l` flag), switched on once; false where this V8 lacks it. */
function linearEngineAvailable(): boolean {
  if (linearEngine === undefined) {
    try {
      setFlagsFromString('--enable-experimental-regexp-engine');
      new RegExp('a', 'l');
      linearEngine = true;
    } catch {
      linearEngine = false;
    }
  }
  return linearEngine;
}

/**
 * The regex as V8's linear-time engine runs it, when it can: RE2 never backtracks, JavaScript's
 * default engine does, and an extension's `(a+)+$` took 20 s on a 29-character string, on the
 * thread that serves every request. That engine has no `i` flag, so a case-insensitive regex is
 * lowercased and matched against the lowercased URL (`lower`). Undefined when the engine refuses
 * the pattern (counted repeats over a few, `\b`, named groups): it then runs as before.
 */
export function linearRegex(regex: RegExp): { regex: RegExp; lower: boolean } | undefined {
  if (!linearEngineAvailable()) return undefined;
  const lower = regex.flags.includes('i');
  const source = lower ? lowercasePattern(regex.source) : regex.source;
  if (source === undefined) return undefined;
  try {
    return { regex: new RegExp(source, `${regex.flags.replace('i', '')}l`), lower };
  } catch {
    return undefined;
  }
}

/** The pattern for a lowercased subject: letters lowercased, escapes kept (\D, \W stay what they are); undefined for escapes that name a letter by its code. */
function lowercasePattern(source: string): string | undefined {
  let out = '';
  for (let index = 0; index < source.length; index++) {
    const character = source[index]!;
    if (character !== '\\') {
      out += character.toLowerCase();
      continue;
    }
    const next = source[index + 1];
    if (next === undefined || next === 'x' || next === 'u' || next === 'c') return undefined;
    out += character + next;
    index++;
  }
  return out;
}
