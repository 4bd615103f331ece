// The `wrtui` command (meow). The contract is ARCHITECTURE.md's "CLI" section; every option is
// declared once in app/cli-flags.ts. A mistake on the command line, or a failure to start (a port
// in use, a recording that exists), ends with one line on stderr and exit code 2, never a stack
// trace (WRTUI_DEBUG=1 shows one for wrtui's own bugs).
import meow from 'meow';
import { resolve } from 'node:path';
import { COMMANDS, UsageError, checkArguments, meowFlags, optionsHelp, type Command } from './app/cli-flags.js';
import { describeCertificateAuthority, loadOrCreateCertificateAuthority } from './engine/capture/certificate-authority.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from './engine/capture/upstream-transport.js';
import { DEFAULT_STATE_DIR } from './engine/engine.js';
import { ensurePrivateDir } from './engine/private-file.js';
import { runHeadless } from './app/headless.js';
import { runReplayCommand } from './app/replay.js';
import { catchStopSignals, exitAfterStop } from './app/stop-signals.js';

const USAGE = `
  Usage
    $ wrtui [options]               interactive inspector (the TUI)
    $ wrtui browser [url] [options] the TUI, and a Chromium of its own browsing through it
    $ wrtui headless [options]      no UI; with --json the journal as NDJSON on stdout
    $ wrtui replay <file> [options] replay a recorded session or a HAR 1.2 file through the rules
    $ wrtui ca                      where wrtui's CA certificate is and how to trust it
`;

const EXAMPLES = `
  Examples
    $ wrtui --extension ./my-extension
    $ wrtui headless --json | jq 'select(.kind == "webRequest") | .event'
    $ curl -x http://127.0.0.1:8080 --cacert .wrtui/ca.pem https://example.com/
    $ wrtui headless --record session.ndjson      then: wrtui replay session.ndjson --fail-on-diff
`;

