// Property-based fuzzing (fast-check) of what the outside world hands wrtui: request lines and
// headers from clients, BlockingResponse objects from listeners, and session files to replay. A bounded number of cases runs
// in every `npm test`; `npm run fuzz` runs many more (FUZZ_RUNS, default there 5,000).
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBlockingResponse } from '../../src/engine/web-request/blocking-response.js';
import { WEB_REQUEST_EVENTS } from '../../src/engine/types.js';
import { runRequest } from '../../src/engine/web-request/run-request.js';
import { createHarness, ScriptedOrigin } from '../helpers/web-request-harness.js';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { streamedReplayInput } from '../../src/engine/session/replay-input.js';
import { readSessionEntries, SessionFileError } from '../../src/engine/session/session-reader.js';
import { replay } from '../../src/engine/session/session-replay.js';
import { writeSyntheticRecording } from '../session/synthetic-recording.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const options = { numRuns: RUNS, ...(SEED !== undefined && { seed: SEED }) };

let harness: ProxyHarness;
let origin: Origin;
beforeAll(async () => {
  origin = await startOrigin((_req, res) => res.end('fine'));
  harness = await startProxyHarness();
});
afterAll(async () => {
  await harness?.close();
  await origin?.close();
});

/** Sends raw bytes; resolves with the first bytes of the answer ('' if the proxy closed without one). */
function exchange(bytes: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(harness.proxy.port, '127.0.0.1', () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1').slice(0, 200)));
    setTimeout(() => socket.destroy(), 2000);
  });
}

async function stillServing(): Promise<void> {
  const response = await harness.fetch(`${origin.url}/after`);
  expect(response.statusCode).toBe(200);
  expect(await response.body.text()).toBe('fine');
}

