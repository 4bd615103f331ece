// The load for bench/tui.ts, in its own process (so that its work never counts as wrtui's): an
// origin on 127.0.0.1 and clients sending GETs through the proxy at a steady rate for a bounded
// time. Paced, not flat out: the question is what the UI costs at a given rate, not the top rate.
//
//   node --import tsx bench/tui/load.ts <proxy-url> <requests-per-second> <seconds> [connections]
//
// Prints one JSON line at the end: sent, ok, failed, the latency percentiles (ms).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const [proxyUrl, rateText = '1000', secondsText = '30', connectionsText = '32'] = process.argv.slice(2);
if (!proxyUrl) {
  process.stderr.write('usage: load.ts <proxy-url> <requests-per-second> <seconds> [connections]\n');
  process.exit(2);
}
const rate = Number(rateText);
const seconds = Number(secondsText);
const connections = Number(connectionsText);
const proxy = new URL(proxyUrl);
if (!['127.0.0.1', 'localhost', '[::1]'].includes(proxy.hostname)) throw new Error('the load only goes to a proxy on this machine');

const body = Buffer.from('{"ok":true,"items":[1,2,3]}');
const origin = http.createServer((_request, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(body.length), 'Cache-Control': 'no-store' });
  res.end(body);
});
origin.keepAliveTimeout = 120_000;
await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
const originPort = (origin.address() as AddressInfo).port;

// One keep-alive connection per agent; requests go round-robin over them. Absolute-form targets
// to a plain HTTP proxy, as a browser sends them.
const agents = Array.from({ length: connections }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
const latencies: number[] = [];
let sent = 0;
let ok = 0;
let failed = 0;
let inFlight = 0;
const maxInFlight = connections * 4;

function sendOne(index: number): void {
  sent++;
  inFlight++;
  const started = performance.now();
  const path = `/api/items/${index}?page=${index % 7}`;
  const request = http.request(
    {
      host: proxy.hostname,
      port: Number(proxy.port),
      method: 'GET',
      path: `http://127.0.0.1:${originPort}${path}`,
      headers: { Host: `127.0.0.1:${originPort}`, Accept: 'application/json' },
      agent: agents[index % agents.length],
    },
    (response) => {
      response.resume();
      response.on('end', () => {
        inFlight--;
        if (response.statusCode === 200) ok++;
        else failed++;
        latencies.push(performance.now() - started);
      });
    },
  );
  request.on('error', () => {
    inFlight--;
    failed++;
  });
  request.end();
}

// Pace in 10 ms slots; a slot whose requests cannot go out (too many in flight) is skipped and
// counted as not sent, so an overloaded proxy shows as a shortfall, not as a queue that grows.
const slotMs = 10;
const perSlot = rate / (1000 / slotMs);
let owed = 0;
let index = 0;
let skipped = 0;
const startedAt = performance.now();
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    if (performance.now() - startedAt >= seconds * 1000) {
      clearInterval(timer);
      resolve();
      return;
    }
    owed += perSlot;
    while (owed >= 1) {
      owed--;
      if (inFlight >= maxInFlight) skipped++;
      else sendOne(index++);
    }
  }, slotMs);
});
// Let what is in flight finish (bounded).
const drainDeadline = performance.now() + 10_000;
while (inFlight > 0 && performance.now() < drainDeadline) await new Promise((resolve) => setTimeout(resolve, 20));
const elapsed = (performance.now() - startedAt) / 1000;

latencies.sort((a, b) => a - b);
const percentile = (p: number) => (latencies.length === 0 ? 0 : latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!);
process.stdout.write(
  `${JSON.stringify({ sent, ok, failed, skipped, seconds: elapsed, achievedPerSecond: ok / seconds, latencyP50Ms: percentile(50), latencyP99Ms: percentile(99), latencyMaxMs: latencies.at(-1) ?? 0 })}\n`,
);
for (const agent of agents) agent.destroy();
origin.closeAllConnections();
origin.close();
