// How long one frame of the TUI takes to build and draw, in-process, without a proxy: the App
// over a store holding `--requests` folded requests, redrawn `--frames` times into a fake
// terminal of the given size while new requests keep arriving (follow mode moves every row).
//
//   node --import tsx bench/tui/frame-cost.tsx [--requests 3000] [--frames 200] [--columns 120] [--rows 40] [--long-urls]
//
// NODE_ENV=production shows what React's development build costs (wrtui runs whichever the
// environment picks).
import { render } from 'ink';
import { EventEmitter } from 'node:events';
import { parseArgs } from 'node:util';
import { Journal } from '../../src/engine/journal.js';
import type { WebRequestEventName } from '../../src/engine/types.js';
import { App } from '../../src/ui/components/App.js';
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
let frames = 0;
const instance = render(<App store={store} backend={backend} onQuit={() => {}} />, {
  stdout: stdout as unknown as NodeJS.WriteStream,
  stdin: new FakeInput() as unknown as NodeJS.ReadStream,
  patchConsole: false,
  exitOnCtrlC: false,
  maxFps: 1000,
  onRender: ({ renderTime }) => {
    inkMs += renderTime;
    frames++;
  },
});
await new Promise((resolve) => setTimeout(resolve, 50));
frames = 0;
inkMs = 0;
const cpuStart = process.cpuUsage();
const started = performance.now();
const total = Number(values.frames);
for (let frame = 0; frame < total; frame++) {
  for (let index = 0; index < 30; index++) requestEntries(); // ~1000 req/s at 30 frames/s
  store.flush();
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 2));
}
const wall = performance.now() - started;
const cpu = process.cpuUsage(cpuStart);
instance.unmount();
await engine.close();
console.log(
  JSON.stringify({
    react: process.env.NODE_ENV === 'production' ? 'production' : 'development',
    frames,
    cpuMsPerFrame: +((cpu.user + cpu.system) / 1000 / total).toFixed(2),
    inkOutputMsPerFrame: +(inkMs / Math.max(1, frames)).toFixed(2),
    wallMsPerFrame: +(wall / total).toFixed(2),
    bytesPerFrame: Math.round(stdout.bytes / Math.max(1, frames)),
  }),
);
