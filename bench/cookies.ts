// Cookie store benchmark: node --import tsx bench/cookies.ts
//
// 1. Cookie-header lookup for one URL with 1k, 10k and 100k cookies spread over 1k registrable
//    domains. Two URLs per jar: a "probe" host that always holds 10 cookies (its cost must not grow
//    with the jar) and an ordinary host holding its share (1, 10, 100 cookies: its cost grows with
//    its own cookies only). tough-cookie's MemoryCookieStore + getCookieStringSync for comparison.
// 2. Set throughput (Set-Cookie headers stored per second) with 0 and 5 onChanged listeners.
import { performance } from 'node:perf_hooks';
import { CookieJar, MemoryCookieStore } from 'tough-cookie';
import { CookieJars } from '../src/engine/cookies/cookie-jars.js';
import { createCookiesNamespace } from '../src/engine/cookies/cookies-namespace.js';
import { createTrustedOwner } from '../src/engine/owner.js';
import { RuntimeState } from '../src/engine/runtime.js';

const DOMAINS = 1000;
const PROBE_COOKIES = 10;
const UNLIMITED = { perDomain: Number.POSITIVE_INFINITY, total: Number.POSITIVE_INFINITY };

/** Runs `fn` repeatedly for about `budgetMs` (after a warm-up) and returns ns per call. */
function nsPerCall(fn: () => unknown, budgetMs = 400): number {
  for (let i = 0; i < 20_000; i++) fn();
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < budgetMs) {
    for (let i = 0; i < 500; i++) fn();
    calls += 500;
    elapsed = performance.now() - start;
  }
  return (elapsed * 1e6) / calls;
}

function populate(total: number): { jars: CookieJars; reference: CookieJar } {
  const jars = new CookieJars({ limits: UNLIMITED });
  const reference = new CookieJar(new MemoryCookieStore());
  const perDomain = total / DOMAINS;
  for (let d = 0; d < DOMAINS; d++) {
    const url = `https://www.site${d}.com/`;
    const headers: string[] = [];
    for (let c = 0; c < perDomain; c++) headers.push(`c${c}=${'v'.repeat(16)}; Domain=site${d}.com; Path=/; Max-Age=86400`);
    jars.setFromResponse(url, headers);
    for (const header of headers) reference.setCookieSync(header, url);
  }
  const probe = 'https://www.probe.org/app/page?x=1';
  const probeHeaders = Array.from({ length: PROBE_COOKIES }, (_, c) => `p${c}=${'v'.repeat(16)}; Path=${c % 2 ? '/app' : '/'}; Max-Age=86400`);
  jars.setFromResponse(probe, probeHeaders);
  for (const header of probeHeaders) reference.setCookieSync(header, probe);
  return { jars, reference };
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

function table(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows) console.log(line(row));
}

// ── 1. lookups ──────────────────────────────────────────────────────────────────────────────
// All jars are built first, then measured in interleaved rounds (best of 5), so that JIT warm-up
// and GC pauses do not favour one size.
const PROBE_URL = 'https://www.probe.org/app/page?x=1';
const ORDINARY_URL = 'https://www.site500.com/index.html';
const sizes = [1_000, 10_000, 100_000];
const jarsBySize = sizes.map((size) => ({ size, ...populate(size) }));
for (const { jars } of jarsBySize) {
  if (jars.cookieHeader(PROBE_URL).split('; ').length !== PROBE_COOKIES) throw new Error('probe lookup returned the wrong cookies');
}
const lookups = jarsBySize.map(({ size }) => ({ size, probe: Infinity, ordinary: Infinity, reference: Infinity }));
for (let round = 0; round < 5; round++) {
  jarsBySize.forEach(({ jars, reference }, i) => {
    const row = lookups[i]!;
    row.probe = Math.min(row.probe, nsPerCall(() => jars.cookieHeader(PROBE_URL), 200));
    row.ordinary = Math.min(row.ordinary, nsPerCall(() => jars.cookieHeader(ORDINARY_URL), 200));
    row.reference = Math.min(row.reference, nsPerCall(() => reference.getCookieStringSync(PROBE_URL), 200));
  });
}
for (const { jars } of jarsBySize) await jars.close();
const base = lookups[0]!;
table(
  `Cookie-header lookup, ns per lookup (best of 5) and ratio to the 1k jar — ${DOMAINS} domains; the probe host always holds ${PROBE_COOKIES} cookies`,
  ['cookies in jar', 'per domain', 'probe host', 'ratio', 'ordinary host', 'ratio', 'tough-cookie MemoryCookieStore, probe', 'ratio'],
  lookups.map((row) => [
    fmt(row.size),
    fmt(row.size / DOMAINS),
    fmt(row.probe),
    `${fmt(row.probe / base.probe, 2)}x`,
    fmt(row.ordinary),
    `${fmt(row.ordinary / base.ordinary, 2)}x`,
    fmt(row.reference),
    `${fmt(row.reference / base.reference, 2)}x`,
  ]),
);