function fail(message: string): never {
  process.stderr.write(`wrtui: ${message}\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
const first = argv[0];
let command: Command = 'tui';
if (first !== undefined && !first.startsWith('-')) {
  if (!(COMMANDS as readonly string[]).includes(first) || first === 'tui') fail(`unknown command "${first}" (the commands are browser, headless, replay and ca; without one, the TUI); see wrtui --help`);
  command = first as Command;
}
// "-" (stdout) as a flag's value: meow would take a lone "-" for an argument (stdin, by convention).
const rest = (command === 'tui' ? argv : argv.slice(1)).flatMap((arg, i, all) => (arg === '-' && all[i - 1] === '--export-journal' ? [] : arg === '--export-journal' && all[i + 1] === '-' ? ['--export-journal=-'] : [arg]));

if (rest.includes('--help')) {
  const title = command === 'tui' ? USAGE : `\n  Usage\n    $ wrtui ${command}${command === 'replay' ? ' <file>' : command === 'browser' ? ' [url]' : ''} [options]\n`;
  process.stdout.write(`${title}\n  Options${command === 'tui' ? ' (some only for some commands; see wrtui <command> --help)' : ''}\n${optionsHelp(command === 'tui' ? undefined : command)}\n${command === 'tui' ? EXAMPLES : ''}\n`);
  await exitAfterStop(0);
}

try {
  checkArguments(rest, command);
} catch (error) {
  if (error instanceof UsageError) fail(error.message);
  throw error;
}

const cli = meow(USAGE, {
  importMeta: import.meta,
  argv: rest,
  autoHelp: false,
  allowUnknownFlags: false,
  // Booleans without a default stay undefined when absent (--redact: the settings decide then).
  booleanDefault: undefined,
  flags: meowFlags(),
});
const flags = cli.flags as {
  port?: number;
  incognitoPort?: number;
  host?: string;
  rules?: string;
  extension?: string[];
  workerHeap?: number;
  persona?: 'spec' | 'chrome' | 'firefox';
  dryRun?: boolean;
  record?: string;
  redact?: boolean;
  stateDir?: string;
  json?: boolean;
  watch?: boolean;
  insecureUpstream?: string[];
  upstreamProxy?: string;
  resolve?: string[];
  maxBodySize?: number;
  listenerTimeout?: number;
  upstreamTimeout?: number;
  cache?: boolean;
  maxRequests?: number;
  failOnDiff?: boolean;
  diffsOnly?: boolean;
  tui?: boolean;
  mouse?: boolean;
  exportHar?: string;
  exportJournal?: string;
  chromium?: string;
  firefox?: boolean;
  cookies?: 'send' | 'observe';
  bodyMemory?: number;
  headlessBrowser?: boolean;
  force?: boolean;
};
const positional = cli.input;

const port = flags.port ?? 8080;
const incognitoPort = flags.incognitoPort ?? (port === 0 ? 0 : port + 1);
const stateDir = flags.stateDir ?? DEFAULT_STATE_DIR;
if (flags.redact !== undefined && flags.record === undefined) fail('--redact applies to a recording: add --record <file> (the journal on screen and in --json is never redacted)');
if (positional.length > (command === 'replay' || command === 'browser' ? 1 : 0)) fail(`unexpected argument "${positional.at(-1)}"; see wrtui ${command === 'tui' ? '' : `${command} `}--help`);

const sessionOptions = {
  port,
  incognitoPort,
  host: flags.host ?? 'localhost',
  stateDir,
  dryRun: flags.dryRun ?? false,
  insecureUpstream: flags.insecureUpstream ?? [],
  resolve: flags.resolve ?? [],
  ...(flags.upstreamProxy !== undefined && { upstreamProxy: flags.upstreamProxy }),
  // The TUI shows bodies: 16 MiB each by default (all of them within --body-memory); headless keeps 1 MiB.
  maxBodySize: flags.maxBodySize ?? (command === 'headless' ? 1024 * 1024 : 16 * 1024 * 1024),
  listenerTimeoutMs: flags.listenerTimeout ?? 5000,
  upstreamTimeoutMs: flags.upstreamTimeout ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
  cache: flags.cache ?? false,
  rulesDir: flags.rules ?? './rules',
  extensions: flags.extension ?? [],
  ...(flags.workerHeap !== undefined && { workerHeapMb: flags.workerHeap }),
  // `browser --firefox`: extensions see what Firefox's webRequest would, unless told otherwise.
  ...(flags.persona !== undefined ? { persona: flags.persona } : command === 'browser' && flags.firefox ? { persona: 'firefox' as const } : {}),
  watchRules: flags.watch ?? true,
  ...(flags.cookies !== undefined && { cookieMode: flags.cookies }),
  ...(flags.record !== undefined && { record: flags.record }),
  ...(flags.redact !== undefined && { redact: flags.redact }),
};

// A live session stops cleanly on SIGINT, SIGTERM and SIGHUP, from its first moment (stop-signals.ts).
if (command === 'headless' || command === 'tui' || command === 'browser') catchStopSignals();

let exitCode = 0;
try {
  switch (command) {
    case 'headless':
      exitCode = await runHeadless({ ...sessionOptions, json: flags.json ?? false });
      break;
    case 'tui':
    case 'browser': {
      // Loaded only here: headless, replay and ca never pay for React and Ink.
      const { runTui, TuiUnavailableError } = await import('./ui/run-tui.js');
      const { BrowserNotFoundError, findBrowser } = await import('./app/browser-launch.js');
      const { findFirefox } = await import('./app/firefox-launch.js');
      try {
        // Before anything starts: a missing browser is said first.
        if (command === 'browser') {
          if (flags.firefox && flags.chromium !== undefined) fail('--firefox and --chromium name two browsers: give one');
          if (flags.firefox) findFirefox();
          else findBrowser(flags.chromium);
        }
        await runTui({
          ...sessionOptions,
          maxRequests: flags.maxRequests ?? 5000,
          ...(flags.mouse !== undefined && { mouse: flags.mouse }),
          ...(flags.bodyMemory !== undefined && { maxBodyBytes: flags.bodyMemory * 1024 * 1024 }),
          ...(command === 'browser' && {
            browser: { ...(positional[0] !== undefined && { url: browserUrl(positional[0]) }), ...(flags.chromium !== undefined && { executable: flags.chromium }), ...(flags.firefox && { firefox: true }), headless: flags.headlessBrowser ?? false },
          }),
        });
      } catch (error) {
        if (error instanceof TuiUnavailableError || error instanceof BrowserNotFoundError) fail(error.message);
        throw error;
      }
      break;
    }
    case 'ca': {
      const looseDir = await ensurePrivateDir(resolve(stateDir));
      if (looseDir) process.stderr.write(`wrtui: ${looseDir}\n`);
      const ca = await loadOrCreateCertificateAuthority(resolve(stateDir));
      for (const warning of ca.warnings) process.stderr.write(`wrtui: ${warning}\n`);
      process.stdout.write(describeCertificateAuthority(ca, { proxyUrl: `http://127.0.0.1:${port}` }));
      break;
    }
    case 'replay': {
      const file = positional[0];
      if (!file) fail('replay needs a file: wrtui replay <session.ndjson | capture.har> [--rules dir] [--json] [--dry-run] [--fail-on-diff]');
      exitCode = await runReplayCommand({
        file,
        rulesDir: sessionOptions.rulesDir,
        extensions: sessionOptions.extensions,
        ...(flags.persona !== undefined && { persona: flags.persona }),
        json: flags.json ?? false,
        diffsOnly: flags.diffsOnly ?? false,
        ...(flags.tui !== undefined && { tui: flags.tui }),
        stateDir,
        dryRun: sessionOptions.dryRun,
        failOnDiff: flags.failOnDiff ?? false,
        ...(flags.exportHar !== undefined && { exportHar: flags.exportHar }),
        ...(flags.exportJournal !== undefined && { exportJournal: flags.exportJournal }),
        // The recording's own listener timeout unless the user gives one.
        ...(flags.listenerTimeout !== undefined && { listenerTimeoutMs: flags.listenerTimeout }),
        force: flags.force ?? false,
      });
      break;
    }
  }
} catch (error) {
  fail(startFailure(error));
}
// Never process.exit with output pending: a pipe's reader gets every line (stop-signals.ts).
await exitAfterStop(exitCode);

