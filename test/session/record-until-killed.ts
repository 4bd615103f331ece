// A child process for the crash-safety test (session-file.test.ts): records a session whose
// journal grows as fast as it can, until the test kills it with SIGKILL mid-write.
import { Engine } from '../../src/engine/engine.js';
import { SessionRecorder } from '../../src/engine/session/session-recorder.js';

const file = process.argv[2]!;
const engine = await Engine.open({});
await SessionRecorder.start(engine, { file, redact: false, maxBodySize: 1024, flushIntervalMs: 5 });
process.stdout.write('recording\n');
const payload = 'x'.repeat(3000);
let count = 0;
const burst = (): void => {
  for (let i = 0; i < 40; i++) engine.journal.append({ kind: 'log', level: 'info', source: 'crash-test', message: `${count++} ${payload}` });
  setImmediate(burst);
};
burst();
