// The request list's filter language, parsed into a tree. Pure: no UI, no engine.
//
//   expression := or
//   or         := and ( "or" and )*
//   and        := unary ( "and"? unary )*          adjacent terms are and-ed
//   unary      := ( "not" | "!" ) unary | primary
//   primary    := "(" expression ")" | term
//   term       := field ":" value | word | "quoted words"
//
// Keywords are case-insensitive. A value or word may be quoted ("a b", with \" and \\ escapes) to
// hold spaces, parentheses or a colon. What each field means is compile-filter.ts's business;
// this file only knows the shape, and reports the first problem with where it is.

export interface FilterError {
  message: string;
  /** Index in the expression where the problem starts. */
  position: number;
  /** How many characters it covers (at least 1, for the caret line). */
  length: number;
}

export type FilterNode =
  | { kind: 'and' | 'or'; left: FilterNode; right: FilterNode }
  | { kind: 'not'; operand: FilterNode }
  /** A bare word: the URL contains it. */
  | { kind: 'text'; text: string; position: number; length: number }
  | { kind: 'field'; field: string; value: string; position: number; length: number; valuePosition: number };

export type ParseResult = { ok: true; node: FilterNode | undefined } | { ok: false; error: FilterError };

type Token =
  | { kind: '(' | ')' | '!' | 'and' | 'or' | 'not' | 'end'; position: number; length: number }
  | { kind: 'word'; text: string; quoted: boolean; position: number; length: number }
  | { kind: 'field'; field: string; value: string; position: number; length: number; valuePosition: number };

class FilterSyntaxError extends Error {
  constructor(readonly error: FilterError) {
    super(error.message);
  }
}

const KEYWORDS = new Set(['and', 'or', 'not']);

/** The fields compile-filter.ts understands. */
export const FILTER_FIELDS = ['host', 'url', 'path', 'method', 'status', 'type', 'tab', 'is', 'rule', 'by', 'header', 'body', 'ws', 'dnr'] as const;
const FIELDS: ReadonlySet<string> = new Set(FILTER_FIELDS);
const FIELD_NAME = /^[a-z][a-z-]*$/i;

/** Parses a filter expression; an empty (or blank) one is `node: undefined`, meaning "everything". */
export function parseFilter(source: string): ParseResult {
  try {
    const tokens = tokenize(source);
    const parser = new Parser(tokens);
    if (parser.peek().kind === 'end') return { ok: true, node: undefined };
    const node = parser.expression();
    const rest = parser.peek();
    if (rest.kind !== 'end') throw syntax(rest.kind === ')' ? 'unmatched ")"' : `unexpected ${describe(rest)}`, rest);
    return { ok: true, node };
  } catch (error) {
    if (error instanceof FilterSyntaxError) return { ok: false, error: error.error };
    throw error;
  }
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < source.length) {
    const char = source[index]!;
    if (/\s/.test(char)) {
      index++;
      continue;
    }
    if (char === '(' || char === ')') {
      tokens.push({ kind: char, position: index, length: 1 });
      index++;
      continue;
    }
    if (char === '!') {
      tokens.push({ kind: '!', position: index, length: 1 });
      index++;
      continue;
    }
    const start = index;
    if (char === '"') {
      const quoted = readQuoted(source, index);
      tokens.push({ kind: 'word', text: quoted.text, quoted: true, position: start, length: quoted.end - start });
      index = quoted.end;
      continue;
    }
    // A word runs to whitespace, a parenthesis or a quote. `name:` starts a field when the name is
    // one; `http://…` and `localhost:8080` stay words (the URL contains them).
    while (index < source.length && !/[\s()"]/.test(source[index]!)) {
      if (source[index] === ':' && FIELD_NAME.test(source.slice(start, index)) && startsField(source, start, index)) break;
      index++;
    }
    if (source[index] === ':') {
      const field = source.slice(start, index).toLowerCase();
      const valuePosition = index + 1;
      const value = readFieldValue(source, valuePosition);
      if (value.text === '') throw new FilterSyntaxError({ message: `"${field}:" needs a value`, position: start, length: valuePosition - start });
      index = value.end;
      tokens.push({ kind: 'field', field, value: value.text, position: start, length: index - start, valuePosition });
      continue;
    }
    const word = source.slice(start, index);
    const lower = word.toLowerCase();
    if (KEYWORDS.has(lower)) tokens.push({ kind: lower as 'and' | 'or' | 'not', position: start, length: word.length });
    else tokens.push({ kind: 'word', text: word, quoted: false, position: start, length: word.length });
  }
  tokens.push({ kind: 'end', position: source.length, length: 1 });
  return tokens;
}