/** A URL as typed ("example.com" means https://example.com/, "localhost:3000" http://…); refuses what is not one. */
function browserUrl(typed: string): string {
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(typed) || /^(about|data|chrome):/i.test(typed);
  const withScheme = hasScheme ? typed : `${/^(localhost|127\.|\[::1\])/i.test(typed) ? 'http' : 'https'}://${typed}`;
  try {
    return new URL(withScheme).href;
  } catch {
    return fail(`"${typed}" is not a URL to open; e.g. wrtui browser https://example.com/`);
  }
}

/** Why wrtui could not start, in one line. */
function startFailure(error: unknown): string {
  const failure = error as NodeJS.ErrnoException & { port?: number; address?: string };
  switch (failure.code) {
    case 'EADDRINUSE':
      return `port ${failure.port ?? port}${failure.address ? ` on ${failure.address}` : ''} is in use; choose another with --port${incognitoPort > 0 ? ' (or --incognito-port; 0 turns it off)' : ''}`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${failure.address ?? flags.host}: no interface of this machine has that address (see --host)`;
    case 'EACCES':
      return `not allowed to listen on port ${failure.port ?? port} (ports below 1024 need privileges); choose another with --port`;
    case 'EEXIST':
      return `${failure.path ?? flags.record} already exists: a recording never overwrites a file; choose a new name for --record`;
    case 'ENOENT':
      if (failure.path) return `${failure.path}: no such file or directory`;
      break;
  }
  if (process.env.WRTUI_DEBUG) return (failure as Error).stack ?? String(error);
  return `${(failure as Error).message ?? String(error)} (set WRTUI_DEBUG=1 for details)`;
}
