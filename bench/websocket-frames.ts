// What reading WebSocket messages off a spliced connection costs the proxy's thread: the same
// masked frames fed to the reader in 16 KiB reads (as a socket delivers them), against copying
// the same reads once (a floor: touching every byte), side by side in one run. CPU time is
// the process's own from /proc (utime+stime), beside wall time (which swings on a shared machine).
//
//   node --import tsx bench/websocket-frames.ts [messages] [payload bytes]
import { readFileSync } from 'node:fs';
import { WebSocketFrameReader } from '../src/engine/capture/websocket-frames.js';

const messages = Number(process.argv[2] ?? 200_000);
const payloadBytes = Number(process.argv[3] ?? 100);

function frame(payload: Buffer): Buffer {
  const key = Buffer.from([1, 2, 3, 4]);
  const head = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 255]);
  return Buffer.concat([head, key, Buffer.from(payload.map((byte, index) => byte ^ key[index & 3]!))]);
}

const stream = Buffer.concat(Array.from({ length: messages }, (_, index) => frame(Buffer.alloc(payloadBytes, 97 + (index % 26)))));
const reads: Buffer[] = [];
for (let at = 0; at < stream.length; at += 16 * 1024) reads.push(stream.subarray(at, at + 16 * 1024));

/** CPU ms of this process so far (utime + stime, clock ticks of 10 ms). */
function cpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function measure(name: string, run: () => void): { name: string; wallMs: number; cpuMs: number } {
  run(); // warm up
  const cpu = cpuMs();
  const start = performance.now();
  for (let round = 0; round < 3; round++) run();
  return { name, wallMs: (performance.now() - start) / 3, cpuMs: (cpuMs() - cpu) / 3 };
}

let sink = 0;
const bare = measure('copy each read', () => {
  for (const read of reads) sink += Buffer.from(read)[0]!;
});
const reader = measure('reads + frame reader', () => {
  let count = 0;
  const frames = new WebSocketFrameReader({ maxBytes: 256 * 1024, onMessage: () => count++ });
  for (const read of reads) frames.push(read);
  if (count !== messages) throw new Error(`read ${count} of ${messages} messages`);
});
console.log(`${messages} masked text messages of ${payloadBytes} B (${(stream.length / 1024 / 1024).toFixed(1)} MiB) in 16 KiB reads; sink ${sink % 10}`);
for (const result of [bare, reader]) {
  console.log(`${result.name.padEnd(24)} wall ${result.wallMs.toFixed(1).padStart(7)} ms  cpu ${result.cpuMs.toFixed(0).padStart(5)} ms  cpu/message ${((result.cpuMs * 1000) / messages).toFixed(2)} µs  ${((stream.length / 1024 / 1024) / (result.wallMs / 1000)).toFixed(0)} MiB/s`);
}
console.log(`ratio reader/copy (cpu): ${(reader.cpuMs / Math.max(1, bare.cpuMs)).toFixed(1)}x`);
