// declarativeNetRequest's urlFilter: a pattern over the whole URL with four special tokens
// (developer.chrome.com, declarativeNetRequest, "RuleCondition.urlFilter"):
//   `*`  any run of characters;
//   `|`  at the start or the end: the URL starts / ends there;
//   `||` at the start: a (sub-)domain of the URL's host starts there;
//   `^`  a separator: any character but a letter, a digit, `_`, `-`, `.` or `%`, or the URL's end.
// Matching ignores case unless the rule says isUrlFilterCaseSensitive (Chrome's default is false
// since Chrome 118). Each pattern becomes one RegExp; the literal pieces between the tokens are
// what the rule index (rule-index.ts) looks rules up by.

export interface CompiledUrlFilter {
  readonly regex: RegExp;
  /** The pattern's literal pieces (lowercased): every URL it matches contains each of them. */
  readonly literals: readonly string[];
}

export class UrlFilterError extends Error {}

/** The URL up to where a host's labels start: scheme, `//`, optional user info. */
const DOMAIN_ANCHOR = String.raw`^[a-z][a-z0-9+.\-]*:\/\/(?:[^\/?#@]*@)?(?:[^\/?#:@]*\.)?`;
const SEPARATOR = String.raw`(?:[^A-Za-z0-9_\-.%]|$)`;

export function compileUrlFilter(pattern: string, caseSensitive = false): CompiledUrlFilter {
  if (pattern === '') throw new UrlFilterError('must not be empty');
  if (!/^[\x00-\x7f]*$/.test(pattern)) throw new UrlFilterError('must be ASCII (punycode the host, percent-encode the rest)');
  let body = pattern;
  let start = '';
  if (body.startsWith('||')) {
    if (body.startsWith('||*')) throw new UrlFilterError("must not start with '||*': use '*' at the start instead");
    start = DOMAIN_ANCHOR;
    body = body.slice(2);
  } else if (body.startsWith('|')) {
    start = '^';
    body = body.slice(1);
  }
  let end = '';
  if (body.endsWith('|')) {
    end = '$';
    body = body.slice(0, -1);
  }
  let source = '';
  for (const character of body) {
    if (character === '*') source += '.*';
    else if (character === '^') source += SEPARATOR;
    else source += character.replace(/[\\^$.*+?()[\]{}|\/-]/g, '\\$&');
  }
  const literals = body
    .toLowerCase()
    .split(/[*^]/)
    .filter((piece) => piece !== '');
  return { regex: new RegExp(start + source + end, caseSensitive ? '' : 'i'), literals };
}
