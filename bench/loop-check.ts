// mockttp's passthrough loop check vs the loop guard, with 0 and 1,000 idle keep-alive client
// connections open. Run: node --import tsx bench/loop-check.ts
//
// The proxy (mockttp 4.6, one passthrough rule) runs alone in this process; a child process runs
// the origin (node:http on 127.0.0.1) and the clients, so client work does not eat the proxy's
// thread. Each round runs every variant in turn, in a rotating order, so machine noise hits all of
// them alike. Variants: guard off/on × 0/1,000 idle connections. The idle connections each did one
// request through the proxy (so mockttp holds an upstream socket for each) and then sit idle; they
// are opened before and closed after each 1,000-idle run, since mockttp drops idle client
// connections after Node's 5 s keep-alive timeout. The load: small GETs at concurrency 32 over
// keep-alive connections that are retired after 100 requests (browsers open new connections too,
// and only new connections can draw an ephemeral port that collides with an upstream socket).
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as mockttp from 'mockttp';
import { installLoopGuard, uninstallLoopGuard } from '../src/engine/capture/loop-guard.js';

const ROUNDS = 5;
const RUN_MS = 1_000;
const WARMUP_MS = 300;
const CONCURRENCY = 32;
const IDLE = 1_000;
const REQUESTS_PER_CONNECTION = 100;

type ToChild =
  | { type: 'open-idle'; proxyPort: number; count: number }
  | { type: 'close-idle' }
  | { type: 'run'; proxyPort: number; warmupMs: number; ms: number; concurrency: number };
type FromChild =
  | { type: 'ready'; originPort: number }
  | { type: 'idle-open'; ok: number; refusals: number }
  | { type: 'idle-closed' }
  | { type: 'ran'; ok: number; refusals: number; other: number; errors: number; ms: number };

// ---------------------------------------------------------------- child: origin and clients
async function child(): Promise<void> {
  const send = (message: FromChild) => process.send!(message);
  const origin = http.createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/plain');
    res.end('ok');
  });
  origin.keepAliveTimeout = 120_000; // the proxy's upstream sockets must not expire mid-run
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  const originPort = (origin.address() as AddressInfo).port;
  let idleAgent: http.Agent | undefined;

  function get(proxyPort: number, agent: http.Agent): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: proxyPort, path: `http://127.0.0.1:${originPort}/small`, agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.setTimeout(10_000, () => req.destroy(new Error('timed out')));
      req.on('error', reject);
    });
  }

  async function run(proxyPort: number, warmupMs: number, ms: number, concurrency: number) {
    const counts = { ok: 0, refusals: 0, other: 0, errors: 0 };
    let counting = false;
    const started = performance.now();
    const countFrom = started + warmupMs;
    const end = countFrom + ms;
    const worker = async () => {
      let agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      let used = 0;
      while (performance.now() < end) {
        if (used === REQUESTS_PER_CONNECTION) {
          agent.destroy();
          agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
          used = 0;
        }
        used++;
        counting = performance.now() >= countFrom;
        try {
          const reply = await get(proxyPort, agent);
          if (!counting) continue;
          if (reply.status === 200) counts.ok++;
          else if (reply.body.includes('Passthrough loop detected')) counts.refusals++;
          else counts.other++;
        } catch {
          if (counting) counts.errors++;
        }
      }
      agent.destroy();
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return { ...counts, ms: performance.now() - countFrom };
  }

  process.on('message', (message: ToChild) => {
    void (async () => {
      if (message.type === 'open-idle') {
        idleAgent = new http.Agent({ keepAlive: true, maxFreeSockets: message.count }); // default keeps 256
        const agent = idleAgent;
        const replies = await Promise.all(
          Array.from({ length: message.count }, () => get(message.proxyPort, agent).catch(() => ({ status: 0, body: '' }))),
        );
        send({
          type: 'idle-open',
          ok: replies.filter((reply) => reply.status === 200).length,
          refusals: replies.filter((reply) => reply.body.includes('Passthrough loop detected')).length,
        });
      } else if (message.type === 'close-idle') {
        idleAgent?.destroy();
        idleAgent = undefined;
        await new Promise((resolve) => setTimeout(resolve, 300)); // let the proxy see the closes
        send({ type: 'idle-closed' });
      } else {
        send({ type: 'ran', ...(await run(message.proxyPort, message.warmupMs, message.ms, message.concurrency)) });
      }
    })();
  });
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', originPort });
}

// ---------------------------------------------------------------- parent: the proxy
function ask<T extends FromChild['type']>(proc: ChildProcess, message: ToChild | null, type: T): Promise<Extract<FromChild, { type: T }>> {
  return new Promise((resolve) => {
    const onMessage = (reply: FromChild) => {
      if (reply.type !== type) return;
      proc.off('message', onMessage);
      resolve(reply as Extract<FromChild, { type: T }>);
    };
    proc.on('message', onMessage);
    if (message) proc.send(message);
  });
}

