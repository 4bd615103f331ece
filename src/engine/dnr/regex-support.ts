// Chrome evaluates regexFilter with RE2, which has no lookaround, no backreferences, no possessive
// or atomic groups, and at most 1000 repetitions in a counted repeat; it also refuses a regex whose
// compiled program exceeds 2 KB ("memoryLimitExceeded"). wrtui runs the regex with JavaScript's
// engine, so it first refuses what RE2 refuses (checked against Chromium 156's isRegexSupported:
// `(?=a)b`, `a(b)\1` and `[a-z]{1000}{1000}` are syntax errors there). The memory estimate is
// wrtui's own: counted repeats multiply the size of what they repeat.

export type RegexSupport = { isSupported: true } | { isSupported: false; reason: 'syntaxError' | 'memoryLimitExceeded'; detail: string };

/** A rough size above which RE2's 2 KB program would not fit. */
const MAX_PROGRAM_UNITS = 2_000;

const RE2_REJECTS: readonly [RegExp, string][] = [
  [/\(\?<?[=!]/, 'lookahead and lookbehind are not supported by RE2'],
  [/\(\?>/, 'atomic groups are not supported by RE2'],
  [/\\[1-9]|\\k</, 'backreferences are not supported by RE2'],
  [/[*+?}][*+]/, 'a repetition of a repetition (or a possessive quantifier) is not supported by RE2'],
];

/** `(?i)` at the start is RE2's way to ignore case; JavaScript takes it as a flag. */
export function re2ToJs(source: string, caseSensitive: boolean): { source: string; flags: string } {
  if (source.startsWith('(?i)')) return { source: source.slice(4), flags: 'i' };
  return { source, flags: caseSensitive ? '' : 'i' };
}

export function regexSupport(regex: string, options: { isCaseSensitive?: boolean; requireCapturing?: boolean } = {}): RegexSupport {
  const stripped = stripClassesAndEscapes(regex);
  for (const [pattern, detail] of RE2_REJECTS) if (pattern.test(stripped) || (detail.startsWith('backreferences') && pattern.test(regex))) return { isSupported: false, reason: 'syntaxError', detail };
  for (const match of regex.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) {
    if (Number(match[1]) > 1000 || (match[2] !== undefined && match[2] !== '' && Number(match[2]) > 1000)) return { isSupported: false, reason: 'syntaxError', detail: 'RE2 allows at most 1000 repetitions' };
  }
  const { source, flags } = re2ToJs(regex, options.isCaseSensitive ?? false);
  try {
    new RegExp(source, flags);
  } catch (error) {
    return { isSupported: false, reason: 'syntaxError', detail: (error as Error).message };
  }
  if (programUnits(regex) > MAX_PROGRAM_UNITS) return { isSupported: false, reason: 'memoryLimitExceeded', detail: 'the compiled regex would exceed RE2\'s 2 KB limit in Chrome' };
  return { isSupported: true };
}

/** The regex with character classes and escaped characters blanked, so `[(?=]` or `\(?=` are not taken for syntax. */
function stripClassesAndEscapes(regex: string): string {
  return regex.replace(/\\./g, '_').replace(/\[(?:\\.|[^\]])*\]/g, '_');
}

/** Each atom counts one unit; a counted repeat multiplies the atom or group before it. */
function programUnits(regex: string): number {
  const stack: number[] = [0];
  let last = 0;
  for (let index = 0; index < regex.length; index++) {
    const character = regex[index]!;
    if (character === '\\') {
      index++;
      last = 1;
      stack[stack.length - 1]! += 1;
    } else if (character === '[') {
      const end = regex.indexOf(']', index + 2);
      index = end === -1 ? regex.length : end;
      last = 1;
      stack[stack.length - 1]! += 1;
    } else if (character === '(') stack.push(0);
    else if (character === ')') {
      last = stack.pop() ?? 0;
      if (stack.length === 0) stack.push(0);
      stack[stack.length - 1]! += last;
    } else if (character === '{') {
      const match = /^\{(\d+)(?:,(\d*))?\}/.exec(regex.slice(index));
      if (match) {
        const times = Math.max(Number(match[1]), match[2] ? Number(match[2]) : 0);
        stack[stack.length - 1]! += last * Math.max(0, times - 1);
        index += match[0].length - 1;
      }
    } else if (!'*+?|^$'.includes(character)) {
      last = 1;
      stack[stack.length - 1]! += 1;
    }
  }
  return stack.reduce((sum, units) => sum + units, 0);
}
