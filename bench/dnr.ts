// declarativeNetRequest matching cost: node --expose-gc --import tsx bench/dnr.ts
//
// One extension with a static ruleset of 30,000 urlFilter rules (Chrome's guaranteed minimum;
// domain anchors, path pieces, query parameters, as blocklists have them) and 1,000 regexFilter
// rules (Chrome's limit), plus 50 modifyHeaders rules. Measured, side by side in one run:
//   - load: compiling and indexing the ruleset (ms), and the heap it holds (MiB);
//   - per request: the onBeforeRequest decision, and a whole request's three stages (decision,
//     request headers, response headers), for 5,000 URLs (a sixth of them blocked), through the
//     n-gram index and, for comparison, by testing every rule (what an evaluator without an index
//     does). Goal: under 20 µs a request.
import { performance } from 'node:perf_hooks';
import { DnrEngine, type DnrRequestInfo } from '../src/engine/dnr/dnr-engine.js';
import { compileRule, prepareRequest } from '../src/engine/dnr/compiled-rule.js';

const URL_RULES = 30_000;
const REGEX_RULES = 1_000;
const HEADER_RULES = 50;
const URLS = 5_000;

/** A small deterministic generator, so every run measures the same rules and URLs. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}
const next = random(42);
const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
const WORDS = ['ads', 'track', 'pixel', 'banner', 'metrics', 'beacon', 'promo', 'sponsor', 'stats', 'click', 'tag', 'analytics', 'social', 'widget', 'cdn', 'media', 'static', 'img', 'news', 'shop'];
const TLDS = ['com', 'net', 'org', 'io', 'de', 'co.uk'];

/** Hosts and paths the rules name, so that some requests are matched. */
const ruleHosts: string[] = [];
const rulePaths: string[] = [];

function ruleset(): unknown[] {
  const rules: unknown[] = [];
  let id = 1;
  for (let n = 0; n < URL_RULES; n++) {
    const kind = n % 10;
    const word = `${pick(WORDS)}${n}`;
    // 60% domain anchors, 30% path pieces, 10% query parameters.
    let urlFilter: string;
    if (kind < 6) {
      const host = `${word}.${pick(WORDS)}.${pick(TLDS)}`;
      ruleHosts.push(host);
      urlFilter = `||${host}^`;
    } else if (kind < 9) {
      const path = `/${pick(WORDS)}/${word}`;
      rulePaths.push(path);
      urlFilter = `${path}*.js`;
    } else urlFilter = `&${word}_id=`;
    rules.push({ id: id++, priority: 1 + (n % 3), action: { type: n % 50 === 0 ? 'allow' : 'block' }, condition: { urlFilter, ...(n % 4 === 0 && { resourceTypes: ['script', 'image', 'xmlhttprequest'] }) } });
  }
  for (let n = 0; n < REGEX_RULES; n++) {
    rules.push({ id: id++, action: { type: 'block' }, condition: { regexFilter: `^https?://([a-z0-9-]+\\.)*${pick(WORDS)}${n}x\\.net/.*\\.(gif|png)$` } });
  }
  for (let n = 0; n < HEADER_RULES; n++) {
    rules.push({ id: id++, priority: 3, action: { type: 'modifyHeaders', requestHeaders: [{ header: `x-${pick(WORDS)}`, operation: 'set', value: 'on' }] }, condition: { requestDomains: [`${pick(WORDS)}${n}.example.com`] } });
  }
  return rules;
}

function urls(): DnrRequestInfo[] {
  const out: DnrRequestInfo[] = [];
  for (let n = 0; n < URLS; n++) {
    let url: string;
    const roll = next();
    if (roll < 0.1) url = `https://cdn.${pick(ruleHosts)}/t.gif?x=${n}`; // under a blocked domain
    else if (roll < 0.2) url = `https://www.site${n}.com${pick(rulePaths)}-min.js`; // a blocked path
    else url = `https://www.${pick(WORDS)}-site${n % 200}.${pick(TLDS)}/articles/2026/11/story-${n}.html?ref=home&page=${n % 7}`;
    out.push({ requestId: String(n), url, method: 'GET', type: pick(['script', 'image', 'xmlhttprequest', 'stylesheet', 'sub_frame'] as const), tabId: 1, initiator: `https://www.site${n % 100}.com` });
  }
  return out;
}

