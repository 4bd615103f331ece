// The `wrtui` command (meow). The contract is ARCHITECTURE.md's "CLI" section.
import meow from 'meow';
import { resolve } from 'node:path';
import { describeCertificateAuthority, loadOrCreateCertificateAuthority } from './engine/capture/certificate-authority.js';
import { DEFAULT_STATE_DIR } from './engine/engine.js';
import { runHeadless } from './app/headless.js';

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
    --rules <dir>            rule files                                             [./rules]
    --dry-run                compute every rule's verdicts, apply none
    --record <file>          record the session
    --state-dir <dir>        cookie stores, CA, settings                            [.wrtui]
    --json                   headless: NDJSON on stdout
    --no-watch               load rules once, do not reload on save
    --insecure-upstream <h>  do not verify the TLS certificate of host h (repeatable)
    --max-body-size <bytes>  request body bytes kept for requestBody and the journal [1048576]
    --listener-timeout <ms>  a blocking listener's time to answer                   [5000]
    --cache                  an in-memory HTTP cache (fromCache; flushed by handlerBehaviorChanged)

  Examples
    $ wrtui headless --json | jq 'select(.kind == "webRequest") | .event'
    $ curl -x http://127.0.0.1:8080 --cacert .wrtui/ca.pem https://example.com/
`,
  {
    importMeta: import.meta,
    flags: {
      port: { type: 'number', default: 8080 },
      incognitoPort: { type: 'number' },
      host: { type: 'string', default: '127.0.0.1' },
      rules: { type: 'string', default: './rules' },
      dryRun: { type: 'boolean', default: false },
      record: { type: 'string' },
      stateDir: { type: 'string', default: DEFAULT_STATE_DIR },
      json: { type: 'boolean', default: false },
      watch: { type: 'boolean', default: true },
      insecureUpstream: { type: 'string', isMultiple: true, default: [] },
      maxBodySize: { type: 'number', default: 1024 * 1024 },
      listenerTimeout: { type: 'number', default: 5000 },
      cache: { type: 'boolean', default: false },
    },
  },
);

const [command = 'tui', ...args] = cli.input;
const { flags } = cli;

function fail(message: string): never {
  process.stderr.write(`wrtui: ${message}\n`);
  process.exit(2);
}

for (const [name, value] of [['port', flags.port], ['max-body-size', flags.maxBodySize], ['listener-timeout', flags.listenerTimeout]] as const) {
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
  cache: flags.cache,
};

try {
  switch (command) {
    case 'headless':
      await runHeadless({ ...sessionOptions, json: flags.json });
      break;
    case 'tui':
      // The Ink TUI is not built yet: run the proxy with the plain request log meanwhile.
      await runHeadless({ ...sessionOptions, json: flags.json });
      break;
    case 'ca': {
      const ca = await loadOrCreateCertificateAuthority(resolve(flags.stateDir));
      for (const warning of ca.warnings) process.stderr.write(`wrtui: ${warning}\n`);
      process.stdout.write(describeCertificateAuthority(ca, { proxyUrl: `http://127.0.0.1:${flags.port}` }));
      break;
    }
    case 'replay':
      fail(`replay is not available yet (${args[0] ?? 'no file given'})`);
      break;
    default:
      fail(`unknown command "${command}"; see wrtui --help`);
  }
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') fail(`port ${flags.port} (or ${incognitoPort}) is in use; choose another with --port`);
  fail((error as Error).stack ?? String(error));
}
process.exit(0);