// ── 2. set throughput ───────────────────────────────────────────────────────────────────────
// 50 names per domain: the first 50k sets add cookies, the next 50k overwrite them (2 events each).
const SETS = 100_000;
const urls = Array.from({ length: DOMAINS }, (_, d) => new URL(`https://www.site${d}.com/`));
const headersFor = (i: number) => [`c${Math.floor(i / DOMAINS) % 50}=${i}; Path=/; Max-Age=86400`];

async function setsPerSecond(attach: (jars: CookieJars) => void): Promise<number> {
  const jars = new CookieJars({ limits: UNLIMITED });
  attach(jars);
  const start = performance.now();
  for (let i = 0; i < SETS; i++) jars.setFromResponse(urls[i % DOMAINS]!, headersFor(i));
  await new Promise((resolve) => setImmediate(resolve)); // let queued listener deliveries run
  const seconds = (performance.now() - start) / 1000;
  await jars.close();
  return SETS / seconds;
}

function referenceSetsPerSecond(): number {
  const jar = new CookieJar(new MemoryCookieStore());
  const start = performance.now();
  for (let i = 0; i < SETS; i++) jar.setCookieSync(headersFor(i)[0]!, urls[i % DOMAINS]!);
  return SETS / ((performance.now() - start) / 1000);
}

let delivered = 0;
const noop = () => {
  delivered++;
};
const configurations: { label: string; attach: (jars: CookieJars) => void }[] = [
  { label: '0 listeners', attach: () => {} },
  {
    label: '5 CookieJars.onChanged listeners',
    attach: (jars) => {
      for (let i = 0; i < 5; i++) jars.onChanged(noop);
    },
  },
  {
    label: '5 cookies.onChanged listeners (one rule)',
    attach: (jars) => {
      const cookies = createCookiesNamespace(jars, createTrustedOwner('bench'), new RuntimeState(), 'callback');
      for (let i = 0; i < 5; i++) cookies.onChanged.addListener(() => noop());
    },
  },
];
// Three rounds, best of each: the first round also warms the JIT up.
const best = new Map<string, number>();
let reference = 0;
for (let round = 0; round < 3; round++) {
  for (const { label, attach } of configurations) best.set(label, Math.max(best.get(label) ?? 0, await setsPerSecond(attach)));
  reference = Math.max(reference, referenceSetsPerSecond());
}
const baseline = best.get('0 listeners')!;
table(
  `Set throughput (${fmt(SETS)} Set-Cookie headers over ${DOMAINS} domains, half of them overwrites; best of 3)`,
  ['listeners', 'cookies/s', 'µs per set', 'vs 0 listeners'],
  [
    ...configurations.map(({ label }) => {
      const rate = best.get(label)!;
      return [label, fmt(rate), fmt(1e6 / rate, 2), `${fmt(rate / baseline, 2)}x`];
    }),
    ['tough-cookie MemoryCookieStore, no events', fmt(reference), fmt(1e6 / reference, 2), `${fmt(reference / baseline, 2)}x`],
  ],
);
if (delivered === 0) throw new Error('listeners were never called');
