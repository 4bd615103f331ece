// The `wrtui` command (meow). The contract is ARCHITECTURE.md's "CLI" section.
import meow from 'meow';
import { resolve } from 'node:path';
import { describeCertificateAuthority, loadOrCreateCertificateAuthority } from './engine/capture/certificate-authority.js';
import { DEFAULT_STATE_DIR } from './engine/engine.js';
import { runHeadless } from './app/headless.js';
import { runReplayCommand } from './app/replay.js';

const cli = meow(
  `
  Usage
    $ wrtui [options]               interactive inspector (the TUI)
    $ wrtui headless [options]      no UI; with --json the journal as NDJSON on stdout
    $ wrtui replay <file> [options] replay a recorded session or a HAR 1.2 file through the rules
    $ wrtui ca                      where wrtui's CA certificate is and how to trust it

  Options
    --port <n>               proxy port for cookie store "0"                       [8080]
    --incognito-port <n>     second port, whose traffic uses cookie store "1"; 0 = off  [port + 1]
    --host <addr>            who may use the proxy: loopback always; 0.0.0.0 = anyone [127.0.0.1]
    --rules <dir>            rule files and unpacked extensions (sub-folders)       [./rules]
    --extension <dir>        an unpacked extension (manifest.json), loaded unchanged (repeatable)
    --worker-heap <MB>       heap cap of each rule's or extension's worker              [1024]
    --dry-run                compute every rule's verdicts, apply none
    --record <file>          record the session to a new file (0600; see wrtui replay)
    --redact                 with --record: no Authorization, Cookie, Set-Cookie values in the file
    --state-dir <dir>        cookie stores, CA, settings                            [.wrtui]
    --json                   headless: NDJSON on stdout
    --no-watch               load rules once, do not reload on save
    --insecure-upstream <h>  do not verify the TLS certificate of host h (repeatable)
    --max-body-size <bytes>  body bytes kept (requestBody, journal, cache); more streams [1048576]
    --listener-timeout <ms>  a blocking listener's time to answer                   [5000]
    --upstream-timeout <ms>  upstream silent this long: net::ERR_TIMED_OUT (0: never) [300000]
    --cache                  an in-memory HTTP cache (fromCache; flushed by handlerBehaviorChanged)
    --max-requests <n>       TUI: requests kept in memory; the oldest are dropped        [5000]

  Replay options (wrtui replay <session file | headless NDJSON | HAR>)
    --rules <dir> --extension <dir> --dry-run --listener-timeout <ms>   as above (timeout: the recording's own)
    --json                   one NDJSON line per request with its differences, then a summary
    --fail-on-diff           exit 1 when anything differs from the recording (rules in CI)
    --export-har <out.har>   write the file as HAR 1.2 instead of replaying it

  Examples
    $ wrtui headless --json | jq 'select(.kind == "webRequest") | .event'
    $ curl -x http://127.0.0.1:8080 --cacert .wrtui/ca.pem https://example.com/
    $ wrtui headless --record session.ndjson      then: wrtui replay session.ndjson --fail-on-diff
`,
  {
    importMeta: import.meta,
    // Booleans without a default stay undefined when absent (--redact: the settings decide then).
    booleanDefault: undefined,
    flags: {
      port: { type: 'number', default: 8080 },
      incognitoPort: { type: 'number' },
      host: { type: 'string', default: '127.0.0.1' },
      rules: { type: 'string', default: './rules' },
      extension: { type: 'string', isMultiple: true, default: [] },
      workerHeap: { type: 'number', default: 1024 },
      dryRun: { type: 'boolean', default: false },
      record: { type: 'string' },
      stateDir: { type: 'string', default: DEFAULT_STATE_DIR },
      json: { type: 'boolean', default: false },
      watch: { type: 'boolean', default: true },
      insecureUpstream: { type: 'string', isMultiple: true, default: [] },
      maxBodySize: { type: 'number', default: 1024 * 1024 },
      listenerTimeout: { type: 'number', default: 5000 },
      upstreamTimeout: { type: 'number', default: 300_000 },
      cache: { type: 'boolean', default: false },
      maxRequests: { type: 'number', default: 5000 },
      redact: { type: 'boolean' },
      failOnDiff: { type: 'boolean', default: false },
      exportHar: { type: 'string' },
    },
  },
);

