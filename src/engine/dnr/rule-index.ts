// Finding the few rules worth testing among tens of thousands. Every URL a rule matches contains
// each literal piece of its pattern, so each rule is filed under one 4-character piece of one of
// its literals (the rarest among all rules', so that common pieces like "http" or ".com" do not
// gather thousands of rules), and a request looks up every 4 characters of its lowercased URL.
// A rule with no URL literal but requestDomains is filed under a piece of each domain. Rules with
// no literal of 4 characters (`*`, `||a.b`, regexes with top-level alternations) are tested for
// every request. Chrome's url_pattern_index does the same with its own n-gram choice.
import type { CompiledRule, PreparedRequest } from './compiled-rule.js';

const GRAM = 4;

/**
 * A 4-character piece as one small integer: 7 bits of each character (a URL filter is ASCII; a
 * collision only adds a candidate, which is tested anyway), 28 bits in all, so the Map's keys stay
 * small integers V8 hashes without allocating.
 */
function gramKey(text: string, at: number): number {
  return (text.charCodeAt(at) & 0x7f) | ((text.charCodeAt(at + 1) & 0x7f) << 7) | ((text.charCodeAt(at + 2) & 0x7f) << 14) | ((text.charCodeAt(at + 3) & 0x7f) << 21);
}

export class RuleIndex {
  readonly rules: readonly CompiledRule[];
  readonly #byId = new Map<number, CompiledRule>();
  readonly #byGram = new Map<number, number[]>();
  readonly #unindexed: number[] = [];
  /** The query each rule was last looked at in: tests each rule once per request. */
  readonly #seenIn: Uint32Array;
  #query = 0;

  constructor(rules: readonly CompiledRule[]) {
    this.rules = rules;
    this.#seenIn = new Uint32Array(rules.length);
    for (const rule of rules) this.#byId.set(rule.id, rule);
    const frequency = new Map<number, number>();
    const gramsOf = (literals: readonly string[]) => {
      const grams: number[] = [];
      for (const literal of literals) for (let at = 0; at + GRAM <= literal.length; at++) grams.push(gramKey(literal, at));
      return grams;
    };
    const rarest = (grams: readonly number[]) => grams.reduce((best, gram) => (frequency.get(gram)! < frequency.get(best)! ? gram : best));
    // A rule is filed under one gram of its literals (a matching URL holds them all), or, when it has
    // only alternatives (its requestDomains), under one gram of each (a matching URL holds one of them).
    const all = rules.map((rule) => gramsOf(rule.literals));
    const alternatives = rules.map((rule) => (rule.literals.length === 0 && rule.anyOfLiterals.every((piece) => piece.length >= GRAM) ? rule.anyOfLiterals.map((piece) => gramsOf([piece])) : []));
    for (const grams of [...all, ...alternatives.flat()]) for (const gram of new Set(grams)) frequency.set(gram, (frequency.get(gram) ?? 0) + 1);
    const file = (gram: number, ordinal: number) => {
      let bucket = this.#byGram.get(gram);
      if (!bucket) this.#byGram.set(gram, (bucket = []));
      if (bucket[bucket.length - 1] !== ordinal) bucket.push(ordinal);
    };
    rules.forEach((_rule, ordinal) => {
      if (all[ordinal]!.length > 0) return file(rarest(all[ordinal]!), ordinal);
      if (alternatives[ordinal]!.length > 0) return alternatives[ordinal]!.forEach((grams) => file(rarest(grams), ordinal));
      this.#unindexed.push(ordinal);
    });
  }

  get size(): number {
    return this.rules.length;
  }

  /** The rule with this id (ids are unique in a ruleset). */
  rule(id: number): CompiledRule | undefined {
    return this.#byId.get(id);
  }

  /** Calls `visit` once for each rule that could match the request (the caller tests it). */
  candidates(request: PreparedRequest, visit: (rule: CompiledRule) => void): void {
    if (this.#query === 0xfffffffe) {
      this.#seenIn.fill(0);
      this.#query = 0;
    }
    const query = ++this.#query;
    for (const ordinal of this.#unindexed) visit(this.rules[ordinal]!);
    const url = request.lowerUrl;
    for (let at = 0; at + GRAM <= url.length; at++) {
      const bucket = this.#byGram.get(gramKey(url, at));
      if (!bucket) continue;
      for (const ordinal of bucket) {
        if (this.#seenIn[ordinal] === query) continue;
        this.#seenIn[ordinal] = query;
        visit(this.rules[ordinal]!);
      }
    }
  }
}
