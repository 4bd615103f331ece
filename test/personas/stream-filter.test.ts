// Firefox's webRequest.filterResponseData under the firefox persona: an unpacked extension in its
// worker rewrites response bodies on the wire, with traffic through the proxy. Each expectation is
// what Firefox ESR 153 did with the same add-on code (docs/personas.md, firefox persona, StreamFilter).
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { ExtensionHost, type ExtensionHostOptions } from '../../src/engine/extensions/extension-host.js';
import type { JournalEntry, LogEntry } from '../../src/engine/journal.js';
import { openRecording } from '../../src/engine/session/open-recording.js';
import { replaySession } from '../../src/engine/session/session-replay.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { recordSession, rule as sessionRule } from '../session/session-harness.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';
import { closeRig } from '../helpers/close-rig.js';
import { lineText } from '../../src/ui/detail/styled-line.js';
import { responseLines } from '../../src/ui/detail/response-lines.js';
import { compileFilter } from '../../src/ui/filter/compile-filter.js';
import { TrafficStore } from '../../src/ui/store/traffic-store.js';

let harness: ProxyHarness | undefined;
let host: ExtensionHost | undefined;
let origin: Origin | undefined;
let work: string | undefined;
afterEach(async () => {
  await closeRig({ host, harness, origin, folder: work });
  host = harness = origin = work = undefined;
});

const MV2 = { manifest_version: 2, permissions: ['webRequest', 'webRequestBlocking', '<all_urls>'], background: { scripts: ['bg.js'] } };

async function extension(name: string, code: string, manifest: Record<string, unknown> = MV2): Promise<string> {
  work ??= await mkdtemp(path.join(tmpdir(), 'wrtui-stream-filter-'));
  const dir = path.join(work, name);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify({ name, version: '1', ...manifest }));
  await writeFile(path.join(dir, 'bg.js'), code);
  return dir;
}

const logsOf = (entries: JournalEntry[], source: string) => entries.filter((e): e is LogEntry & JournalEntry => e.kind === 'log' && e.source === source).map((e) => e.message);

const BIG_BYTES = 100 * 1024 * 1024;
const bigChunk = (offset: number) => Buffer.alloc(Math.min(65536, BIG_BYTES - offset), (offset / 65536) % 251);
const bigDigest = (() => {
  const hash = createHash('sha256');
  for (let offset = 0; offset < BIG_BYTES; offset += 65536) hash.update(bigChunk(offset));
  return hash.digest('hex');
})();

/** The origin's answers, by path. */
function serve(req: { url?: string }, res: import('node:http').ServerResponse): void {
  const url = req.url ?? '';
  if (url === '/gzip') res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' }).end(zlib.gzipSync('hello gzip world'));
  else if (url === '/chunked') {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('abc');
    setTimeout(() => res.end('def'), 50);
  } else if (url === '/big') {
    // BIG_BYTES in 64 KiB chunks, each of its own bytes, written as fast as the proxy takes them.
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(BIG_BYTES) });
    let sent = 0;
    const more = () => {
      while (sent < BIG_BYTES) {
        const chunk = bigChunk(sent);
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  } else if (url === '/corrupt-gzip') {
    // A gzip header, then garbage: decoding fails after the head went out.
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' });
    res.end(Buffer.concat([zlib.gzipSync('x').subarray(0, 10), Buffer.from('this is not deflate data at all')]));
  } else if (url === '/redirect') res.writeHead(302, { Location: '/target' }).end('redirect body');
  else res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(Buffer.byteLength(`hello ${url}`)) }).end(`hello ${url}`);
}

async function start(dirs: string[], options: Partial<ExtensionHostOptions> = {}, proxy: { journalBodies?: boolean } = {}): Promise<void> {
  origin = await startOrigin((req, res) => serve(req, res));
  harness = await startProxyHarness({ proxy });
  host = await ExtensionHost.start(harness.engine, { extensions: dirs, watch: false, typeCheck: false, stateDir: harness.stateDir, persona: 'firefox', ...options });
  expect(host.rules().map((rule) => rule.state)).toEqual(dirs.map(() => 'active'));
}

