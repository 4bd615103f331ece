// How long one frame of the TUI takes to build and draw, in-process, without a proxy: the App
// over a store holding `--requests` folded requests, redrawn `--frames` times into a fake
// terminal of the given size while new requests keep arriving (follow mode moves every row).
// Ink's own frame composition and wrtui's (src/ui/ink-fast-output.ts) take turns in blocks of
// frames, in one run, so the ratio between them is measured side by side.
//
//   node --import tsx bench/tui/frame-cost.tsx [--requests 3000] [--frames 200] [--columns 120] [--rows 40] [--long-urls]
//
// NODE_ENV=production shows what React's development build costs (wrtui runs whichever the
// environment picks).
import { render } from 'ink';
import { installFastInkOutput } from '../../src/ui/ink-fast-output.js';
import { EventEmitter } from 'node:events';
import { parseArgs } from 'node:util';
import { Journal } from '../../src/engine/journal.js';
import type { WebRequestEventName } from '../../src/engine/types.js';
import { App } from '../../src/ui/components/App.js';
import { FrameCost } from '../../src/ui/frame-cost.js';
import { createEngineBackend } from '../../src/ui/session-backend.js';
import { TrafficStore } from '../../src/ui/store/traffic-store.js';
import { Engine } from '../../src/engine/engine.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '3000' },
    frames: { type: 'string', default: '200' },
    columns: { type: 'string', default: '120' },
    rows: { type: 'string', default: '40' },
    'long-urls': { type: 'boolean', default: false },
  },
});
const columns = Number(values.columns);
const rows = Number(values.rows);

class FakeTerminal extends EventEmitter {
  isTTY = true;
  columns = columns;
  rows = rows;
  bytes = 0;
  write(chunk: string): boolean {
    this.bytes += chunk.length;
    return true;
  }
}
class FakeInput extends EventEmitter {
  isTTY = true;
  setRawMode() {}
  setEncoding() {}
  ref() {}
  unref() {}
  read() {
    return null;
  }
}

const composition = await installFastInkOutput();
if (!composition) throw new Error('ink-fast-output.ts did not install: Ink changed shape');
const engine = await Engine.open({});
const journal = new Journal();
const store = new TrafficStore({ maxRequests: Number(values.requests), flushIntervalMs: 0 });
store.attach(journal);
let id = 0;
function requestEntries(): void {
  const requestId = String(++id);
  // Long URLs are cut in the list, as real ones mostly are.
  const query = values['long-urls'] ? '&session=abcdefghijklmnopqrstuvwxyz0123456789&utm_source=newsletter&utm_campaign=winter' : '';
  const url = `http://127.0.0.1:4000/api/items/${id}?page=${id % 7}${query}`;
  const base = { requestId, url, method: 'GET', frameId: -1, parentFrameId: -1, tabId: -1, type: 'xmlhttprequest' as const };
  const headers = [{ name: 'Host', value: '127.0.0.1:4000' }, { name: 'Accept', value: 'application/json' }];
  const responseHeaders = [{ name: 'Content-Type', value: 'application/json' }, { name: 'Content-Length', value: '27' }];
  const events: [WebRequestEventName, object][] = [
    ['onBeforeRequest', {}],
    ['onBeforeSendHeaders', { requestHeaders: headers }],
    ['onSendHeaders', { requestHeaders: headers }],
    ['onHeadersReceived', { statusCode: 200, statusLine: 'HTTP/1.1 200 OK', responseHeaders }],
    ['onResponseStarted', { statusCode: 200, statusLine: 'HTTP/1.1 200 OK', responseHeaders, fromCache: false, ip: '127.0.0.1' }],
    ['onCompleted', { statusCode: 200, statusLine: 'HTTP/1.1 200 OK', responseHeaders, fromCache: false, ip: '127.0.0.1' }],
  ];
  for (const [event, extra] of events) {
    journal.append({ kind: 'webRequest', event, details: { ...base, timeStamp: Date.now(), ...extra } as never, outcomes: [] });
  }
}
for (let index = 0; index < Number(values.requests); index++) requestEntries();
store.flush();

const backend = createEngineBackend({ engine, rules: undefined, proxyUrl: 'http://127.0.0.1:8080', incognitoProxyUrl: undefined, ca: undefined, stateDir: '/tmp/wrtui-frame-cost', mode: 'live', writeToTerminal: () => {} });
const stdout = new FakeTerminal();
let inkMs = 0;
let frameMs = 0;
let frames = 0;
// The same accounting as the TUI's (src/ui/frame-cost.ts).
const frameCost = new FrameCost((ms) => (frameMs += ms));
const instance = render(<App store={store} backend={backend} onQuit={() => {}} frameCost={frameCost} />, {
  stdout: stdout as unknown as NodeJS.WriteStream,
  stdin: new FakeInput() as unknown as NodeJS.ReadStream,
  patchConsole: false,
  exitOnCtrlC: false,
  maxFps: 1000,
  onRender: ({ renderTime }) => {
    frameCost.inkDrew(renderTime);
    inkMs += renderTime;
    frames++;
  },
});
await new Promise((resolve) => setTimeout(resolve, 50));

interface Totals {
  frames: number;
  inkMs: number;
  frameMs: number;
  cpuMs: number;
  wallMs: number;
  bytes: number;
}
const totals: Record<'ink' | 'fast', Totals> = {
  ink: { frames: 0, inkMs: 0, frameMs: 0, cpuMs: 0, wallMs: 0, bytes: 0 },
  fast: { frames: 0, inkMs: 0, frameMs: 0, cpuMs: 0, wallMs: 0, bytes: 0 },
};
const total = Number(values.frames);
const BLOCK = 25;
for (let block = 0; block * BLOCK < total * 2; block++) {
  const mode = block % 2 === 0 ? 'ink' : 'fast';
  composition.use(mode);
  frames = 0;
  inkMs = 0;
  frameMs = 0;
  stdout.bytes = 0;
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  for (let frame = 0; frame < BLOCK; frame++) {
    for (let index = 0; index < 30; index++) requestEntries(); // ~1000 req/s at 30 frames/s
    store.flush();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const cpu = process.cpuUsage(cpuStart);
  const sum = totals[mode];
  sum.frames += frames;
  sum.inkMs += inkMs;
  sum.frameMs += frameMs;
  sum.cpuMs += (cpu.user + cpu.system) / 1000;
  sum.wallMs += performance.now() - started;
  sum.bytes += stdout.bytes;
}
instance.unmount();
await engine.close();
const perFrame = (sum: Totals) => ({
  frames: sum.frames,
  frameMs: +(sum.frameMs / Math.max(1, sum.frames)).toFixed(2),
  inkDrawingMs: +(sum.inkMs / Math.max(1, sum.frames)).toFixed(2),
  cpuMsPerFrame: +(sum.cpuMs / Math.max(1, sum.frames)).toFixed(2),
  bytesPerFrame: Math.round(sum.bytes / Math.max(1, sum.frames)),
});
const ink = perFrame(totals.ink);
const fast = perFrame(totals.fast);
console.log(`frame cost at ${columns}x${rows}, ${values.requests} requests held, 30 new per frame (React ${process.env.NODE_ENV === 'production' ? 'production' : 'development'} build)`);
console.table({ "Ink's composition": ink, "wrtui's composition": fast });
console.log(`frame ms ratio (Ink's / wrtui's): ${(ink.frameMs / fast.frameMs).toFixed(2)}x; bytes written per frame are the same: ${ink.bytesPerFrame === fast.bytesPerFrame}`);
