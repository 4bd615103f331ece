// Finding the few rules worth testing among tens of thousands. Every URL a rule matches contains
// each literal piece of its pattern, so each rule is filed under one 4-character piece of one of
// its literals (the rarest among all rules', so that common pieces like "http" or ".com" do not
// gather thousands of rules), and a request looks up every 4 characters of its lowercased URL.
// Rules with no literal of 4 characters (`*`, `||a.b`, most regexes with alternations) are tested
// for every request. Chrome's url_pattern_index does the same with its own n-gram choice.
import type { CompiledRule, PreparedRequest } from './compiled-rule.js';

const GRAM = 4;

export class RuleIndex {
  readonly rules: readonly CompiledRule[];
  readonly #byGram = new Map<string, number[]>();
  readonly #unindexed: number[] = [];
  /** The query each rule was last looked at in: tests each rule once per request. */
  readonly #seenIn: Uint32Array;
  #query = 0;

  constructor(rules: readonly CompiledRule[]) {
    this.rules = rules;
    this.#seenIn = new Uint32Array(rules.length);
    const frequency = new Map<string, number>();
    const gramsOf = (rule: CompiledRule) => {
      const grams: string[] = [];
      for (const literal of rule.literals) for (let at = 0; at + GRAM <= literal.length; at++) grams.push(literal.slice(at, at + GRAM));
      return grams;
    };
    const all = rules.map(gramsOf);
    for (const grams of all) for (const gram of new Set(grams)) frequency.set(gram, (frequency.get(gram) ?? 0) + 1);
    all.forEach((grams, ordinal) => {
      if (grams.length === 0) return void this.#unindexed.push(ordinal);
      let best = grams[0]!;
      for (const gram of grams) if (frequency.get(gram)! < frequency.get(best)!) best = gram;
      let bucket = this.#byGram.get(best);
      if (!bucket) this.#byGram.set(best, (bucket = []));
      bucket.push(ordinal);
    });
  }

  get size(): number {
    return this.rules.length;
  }

  /** Calls `visit` once for each rule that could match the request (the caller tests it). */
  candidates(request: PreparedRequest, visit: (rule: CompiledRule) => void): void {
    const query = ++this.#query;
    if (query === 0xffffffff) {
      this.#seenIn.fill(0);
      this.#query = 1;
    }
    for (const ordinal of this.#unindexed) visit(this.rules[ordinal]!);
    const url = request.lowerUrl;
    for (let at = 0; at + GRAM <= url.length; at++) {
      const bucket = this.#byGram.get(url.slice(at, at + GRAM));
      if (!bucket) continue;
      for (const ordinal of bucket) {
        if (this.#seenIn[ordinal] === this.#query) continue;
        this.#seenIn[ordinal] = this.#query;
        visit(this.rules[ordinal]!);
      }
    }
  }
}
