// The HTTPS variant of bench/proxy.ts (issue #37): wrtui intercepting TLS against a node:http MITM
// floor, in the same rounds, printed as a ratio. Both terminate the client's CONNECT tunnel with a
// certificate from wrtui's CA, parse HTTP inside it and forward to an HTTPS origin on kept-alive
// upstream connections:
//   wrtui  the real `wrtui headless` (bin/wrtui.js: build first), no rules, --insecure-upstream 127.0.0.1
//   floor  a plain Node MITM: node:http's 'connect', a TLSSocket with a leaf certificate that openssl
//          mints from the same wrtui CA, node:http parsing inside, https.request to the origin, bodies piped
// 32 clients GET 1 KiB, each through a tunnel of its own, kept open or churned (a new tunnel and TLS
// handshake every 100 requests). CPU per request is each proxy process's (all threads, /proc);
// rounds interleave the two (order reversed every other round); ratios are medians of each round's.
// Run: node scripts/build.js && node --import tsx bench/proxy-tls.ts   (TLS_ROUNDS default 4, TLS_MS default 2500)
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import tls from 'node:tls';

const TICK_MICROS = 1_000_000 / 100; // USER_HZ

// ── the floor, in a process of its own: node --import tsx bench/proxy-tls.ts floor <cert> <key> ──
if (process.argv[2] === 'floor') {
  const [certFile, keyFile] = process.argv.slice(3) as [string, string];
  const context = tls.createSecureContext({ cert: readFileSync(certFile), key: readFileSync(keyFile) });
  const agent = new https.Agent({ keepAlive: true, maxSockets: 256, rejectUnauthorized: false });
  const inner = http.createServer((req, res) => {
    const target = (req.socket as tls.TLSSocket & { target: string }).target;
    const [hostname, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
    const upstream = https.request({ hostname, port, path: req.url, method: req.method, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode!, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  const front = http.createServer();
  front.on('connect', (req: http.IncomingMessage, socket: net.Socket) => {
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    const secure = new tls.TLSSocket(socket, { isServer: true, secureContext: context }) as tls.TLSSocket & { target: string };
    secure.target = req.url!;
    secure.on('error', () => socket.destroy());
    inner.emit('connection', secure);
  });
  front.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(front.address() as AddressInfo).port}\n`));
} else {
  await main();
}

async function main(): Promise<void> {
  const ROUNDS = Number(process.env.TLS_ROUNDS ?? 4);
  const RUN_MS = Number(process.env.TLS_MS ?? 2500);
  const WARMUP_MS = 400;
  const CONCURRENCY = 32;
  const CHURN_AFTER = 100;
  const root = resolve(import.meta.dirname, '..');
  const scratch = mkdtempSync(join(tmpdir(), 'wrtui-bench-tls-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const children: ChildProcess[] = [];
  try {
    // wrtui first: it makes the CA the floor's certificate comes from.
    mkdirSync(join(scratch, 'rules'));
    const wrtui = spawn(process.execPath, [join(root, 'bin/wrtui.js'), 'headless', '--port', '0', '--incognito-port', '0', '--host', '127.0.0.1', '--no-watch', '--rules', join(scratch, 'rules'), '--state-dir', join(scratch, 'state'), '--insecure-upstream', '127.0.0.1'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(wrtui);
    const wrtuiPort = await firstLine(wrtui, (line) => {
      const listening = /^wrtui listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      return listening ? Number(listening[1]) : undefined;
    });
    // From here on wrtui's stdout (a line per request) is read and dropped, as `> /dev/null` would.
    wrtui.stdout!.resume();

    // The origin's certificate (self-signed: both proxies are told not to verify it) and the floor's leaf from wrtui's CA.
    const file = (name: string) => join(scratch, name);
    openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', file('origin.key'), '-out', file('origin.pem'), '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1');
    openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', file('leaf.key'), '-out', file('leaf.csr'), '-subj', '/CN=127.0.0.1');
    writeFileSync(file('leaf.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
    openssl('x509', '-req', '-in', file('leaf.csr'), '-CA', join(scratch, 'state/ca.pem'), '-CAkey', join(scratch, 'state/ca.key'), '-CAcreateserial', '-out', file('leaf.pem'), '-days', '2', '-extfile', file('leaf.ext'));

    const floor = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, 'floor', file('leaf.pem'), file('leaf.key')], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(floor);
    const floorPort = await firstLine(floor, (line) => (line.startsWith('listening ') ? Number(line.slice(10)) : undefined));

    const origin = https.createServer({ cert: readFileSync(file('origin.pem')), key: readFileSync(file('origin.key')) }, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '1024' });
      res.end('k'.repeat(1024));
    });
    origin.keepAliveTimeout = 120_000;
    await new Promise<void>((done) => origin.listen(0, '127.0.0.1', done));
    const originPort = (origin.address() as AddressInfo).port;
    const failures = new Map<string, number>();
    const fail = (what: string) => failures.set(what, (failures.get(what) ?? 0) + 1);

    const load = async (proxyPort: number, ms: number, churned: boolean): Promise<number> => {
      const until = Date.now() + ms;
      let ok = 0;
      const client = async () => {
        let agent = tunnelAgent(proxyPort);
        let used = 0;
        while (Date.now() < until) {
          if (churned && used === CHURN_AFTER) {
            agent.destroy();
            agent = tunnelAgent(proxyPort);
            used = 0;
          }
          used++;
          const answered = await new Promise<number>((done) => {
            https
              .get({ host: '127.0.0.1', port: originPort, path: '/kib', agent }, (response) => {
                response.resume();
                response.on('end', () => {
                  if (response.statusCode !== 200) fail(`HTTP ${response.statusCode}`);
                  done(response.statusCode === 200 ? 1 : 0);
                });
              })
              .on('error', (error: NodeJS.ErrnoException) => {
                fail(error.code ?? error.message);
                done(0);
              });
          });
          ok += answered;
        }
        agent.destroy();
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, client));
      return ok;
    };

    interface Side {
      name: string;
      pid: number;
      port: number;
      cpu: Record<'kept' | 'churned', number[]>;
      rate: Record<'kept' | 'churned', number[]>;
    }
    const sides: Side[] = [
      { name: 'node:http MITM floor', pid: floor.pid!, port: floorPort, cpu: { kept: [], churned: [] }, rate: { kept: [], churned: [] } },
      { name: 'wrtui headless', pid: wrtui.pid!, port: wrtuiPort, cpu: { kept: [], churned: [] }, rate: { kept: [], churned: [] } },
    ];
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of ['kept', 'churned'] as const) {
        for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
          await load(side.port, WARMUP_MS, mode === 'churned');
          const before = processCpu(side.pid);
          const started = performance.now();
          const ok = await load(side.port, RUN_MS, mode === 'churned');
          side.rate[mode].push(ok / ((performance.now() - started) / 1000));
          side.cpu[mode].push((processCpu(side.pid) - before) / ok);
        }
      }
      console.log(`round ${round + 1}/${ROUNDS}: ${sides.map((s) => `${s.name} ${s.cpu.kept.at(-1)!.toFixed(0)}/${s.cpu.churned.at(-1)!.toFixed(0)} µs/req`).join(', ')} (kept/churned)`);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const [floorSide, wrtuiSide] = sides as [Side, Side];
    const load1 = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(`\nHTTPS through a CONNECT tunnel, TLS intercepted, 1 KiB GETs, 32 clients (median of ${ROUNDS} rounds × ${RUN_MS} ms; load average ${load1})`);
    console.log('proxy                     tunnels     CPU µs/req   req/s   CPU ratio to the floor (paired)');
    for (const mode of ['kept', 'churned'] as const) {
      for (const side of sides) {
        const ratio = median(side.cpu[mode].map((value, i) => value / floorSide.cpu[mode][i]!));
        console.log(`${side.name.padEnd(25)} ${(mode === 'kept' ? 'kept open' : `new per ${CHURN_AFTER}`).padEnd(11)} ${median(side.cpu[mode]).toFixed(0).padStart(10)} ${median(side.rate[mode]).toFixed(0).padStart(7)}   ${ratio.toFixed(2)}×`);
      }
    }
    const goal = median(wrtuiSide.cpu.kept.map((value, i) => value / floorSide.cpu.kept[i]!));
    console.log(`goal (issue #37): wrtui within 2.2× the node:http MITM floor, tunnels kept open: ${goal <= 2.2 ? 'MET' : 'NOT MET'} (${goal.toFixed(2)}×)`);
    if (failures.size > 0) console.log(`not answered 200: ${[...failures].map(([what, n]) => `${what} ×${n}`).join(', ')}`);
    origin.close();
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((child) => (child.exitCode !== null || child.signalCode !== null ? undefined : new Promise((done) => child.once('exit', done)))));
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** CPU µs of a whole process, all its threads (/proc/<pid>/stat utime + stime). */
function processCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MICROS;
}

/** Waits for the child's first stdout line that `pick` makes something of. */
function firstLine<T>(child: ChildProcess, pick: (line: string) => T | undefined): Promise<T> {
  return new Promise((resolvePromise, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const picked = pick(line);
        if (picked !== undefined) {
          child.stdout!.off('data', onData);
          resolvePromise(picked);
          return;
        }
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited (${code}) before it was listening`)));
  });
}

/**
 * A keep-alive HTTPS agent (one connection) whose connection is a CONNECT tunnel through the proxy
 * on `proxyPort`, with TLS inside it; the proxy's certificate is not verified (the bench's CA).
 */
function tunnelAgent(proxyPort: number): https.Agent {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  (agent as unknown as { createConnection: unknown }).createConnection = (options: { host: string; port: number }, done: (error: Error | null, socket?: net.Socket) => void) => {
    const raw = net.connect(proxyPort, '127.0.0.1');
    raw.once('connect', () => raw.write(`CONNECT ${options.host}:${options.port} HTTP/1.1\r\nHost: ${options.host}:${options.port}\r\n\r\n`));
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      raw.off('data', onData);
      raw.off('error', done);
      if (!/^HTTP\/1\.[01] 200/.test(head.toString('latin1', 0, end))) {
        raw.destroy();
        done(new Error(`CONNECT refused: ${head.toString('latin1', 0, end).split('\r\n')[0]}`));
        return;
      }
      done(null, tls.connect({ socket: raw, rejectUnauthorized: false }));
    };
    raw.on('data', onData);
    raw.on('error', done);
    return undefined;
  };
  return agent;
}