const [command = 'tui', ...args] = cli.input;
const { flags } = cli;

function fail(message: string): never {
  process.stderr.write(`wrtui: ${message}\n`);
  process.exit(2);
}

for (const [name, value] of [['port', flags.port], ['max-body-size', flags.maxBodySize], ['listener-timeout', flags.listenerTimeout], ['upstream-timeout', flags.upstreamTimeout], ['worker-heap', flags.workerHeap]] as const) {
  if (!Number.isInteger(value) || value < 0) fail(`--${name} must be a whole number, got ${value}`);
}
if (flags.port > 65535) fail(`--port must be at most 65535, got ${flags.port}`);
const incognitoPort = flags.incognitoPort ?? (flags.port === 0 ? 0 : flags.port + 1);

const sessionOptions = {
  port: flags.port,
  incognitoPort,
  host: flags.host,
  stateDir: flags.stateDir,
  dryRun: flags.dryRun,
  insecureUpstream: flags.insecureUpstream,
  maxBodySize: flags.maxBodySize,
  listenerTimeoutMs: flags.listenerTimeout,
  upstreamTimeoutMs: flags.upstreamTimeout,
  cache: flags.cache,
  rulesDir: flags.rules,
  extensions: flags.extension,
  workerHeapMb: flags.workerHeap,
  watchRules: flags.watch,
  ...(flags.record !== undefined && { record: flags.record }),
  ...(flags.redact !== undefined && { redact: flags.redact }),
};

try {
  switch (command) {
    case 'headless':
      await runHeadless({ ...sessionOptions, json: flags.json });
      break;
    case 'tui': {
      if (!Number.isInteger(flags.maxRequests) || flags.maxRequests < 1) fail(`--max-requests must be a whole number of at least 1, got ${flags.maxRequests}`);
      // Loaded only here: headless, replay and ca never pay for React and Ink.
      const { runTui, TuiUnavailableError } = await import('./ui/run-tui.js');
      try {
        await runTui({ ...sessionOptions, maxRequests: flags.maxRequests });
      } catch (error) {
        if (error instanceof TuiUnavailableError) fail(error.message);
        throw error;
      }
      break;
    }
    case 'ca': {
      const ca = await loadOrCreateCertificateAuthority(resolve(flags.stateDir));
      for (const warning of ca.warnings) process.stderr.write(`wrtui: ${warning}\n`);
      process.stdout.write(describeCertificateAuthority(ca, { proxyUrl: `http://127.0.0.1:${flags.port}` }));
      break;
    }
    case 'replay': {
      const file = args[0];
      if (!file) fail('replay needs a file: wrtui replay <session.ndjson | capture.har> [--rules dir] [--json] [--dry-run] [--fail-on-diff]');
      // The recording's own listener timeout unless the user gives one (the flag's default would hide that).
      const timeoutGiven = process.argv.some((arg) => /^--listener-?timeout(=|$)/i.test(arg));
      const code = await runReplayCommand({
        file,
        rulesDir: flags.rules,
        extensions: flags.extension,
        json: flags.json,
        dryRun: flags.dryRun,
        failOnDiff: flags.failOnDiff,
        ...(flags.exportHar !== undefined && { exportHar: flags.exportHar }),
        ...(timeoutGiven && { listenerTimeoutMs: flags.listenerTimeout }),
      });
      process.exit(code);
    }
    default:
      fail(`unknown command "${command}"; see wrtui --help`);
  }
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') fail(`port ${flags.port} (or ${incognitoPort}) is in use; choose another with --port`);
  fail((error as Error).stack ?? String(error));
}
process.exit(0);