/**
 * Whether `name:` at source[start..colon] is a field. Unknown names are fields too, so that a typo
 * such as `staus:404` is reported rather than silently searched for, except what reads like a
 * URL or a host and port: `http://…`, `localhost:8080` (hosts with a dot never look like fields).
 */
function startsField(source: string, start: number, colon: number): boolean {
  const name = source.slice(start, colon).toLowerCase();
  if (FIELDS.has(name)) return true;
  return !(source.startsWith('//', colon + 1) || name === 'localhost');
}

/**
 * A field's value: quoted, or up to whitespace or a ")" that closes nothing inside the value, so
 * that regular expressions with groups (`url:/(a|b)/`) need no quotes while `(host:a)` still works.
 */
function readFieldValue(source: string, start: number): { text: string; end: number } {
  if (source[start] === '"') return readQuoted(source, start);
  let depth = 0;
  let index = start;
  for (; index < source.length; index++) {
    const char = source[index]!;
    if (/\s/.test(char)) break;
    if (char === '\\') {
      index++;
      continue;
    }
    if (char === '(') depth++;
    else if (char === ')') {
      if (depth === 0) break;
      depth--;
    }
  }
  return { text: source.slice(start, Math.min(index, source.length)), end: Math.min(index, source.length) };
}

function readQuoted(source: string, start: number): { text: string; end: number } {
  let text = '';
  let index = start + 1;
  while (index < source.length) {
    const char = source[index]!;
    if (char === '\\' && index + 1 < source.length) {
      text += source[index + 1];
      index += 2;
      continue;
    }
    if (char === '"') return { text, end: index + 1 };
    text += char;
    index++;
  }
  throw new FilterSyntaxError({ message: 'unterminated quote', position: start, length: source.length - start });
}

class Parser {
  #index = 0;
  constructor(private readonly tokens: Token[]) {}

  peek(): Token {
    return this.tokens[this.#index]!;
  }

  #next(): Token {
    return this.tokens[this.#index++]!;
  }

  expression(): FilterNode {
    let left = this.#and();
    while (this.peek().kind === 'or') {
      const operator = this.#next();
      if (!startsOperand(this.peek())) throw syntax(`"or" needs something after it`, operator);
      left = { kind: 'or', left, right: this.#and() };
    }
    return left;
  }

  #and(): FilterNode {
    let left = this.#unary();
    for (;;) {
      const token = this.peek();
      if (token.kind === 'and') {
        this.#next();
        if (!startsOperand(this.peek())) throw syntax(`"and" needs something after it`, token);
        left = { kind: 'and', left, right: this.#unary() };
      } else if (startsOperand(token)) {
        left = { kind: 'and', left, right: this.#unary() };
      } else {
        return left;
      }
    }
  }

  #unary(): FilterNode {
    const token = this.peek();
    if (token.kind === 'not' || token.kind === '!') {
      this.#next();
      if (!startsOperand(this.peek())) throw syntax(`"${token.kind}" needs something after it`, token);
      return { kind: 'not', operand: this.#unary() };
    }
    return this.#primary();
  }

  #primary(): FilterNode {
    const token = this.#next();
    switch (token.kind) {
      case '(': {
        if (this.peek().kind === ')') throw syntax('empty parentheses', this.peek());
        const inner = this.expression();
        const close = this.peek();
        if (close.kind !== ')') throw syntax(`missing ")" for the "(" at ${token.position + 1}`, close.kind === 'end' ? token : close);
        this.#next();
        return inner;
      }
      case 'word':
        return { kind: 'text', text: token.text, position: token.position, length: token.length };
      case 'field':
        return { kind: 'field', field: token.field, value: token.value, position: token.position, length: token.length, valuePosition: token.valuePosition };
      case 'end':
        throw syntax('the expression ends too early', token);
      default:
        throw syntax(`unexpected ${describe(token)}`, token);
    }
  }
}

function startsOperand(token: Token): boolean {
  return token.kind === '(' || token.kind === '!' || token.kind === 'not' || token.kind === 'word' || token.kind === 'field';
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'end of the expression';
    case 'word':
      return `"${token.text}"`;
    case 'field':
      return `"${token.field}:${token.value}"`;
    default:
      return `"${token.kind}"`;
  }
}

function syntax(message: string, token: Token): FilterSyntaxError {
  return new FilterSyntaxError({ message, position: token.position, length: Math.max(1, token.length) });
}
