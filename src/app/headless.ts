// `wrtui headless`: the proxy and the rules with no UI. With --json every journal entry is one
// NDJSON line on stdout, the first being {"kind":"listening",…}; otherwise one line per request.
import { resolve as resolvePath } from 'node:path';
import type { JournalEntry } from '../engine/journal.js';
import { announceListening, startCaptureSession, type SessionOptions } from './capture-session.js';
import { toJsonLine } from './json-line.js';
import { recordedClause } from './record-session.js';
import { createRequestLog } from './request-log.js';

export interface HeadlessOptions extends SessionOptions {
  json: boolean;
}

export async function runHeadless(options: HeadlessOptions): Promise<void> {
  const write = (line: string) => process.stdout.write(`${line}\n`);
  const requestLog = options.json ? undefined : createRequestLog(write);
  const print = requestLog ?? ((entry: JournalEntry) => write(toJsonLine(entry)));

  // Every entry from seq 1 (start-up: cookies set aside, rules loading, CA warnings), after the
  // "listening" line, which the contract puts first: then in seq order.
  const early: JournalEntry[] = [];
  let listening = false;
  // A signal during start-up (the rules loading, the proxies opening) stops it once it has started,
  // cleanly, rather than killing it half-open; a second one kills it at once, as before.
  let stopAsked: NodeJS.Signals | undefined;
  const askStop = (signal: NodeJS.Signals) => {
    if (!stopAsked) return void (stopAsked = signal);
    unaskable();
    process.kill(process.pid, signal);
  };
  const unaskable = () => {
    process.off('SIGINT', askStop);
    process.off('SIGTERM', askStop);
  };
  process.on('SIGINT', askStop);
  process.on('SIGTERM', askStop);
  // Kept until the stopping handlers replace it: with no handler at all a signal kills at once.
  const session = await startCaptureSession(options).catch((error: unknown) => {
    unaskable();
    throw error;
  });
  session.engine.journal.subscribe(
    (entry) => {
      if (listening) print(entry);
      else if (entry.kind === 'listening') {
        listening = true;
        print(entry);
        for (const queued of early.splice(0)) print(queued);
      } else early.push(entry);
    },
    { fromStart: true },
  );
  announceListening(session, options);

  await new Promise<void>((resolve) => {
    const stop = async (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      session.engine.journal.append({ kind: 'log', level: 'info', source: 'wrtui', message: `stopping on ${signal}` });
      await session.close();
      // One line at the end (stderr under --json, whose stdout is the journal's alone).
      const saved = `cookie store saved in ${resolvePath(options.stateDir)}${recordedClause(session.recorder)}`;
      if (requestLog) write(`wrtui stopped on ${signal}: ${requestLog.summary()}; ${saved}`);
      else process.stderr.write(`wrtui stopped on ${signal}; ${saved}\n`);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    unaskable();
    if (stopAsked) void stop(stopAsked);
  });
}