/** The add-on Firefox ran: upper-cases every body it is given, at `stop`. */
const UPPER = `
browser.webRequest.onBeforeRequest.addListener((d) => {
  const filter = browser.webRequest.filterResponseData(d.requestId);
  const chunks = [];
  filter.ondata = (e) => { chunks.push(new TextDecoder().decode(e.data)); console.log('data ' + e.data.byteLength + ' ' + (e.data instanceof ArrayBuffer) + ' ' + filter.status); };
  filter.onstop = () => {
    console.log('stop ' + filter.status);
    filter.write(new TextEncoder().encode(chunks.join('').toUpperCase()));
    filter.close();
    console.log('after close ' + filter.status);
  };
}, { urls: ['<all_urls>'] }, ['blocking']);
`;

describe('webRequest.filterResponseData under the firefox persona', () => {
  it('rewrites the body on the wire: the client gets what the filter wrote, with no stale Content-Length', async () => {
    await start([await extension('Upper', UPPER)]);
    const response = await harness!.curl(['-s', '-i', `${origin!.url}/plain`]);
    const [head, body] = response.stdout.split('\r\n\r\n');
    expect(body).toBe('HELLO /PLAIN');
    expect(head).not.toMatch(/content-length/i);
    expect(head).toMatch(/^transfer-encoding: chunked\r?$/im);
    await expect.poll(() => logsOf(harness!.entries, 'Upper')).toEqual(['data 12 true transferringdata', 'stop finishedtransferringdata', 'after close closed']);
    // onCompleted fires once the filter closed, and the journal says what the filter did.
    await expect.poll(() => harness!.events(harness!.webRequestEntries()[0]!.details.requestId)).toContain('onCompleted');
    expect(logsOf(harness!.entries, 'capture').some((message) => message.includes('went through the StreamFilter of Upper (12 bytes in, 12 out)'))).toBe(true);
  });

  it('"a StreamFilter on a gzip response receives and writes the decoded body" (FACTS.md): the client gets it decoded, without Content-Encoding', async () => {
    await start([await extension('Upper', UPPER)]);
    const response = await harness!.fetch(`${origin!.url}/gzip`);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(await response.body.text()).toBe('HELLO GZIP WORLD');
    await expect.poll(() => logsOf(harness!.entries, 'Upper')[0]).toBe('data 16 true transferringdata');
  });

  it('gives a chunked body chunk by chunk, as it arrives', async () => {
    await start([await extension('Upper', UPPER)]);
    const response = await harness!.fetch(`${origin!.url}/chunked`);
    expect(await response.body.text()).toBe('ABCDEF');
    await expect.poll(() => logsOf(harness!.entries, 'Upper').slice(0, 2)).toEqual(['data 3 true transferringdata', 'data 3 true transferringdata']);
  });

  it('disconnect() lets the rest of the body through untouched; data with no ondata listener is lost', async () => {
    const code = `
      browser.webRequest.onBeforeRequest.addListener((d) => {
        const filter = browser.webRequest.filterResponseData(d.requestId);
        if (d.url.endsWith('/chunked')) {
          filter.ondata = (e) => { filter.write(new TextEncoder().encode('[' + new TextDecoder().decode(e.data) + ']')); filter.disconnect(); console.log('after disconnect ' + filter.status); };
        } else {
          filter.onstop = () => filter.close();
        }
      }, { urls: ['<all_urls>'] }, ['blocking']);`;
    await start([await extension('Partial', code)]);
    expect(await (await harness!.fetch(`${origin!.url}/chunked`)).body.text()).toBe('[abc]def');
    expect(await (await harness!.fetch(`${origin!.url}/nodata`)).body.text()).toBe('');
    expect(logsOf(harness!.entries, 'Partial')).toEqual(['after disconnect disconnected']);
  });

  it('throws NS_ERROR_FAILURE as Firefox does for a call in the wrong state, and tells "Invalid request ID" for a request it cannot filter', async () => {
    const code = `
      const wr = browser.webRequest;
      const attempt = (what, call) => { try { call(); console.log(what + ' ok'); } catch (e) { console.log(what + ' threw ' + e.name); } };
      wr.onBeforeRequest.addListener((d) => {
        if (!d.url.endsWith('/early')) return;
        const filter = wr.filterResponseData(d.requestId);
        console.log('created ' + filter.status);
        attempt('write before start', () => filter.write(new Uint8Array([65])));
        attempt('suspend before start', () => filter.suspend());
        filter.onstart = () => console.log('start ' + filter.status);
        filter.onstop = () => {
          filter.close();
          attempt('close twice', () => filter.close());
          attempt('disconnect after close', () => filter.disconnect());
          attempt('write after close', () => filter.write(new Uint8Array([65])));
        };
        filter.ondata = (e) => filter.write(e.data);
      }, { urls: ['<all_urls>'] }, ['blocking']);
      wr.onHeadersReceived.addListener((d) => {
        if (!d.url.endsWith('/bogus')) return;
        const filter = wr.filterResponseData('999999');
        filter.onerror = () => console.log('bogus: ' + filter.error + ' ' + filter.status);
      }, { urls: ['<all_urls>'] }, ['blocking']);
      wr.onResponseStarted.addListener((d) => {
        if (!d.url.endsWith('/late')) return;
        const filter = wr.filterResponseData(d.requestId);
        filter.onerror = () => console.log('late: ' + filter.error + ' ' + filter.status);
      }, { urls: ['<all_urls>'] });`;
    await start([await extension('States', code)]);
    expect(await (await harness!.fetch(`${origin!.url}/early`)).body.text()).toBe('hello /early');
    expect(await (await harness!.fetch(`${origin!.url}/bogus`)).body.text()).toBe('hello /bogus');
    expect(await (await harness!.fetch(`${origin!.url}/late`)).body.text()).toBe('hello /late');
    await expect.poll(() => logsOf(harness!.entries, 'States')).toEqual([
      'created uninitialized',
      'write before start threw NS_ERROR_FAILURE',
      'suspend before start threw NS_ERROR_FAILURE',
      'start transferringdata',
      'close twice ok',
      'disconnect after close threw NS_ERROR_FAILURE',
      'write after close threw NS_ERROR_FAILURE',
      'bogus: Invalid request ID failed',
      'late: Invalid request ID failed',
    ]);
  });

  it('fails a filter with "Channel redirected" when the client follows a server redirect; the redirect target is not filtered by it', async () => {
    const code = `
      browser.webRequest.onBeforeRequest.addListener((d) => {
        if (!d.url.endsWith('/redirect')) return;
        const filter = browser.webRequest.filterResponseData(d.requestId);
        filter.ondata = (e) => filter.write(new TextEncoder().encode('FILTERED'));
        filter.onstop = () => filter.close();
        filter.onerror = () => console.log('error: ' + filter.error + ' ' + filter.status);
      }, { urls: ['<all_urls>'] }, ['blocking']);`;
    await start([await extension('Redirected', code)]);
    const result = await harness!.curl(['-s', '-L', `${origin!.url}/redirect`]);
    expect(result.stdout).toBe('hello /target');
    await expect.poll(() => logsOf(harness!.entries, 'Redirected')).toEqual(['error: Channel redirected failed']);
  });

  it('chains filters with the one made last nearest the network: filters A then B on a body x give A(B(x)), as on Firefox', async () => {
    const code = `
      browser.webRequest.onBeforeRequest.addListener((d) => {
        for (const mark of ['A', 'B']) {
          const filter = browser.webRequest.filterResponseData(d.requestId);
          filter.ondata = (e) => filter.write(new TextEncoder().encode(mark + '(' + new TextDecoder().decode(e.data) + ')'));
          filter.onstop = () => filter.close();
        }
      }, { urls: ['<all_urls>'] }, ['blocking']);`;
    await start([await extension('Twice', code)]);
    expect(await (await harness!.fetch(`${origin!.url}/x`)).body.text()).toBe('A(B(hello /x))');
  });

  it('is undefined without webRequestBlocking, and in Manifest V3 without webRequestFilterResponse, and the journal says why', async () => {
    const code = `console.log('filterResponseData: ' + typeof browser.webRequest.filterResponseData);`;
    const observing = await extension('Observing', code, { ...MV2, permissions: ['webRequest', '<all_urls>'] });
    const mv3 = await extension('Mv3NoFilterPermission', code, { manifest_version: 3, permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'], background: { scripts: ['bg.js'] } });
    const mv3With = await extension('Mv3WithFilterPermission', code, { manifest_version: 3, permissions: ['webRequest', 'webRequestBlocking', 'webRequestFilterResponse'], host_permissions: ['<all_urls>'], background: { scripts: ['bg.js'] } });
    await start([observing, mv3, mv3With]);
    // Said as what the browser APIs it used do here: in one debug entry, once its start-up's notes are gathered.
    const why =
      'what one browser API it used does here (wrtui is a proxy, not a browser; each said once):\n  browser.webRequest.filterResponseData: undefined: Firefox gives it to an extension with the "webRequestBlocking" permission (and, in Manifest V3, "webRequestFilterResponse")';
    await expect.poll(() => [...logsOf(harness!.entries, 'Observing'), ...logsOf(harness!.entries, 'Mv3NoFilterPermission'), ...logsOf(harness!.entries, 'Mv3WithFilterPermission')], { timeout: 5000 }).toEqual([
      'filterResponseData: undefined',
      why,
      'filterResponseData: undefined',
      why,
      'filterResponseData: function',
    ]);
  });

  it('copies a 100 MiB stream through a filter byte for byte, with memory staying flat', { timeout: 120_000 }, async () => {
    const code = `
      browser.webRequest.onBeforeRequest.addListener((d) => {
        const filter = browser.webRequest.filterResponseData(d.requestId);
        filter.ondata = (e) => filter.write(e.data);
        filter.onstop = () => filter.close();
      }, { urls: ['<all_urls>'] }, ['blocking']);`;
    await start([await extension('Copy', code)]);
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    let atQuarter = 0;
    try {
      const response = await harness!.fetch(`${origin!.url}/big`);
      const hash = createHash('sha256');
      let bytes = 0;
      for await (const chunk of response.body) {
        hash.update(chunk as Buffer);
        bytes += (chunk as Buffer).length;
        if (!atQuarter && bytes >= BIG_BYTES / 4) atQuarter = process.memoryUsage().rss;
      }
      expect(bytes).toBe(BIG_BYTES);
      expect(hash.digest('hex')).toBe(bigDigest);
    } finally {
      clearInterval(sampler);
    }
    // Everything runs in this process (origin, proxy, the extension's worker, the client). Measured:
    // ~65 MiB of buffers and young generations once the stream is going, then level to the end. A
    // filter path that kept the body would grow by its 75 MiB between a quarter through and the end.
    const mib = (bytes: number) => bytes / 2 ** 20;
    expect(mib(process.memoryUsage().rss - atQuarter)).toBeLessThan(32);
    expect(mib(peak - baseline)).toBeLessThan(100);
  });

  it('a body that cannot be decoded fails its request (net::ERR_CONTENT_DECODING_FAILED) and the proxy goes on; a HEAD answer keeps its head', async () => {
    await start([await extension('Upper', UPPER)]);
    const broken = await harness!.curl(['-s', '-o', '/dev/null', `${origin!.url}/corrupt-gzip`]);
    expect(broken.code).not.toBe(0);
    const requestId = harness!.webRequestEntries((e) => e.details.url.endsWith('/corrupt-gzip'))[0]!.details.requestId;
    await expect.poll(() => harness!.webRequestEntries((e) => e.details.requestId === requestId && e.event === 'onErrorOccurred').map((e) => (e.details as { error?: string }).error)).toEqual(['net::ERR_CONTENT_DECODING_FAILED']);
    const head = await harness!.curl(['-s', '-I', `${origin!.url}/plain`]);
    expect(head.code).toBe(0);
    expect(head.stdout).toMatch(/^content-length: 12\r?$/im);
    expect(await (await harness!.fetch(`${origin!.url}/after`)).body.text()).toBe('HELLO /AFTER');
  });

  it('rewrites an intercepted HTTPS body too, to an HTTP/2 client and an HTTP/1.1 one', async () => {
    harness = await startProxyHarness({ proxy: { insecureUpstreamHosts: ['localhost'] } });
    // The CA's own certificate serves the origin; wrtui does not verify it for localhost (insecureUpstreamHosts).
    origin = await startOrigin((req, res) => serve(req, res), { tls: { cert: harness.ca.cert, key: harness.ca.key, hostname: 'localhost' } });
    host = await ExtensionHost.start(harness.engine, { extensions: [await extension('Upper', UPPER)], watch: false, typeCheck: false, stateDir: harness.stateDir, persona: 'firefox' });
    const h2 = await harness.curl(['--http2', '-w', ' %{http_version}', `${origin.url}/gzip`]);
    expect(h2.stdout).toBe('HELLO GZIP WORLD 2');
    const h1 = await harness.curl(['--http1.1', '-i', `${origin.url}/chunked`]);
    expect(h1.stdout).toMatch(/^transfer-encoding: chunked\r?$/im);
    expect(h1.stdout.endsWith('\r\n\r\nABCDEF')).toBe(true);
  });

  it('suspend() holds the body back until resume(); nothing is lost', async () => {
    const code = `
      browser.webRequest.onBeforeRequest.addListener((d) => {
        const filter = browser.webRequest.filterResponseData(d.requestId);
        const seen = [];
        filter.onstart = () => { filter.suspend(); console.log('suspended ' + filter.status); setTimeout(() => { filter.resume(); console.log('resumed ' + filter.status); }, 300); };
        filter.ondata = (e) => { seen.push(new TextDecoder().decode(e.data)); filter.write(e.data); };
        filter.onstop = () => { console.log('stop after ' + seen.join('|')); filter.close(); };
      }, { urls: ['<all_urls>'] }, ['blocking']);`;
    await start([await extension('Suspender', code)]);
    const started = Date.now();
    expect(await (await harness!.fetch(`${origin!.url}/chunked`)).body.text()).toBe('abcdef');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await expect.poll(() => logsOf(harness!.entries, 'Suspender')).toEqual(['suspended suspended', 'resumed transferringdata', 'stop after abc|def']);
  });

  it("a filter's worker stuck mid-body: the request fails and the proxy goes on serving (Firefox cancels a request whose filter's extension went away)", { timeout: 30_000 }, async () => {
    const code = `
      browser.webRequest.onBeforeRequest.addListener((d) => {
        if (!d.url.endsWith('/chunked')) return;
        const filter = browser.webRequest.filterResponseData(d.requestId);
        filter.ondata = () => { for (;;) {} };
      }, { urls: ['<all_urls>'] }, ['blocking']);`;
    await start([await extension('Stuck', code)], { limits: { stuckAfterMs: 1000, unresponsiveAfterMs: 300, heartbeatMs: 100 } });
    const result = await harness!.curl(['-s', '-o', '/dev/null', '-w', '%{http_code}', `${origin!.url}/chunked`]);
    expect(result.code).not.toBe(0); // the client sees a failed transfer, not a body cut short as if whole
    const requestId = harness!.webRequestEntries((e) => e.details.url.endsWith('/chunked'))[0]!.details.requestId;
    await expect.poll(() => harness!.events(requestId)).toContain('onErrorOccurred');
    expect(logsOf(harness!.entries, 'capture').some((message) => message.includes('the StreamFilter of Stuck went away mid-body'))).toBe(true);
    expect(await (await harness!.fetch(`${origin!.url}/after`)).body.text()).toBe('hello /after');
  });

  it('the TUI shows the body the client got (what the filter wrote, journaled after the server\'s, marked filteredBy), then the server\'s; body: searches both', async () => {
    const stamp = `
      browser.webRequest.onBeforeRequest.addListener((d) => {
        const filter = browser.webRequest.filterResponseData(d.requestId);
        filter.ondata = (e) => filter.write(e.data);
        filter.onstop = () => { filter.write(new TextEncoder().encode(' [stamped]')); filter.close(); };
      }, { urls: ['<all_urls>'] }, ['blocking']);`;
    await start([await extension('Stamp', stamp)], {}, { journalBodies: true });
    const store = new TrafficStore({ maxRequests: 10, flushIntervalMs: 0 });
    store.attach(harness!.engine.journal);
    try {
      expect((await harness!.curl(['-s', `${origin!.url}/plain`])).stdout).toBe('hello /plain [stamped]');
      const bodies = () => harness!.entries.filter((entry) => entry.kind === 'body' && entry.direction === 'response').map((entry) => entry.kind === 'body' && [entry.filteredBy, Buffer.from(entry.bytes).toString()]);
      await expect.poll(bodies).toEqual([
        [undefined, 'hello /plain'],
        [['Stamp'], 'hello /plain [stamped]'],
      ]);
      store.flush();
      const record = store.all()[0]!;
      const text = responseLines(record).map(lineText);
      const client = text.indexOf('Body the client got (22 B, written by the StreamFilter of Stamp)');
      const server = text.indexOf('Body as the server sent it (12 B as received)');
      expect(client).toBeGreaterThan(-1);
      expect(server).toBeGreaterThan(client);
      expect(text.slice(client, server).join('\n')).toContain('hello /plain [stamped]');
      expect(text.slice(server).join('\n')).not.toContain('[stamped]');
      const matches = (expression: string) => {
        const compiled = compileFilter(expression);
        return compiled.ok && compiled.predicate!(record);
      };
      expect(matches('body:stamped')).toBe(true);
      expect(matches('body:"hello /plain"')).toBe(true);
    } finally {
      store.close();
    }
  });
});

describe('filterResponseData in replay', () => {
  it('a StreamFilter gets the recorded body, decoded, as it got the live one; the replay stays identical', { timeout: 60_000 }, async () => {
    const filterRule = sessionRule(
      'filter-gzip',
      `  chrome.webRequest.onBeforeRequest.addListener((d: any) => {
    const filter = chrome.webRequest.filterResponseData(d.requestId);
    let text = '';
    filter.ondata = (e: any) => { text += new TextDecoder().decode(e.data); filter.write(e.data); };
    filter.onstop = () => { console.log('filtered: ' + text); filter.close(); };
  }, { urls: ['*://*/gzip'] }, ['blocking']);`,
      { persona: 'firefox' },
    );
    const recording = await recordSession({
      rules: { 'filter-gzip.ts': filterRule },
      async traffic(proxy, site) {
        expect((await proxy.curl(['-s', `${site.url}/gzip`])).stdout).toBe('compressed hello');
      },
    });
    try {
      const filtered = (entries: JournalEntry[]) => logsOf(entries, 'filter-gzip');
      expect(filtered(recording.live)).toEqual(['filtered: compressed hello']);
      const result = await replaySession(await openRecording(recording.file), { rulesDir: recording.rulesDir });
      expect(filtered(result.journal)).toEqual(['filtered: compressed hello']);
      expect(result.diffs.map((diff) => diff.identical)).toEqual([true]);
      // The recording keeps the server's body, not what the filter wrote (a replay runs it again),
      // and a replay that journals bodies (the TUI's) journals what the filter wrote after it.
      expect(recording.live.some((entry) => entry.kind === 'body' && entry.filteredBy)).toBe(true);
      expect(await readFile(recording.file, 'utf8')).not.toContain('filteredBy');
      const withBodies = await replaySession(await openRecording(recording.file), { rulesDir: recording.rulesDir, journalBodies: true, keepJournal: true });
      const bodies = withBodies.journal.filter((entry) => entry.kind === 'body' && entry.direction === 'response');
      expect(bodies.map((entry) => entry.kind === 'body' && [entry.filteredBy, Buffer.from(entry.bytes).toString()])).toEqual([
        [undefined, expect.any(String)], // the server's, gzipped
        [['filter-gzip'], 'compressed hello'],
      ]);
      expect(withBodies.diffs.map((diff) => diff.identical)).toEqual([true]);
    } finally {
      await recording.cleanup();
    }
  });
});