interface Variant {
  name: string;
  guard: boolean;
  idle: number;
  requests: number;
  ms: number;
  refusals: number;
  idleRefusals: number;
  other: number;
  errors: number;
  perRound: number[];
}

async function parent(): Promise<void> {
  const proc = fork(process.argv[1]!, ['--load-child'], { execArgv: process.execArgv });
  await ask(proc, null, 'ready');
  const proxy = mockttp.getLocal({ recordTraffic: false, maxBodySize: 1024 });
  await proxy.start();
  await proxy.forAnyRequest().always().thenPassThrough();
  await proxy.on('response', () => {}); // as the app does (drains mockttp's tracking)

  const variants: Variant[] = [
    { name: `0 idle, mockttp check`, guard: false, idle: 0 },
    { name: `0 idle, loop guard`, guard: true, idle: 0 },
    { name: `${IDLE} idle, mockttp check`, guard: false, idle: IDLE },
    { name: `${IDLE} idle, loop guard`, guard: true, idle: IDLE },
  ].map((v) => ({ ...v, requests: 0, ms: 0, refusals: 0, idleRefusals: 0, other: 0, errors: 0, perRound: [] }));

  // Warm the proxy's JIT before anything is measured.
  await ask(proc, { type: 'run', proxyPort: proxy.port, warmupMs: 0, ms: 1_000, concurrency: CONCURRENCY }, 'ran');
  console.log(`proxy on 127.0.0.1:${proxy.port}; ${ROUNDS} rounds × ${variants.length} variants × ${RUN_MS} ms at c=${CONCURRENCY}`);
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < variants.length; i++) {
      const variant = variants[(i + round) % variants.length]!;
      if (variant.guard) {
        const status = installLoopGuard();
        if (!status.installed) throw new Error(status.warning);
      } else {
        uninstallLoopGuard();
      }
      if (variant.idle) {
        const opened = await ask(proc, { type: 'open-idle', proxyPort: proxy.port, count: variant.idle }, 'idle-open');
        variant.idleRefusals += opened.refusals;
        if (opened.ok + opened.refusals !== variant.idle) console.log(`  (${variant.idle - opened.ok - opened.refusals} idle connections failed)`);
      }
      const ran = await ask(proc, { type: 'run', proxyPort: proxy.port, warmupMs: WARMUP_MS, ms: RUN_MS, concurrency: CONCURRENCY }, 'ran');
      if (variant.idle) await ask(proc, { type: 'close-idle' }, 'idle-closed');
      const answered = ran.ok + ran.refusals + ran.other;
      variant.requests += answered;
      variant.ms += ran.ms;
      variant.refusals += ran.refusals;
      variant.other += ran.other;
      variant.errors += ran.errors;
      variant.perRound.push(answered / (ran.ms / 1000));
    }
  }
  uninstallLoopGuard();
  proc.disconnect();
  await proxy.stop();

  const rate = (v: Variant) => v.requests / (v.ms / 1000);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const num = (n: number, width: number) => n.toFixed(0).padStart(width);
  console.log();
  console.log(
    `${'variant'.padEnd(26)}${'req/s'.padStart(7)}${'median'.padStart(8)}  ${'rounds (req/s)'.padEnd(30)}` +
      `${'refused'.padStart(8)}${'refused while opening idle'.padStart(28)}${'other'.padStart(7)}${'errors'.padStart(8)}`,
  );
  for (const v of variants) {
    console.log(
      `${v.name.padEnd(26)}${num(rate(v), 7)}${num(median(v.perRound), 8)}  ${v.perRound.map((r) => r.toFixed(0)).join(' / ').padEnd(30)}` +
        `${num(v.refusals, 8)}${(v.idle ? num(v.idleRefusals, 28) : '-'.padStart(28))}${num(v.other, 7)}${num(v.errors, 8)}`,
    );
  }
  const [off0, on0, offIdle, onIdle] = variants as [Variant, Variant, Variant, Variant];
  const ratio = (a: Variant, b: Variant) =>
    `${(rate(a) / rate(b)).toFixed(2)}× (medians ${(median(a.perRound) / median(b.perRound)).toFixed(2)}×)`;
  console.log();
  console.log(`guard / mockttp, 0 idle:        ${ratio(on0, off0)}`);
  console.log(`guard / mockttp, ${IDLE} idle:     ${ratio(onIdle, offIdle)}`);
  console.log(`${IDLE} idle / 0 idle, mockttp:    ${ratio(offIdle, off0)}`);
  console.log(`${IDLE} idle / 0 idle, guard:      ${ratio(onIdle, on0)}`);
  console.log(`("refused" = answered "Passthrough loop detected"; every request here is healthy)`);
}

if (process.argv.includes('--load-child')) await child();
else await parent();