const token = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,12}$/);
const anyText = fc.string({ unit: 'binary', maxLength: 60 });
const method = fc.oneof(fc.constantFrom('GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'CONNECT', 'PATCH'), token, anyText);
const target = fc.oneof(
  fc.constant(`${'ORIGIN'}/fuzz`),
  fc.webUrl().map((url) => url.replace(/^https?:\/\/[^/]+/, 'ORIGIN')),
  fc.constantFrom('*', '/', 'http://', '127.0.0.1:0', '[::1'),
  anyText,
);
const version = fc.oneof(fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/0.9', ''), anyText);
const header = fc.tuple(fc.oneof(token, anyText), fc.oneof(fc.string({ maxLength: 40 }), anyText));

describe('fuzzed request lines and headers', () => {
  it(`the proxy answers or closes, never crashes, and serves the next request (${RUNS} cases)`, { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(method, target, version, fc.array(header, { maxLength: 8 }), async (verb, path, ver, headers) => {
        const line = `${verb} ${path.replace('ORIGIN', origin.url)} ${ver}`.replace(/\s+$/, '');
        const text = `${line}\r\n${headers.map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\nConnection: close\r\n\r\n`;
        const answer = await exchange(Buffer.from(text, 'latin1'));
        // Whatever it was: an HTTP answer, or the connection closed; then the proxy still works.
        expect(answer === '' || /^HTTP\/1\.[01] \d{3} /.test(answer)).toBe(true);
      }),
      options,
    );
    await stillServing();
  });
});

/** A BlockingResponse of any shape a listener might return, well-formed or not. */
const headerValue = fc.record({ name: fc.oneof(token, anyText), value: fc.oneof(fc.string({ maxLength: 20 }), anyText) }, { requiredKeys: [] });
const headersShape = fc.oneof(fc.array(fc.oneof(headerValue, fc.anything()), { maxLength: 4 }), fc.anything());
const blockingResponse = fc.oneof(
  fc.anything(),
  fc.record(
    {
      cancel: fc.oneof(fc.boolean(), fc.anything()),
      redirectUrl: fc.oneof(fc.webUrl(), fc.constantFrom('data:text/plain,x', 'about:blank', 'javascript:alert(1)', 'file:///etc/passwd'), anyText),
      requestHeaders: headersShape,
      responseHeaders: headersShape,
      authCredentials: fc.oneof(fc.record({ username: fc.string(), password: fc.string() }), fc.anything()),
      extra: fc.anything(),
    },
    { requiredKeys: [] },
  ),
);

describe('fuzzed BlockingResponses', () => {
  it(`checkBlockingResponse never throws and says valid, empty or invalid with a reason (${RUNS * 10} cases)`, () => {
    fc.assert(
      fc.property(fc.constantFrom(...WEB_REQUEST_EVENTS), blockingResponse, (event, value) => {
        const checked = checkBlockingResponse(event, value);
        expect(['valid', 'empty', 'invalid']).toContain(checked.kind);
        if (checked.kind === 'invalid') expect(checked.reason.length).toBeGreaterThan(0);
      }),
      { ...options, numRuns: RUNS * 10 },
    );
  });

  it(`a listener answering any of them: the request ends exactly once, the answer applied, ignored or failed, never an exception (${RUNS} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(blockingResponse, fc.constantFrom('onBeforeRequest', 'onBeforeSendHeaders', 'onHeadersReceived') as fc.Arbitrary<'onBeforeRequest' | 'onBeforeSendHeaders' | 'onHeadersReceived'>, async (answer, event) => {
        const h = createHarness({ listenerTimeoutMs: 200 });
        const spec = event === 'onBeforeRequest' ? ['blocking'] : event === 'onBeforeSendHeaders' ? ['blocking', 'requestHeaders'] : ['blocking', 'responseHeaders'];
        h.webRequest('fuzzed')[event].addListener(() => answer as never, { urls: ['<all_urls>'] }, spec as never);
        const result = await runRequest(h.lifecycle, { url: 'http://fuzz.example/', method: 'GET', requestHeaders: [], type: 'main_frame' }, new ScriptedOrigin());
        expect(['response', 'error', 'non-web-redirect']).toContain(result.kind);
        const ends = h.entries.filter((e) => e.kind === 'webRequest' && (e.event === 'onCompleted' || e.event === 'onErrorOccurred'));
        expect(ends.length).toBeLessThanOrEqual(1);
        const outcome = h.entries.find((e) => e.kind === 'webRequest' && e.event === event && e.outcomes.length > 0);
        if (outcome?.kind === 'webRequest') expect(['applied', 'ignored', 'failed', 'dry-run']).toContain(outcome.outcomes[0]!.status);
      }),
      options,
    );
  });
});

describe('fuzzed session files', () => {
  // A recording edited by hand, cut, or written by something else: lines gone, doubled, swapped,
  // fields replaced by any JSON value.
  const mutation = fc.oneof(
    fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('double' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('swap' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('field' as const), at: fc.nat(), name: fc.constantFrom('kind', 'event', 'details', 'outcomes', 'time', 'requestId', 'direction', 'bytes', 'changeInfo'), value: fc.jsonValue() }),
    fc.record({ kind: fc.constant('detail' as const), at: fc.nat(), name: fc.constantFrom('requestId', 'url', 'method', 'type', 'tabId', 'frameId', 'requestHeaders', 'responseHeaders', 'statusCode', 'statusLine', 'error', 'redirectUrl'), value: fc.jsonValue() }),
  );

  it(`replay of a mangled recording ends with its verdicts or with an error naming the line, never anything else (${Math.ceil(RUNS / 3)} cases)`, { timeout: 600_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wrtui-fuzz-session-'));
    try {
      const lines = (await readFile(await writeSyntheticRecording(join(dir, 'base.ndjson'), 24), 'utf8')).trimEnd().split('\n');
      const file = join(dir, 'mangled.ndjson');
      await fc.assert(
        fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), async (mutations) => {
          const mangled = [...lines];
          for (const change of mutations) {
            const at = 1 + (change.at % (mangled.length - 1)); // the header stays
            if (change.kind === 'drop') mangled.splice(at, 1);
            else if (change.kind === 'double') mangled.splice(at, 0, mangled[at]!);
            else if (change.kind === 'swap' && at + 1 < mangled.length) [mangled[at], mangled[at + 1]] = [mangled[at + 1]!, mangled[at]!];
            else if (change.kind === 'field' || change.kind === 'detail') {
              const entry = JSON.parse(mangled[at]!) as Record<string, unknown>;
              if (change.kind === 'field') entry[change.name] = change.value;
              else if (typeof entry.details === 'object' && entry.details !== null) (entry.details as Record<string, unknown>)[change.name] = change.value;
              mangled[at] = JSON.stringify(entry);
            }
            if (mangled.length < 2) break;
          }
          await writeFile(file, `${mangled.join('\n')}\n`);
          try {
            const result = await replay(streamedReplayInput(file, readSessionEntries(file)), { keepJournal: false });
            expect(result.summary.requests + result.summary.skipped).toBeLessThanOrEqual(48);
          } catch (error) {
            expect(error).toBeInstanceOf(SessionFileError);
            expect((error as Error).message).toMatch(/^\S+mangled\.ndjson:\d+: /);
          }
        }),
        { ...options, numRuns: Math.ceil(RUNS / 3) },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