function heapMiB(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

async function main(): Promise<void> {
  if (!globalThis.gc) process.stdout.write('(run with --expose-gc for the memory figure)\n');
  const rules = ruleset();
  const requests = urls();
  const heapBefore = heapMiB();
  const engine = new DnrEngine();
  const loadStart = performance.now();
  const { warnings } = await engine.addExtension({ extensionId: 'a'.repeat(32), name: 'bench', baseUrl: `chrome-extension://${'a'.repeat(32)}/`, rulesets: [{ id: 'main', path: 'rules.json', enabled: true, rules }] });
  const loadMs = performance.now() - loadStart;
  const heapAfter = heapMiB();
  if (warnings.length > 0) throw new Error(`rules refused: ${warnings.slice(0, 3).join('; ')}`);

  const all = engine.describe('a'.repeat(32))!.rulesets.reduce((sum, ruleset) => sum + ruleset.rules, 0);
  // The same rules compiled once more, for the comparison that tests every rule.
  const compiledRules = rules.map((rule) => compileRule(rule, { rulesetId: 'main', extensionId: 'scan' }));

  let blocked = 0;
  let requestId = 0;
  // Each measured request is a new one (a new requestId): the engine keeps a request's matches for its later stages only.
  const fresh = (request: DnrRequestInfo): DnrRequestInfo => ({ ...request, requestId: String(++requestId) });
  const measure = (label: string, run: (request: DnrRequestInfo) => void, rounds: number) => {
    for (const request of requests.slice(0, 500)) run(fresh(request)); // warm-up
    const measured = rounds === 0 ? requests.slice(0, 50) : requests;
    rounds = Math.max(1, rounds);
    const start = performance.now();
    for (let round = 0; round < rounds; round++) for (const request of measured) run(fresh(request));
    const perRequestUs = ((performance.now() - start) * 1000) / (rounds * measured.length);
    return { label, perRequestUs };
  };
  // Every candidate rule's regex is compiled the first time it is tested, and V8 optimises the
  // engine's code after a while: three passes first, so both measures see warm code (with one,
  // the first measure came out 2-3x the same measure taken again).
  for (let pass = 0; pass < 3; pass++) for (const request of requests) engine.beforeRequest(fresh(request));
  const indexed = measure(
    'index: onBeforeRequest decision',
    (request) => {
      if (engine.beforeRequest(request).action.kind === 'block') blocked++;
    },
    4,
  );
  const accept = [{ name: 'Accept', value: '*/*' }];
  const response = [{ name: 'Content-Type', value: 'text/html' }];
  const whole = measure(
    'index: a whole request (3 stages)',
    (request) => {
      if (engine.beforeRequest(request).action.kind !== 'none') return;
      engine.requestHeaders(request, accept);
      engine.responseHeaders(request, response);
    },
    4,
  );
  const scan = measure(
    'every rule tested (no index)',
    (request) => {
      const prepared = prepareRequest(request);
      for (const rule of compiledRules) if (rule.test(prepared)) break;
    },
    0, // 50 requests: it is slow
  );
  const rows = [
    { measure: 'rules loaded', value: `${all.toLocaleString('en')} (${URL_RULES.toLocaleString('en')} urlFilter, ${REGEX_RULES} regex, ${HEADER_RULES} modifyHeaders)` },
    { measure: 'load: compile + index', value: `${loadMs.toFixed(0)} ms` },
    { measure: 'heap held by the ruleset', value: globalThis.gc ? `${(heapAfter - heapBefore).toFixed(1)} MiB` : 'n/a' },
    { measure: indexed.label, value: `${indexed.perRequestUs.toFixed(2)} µs / request` },
    { measure: whole.label, value: `${whole.perRequestUs.toFixed(2)} µs / request` },
    { measure: scan.label, value: `${scan.perRequestUs.toFixed(1)} µs / request` },
    { measure: 'index vs every rule', value: `${(scan.perRequestUs / indexed.perRequestUs).toFixed(0)}× faster` },
    { measure: 'requests blocked', value: `${((blocked / (requests.length * 4 + 500)) * 100).toFixed(1)} %` },
  ];
  console.table(rows);
}

await main();
