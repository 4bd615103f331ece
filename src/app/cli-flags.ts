// Every option of the `wrtui` command, declared once: its type, which commands take it, its help
// line and how its value is checked. The command line is checked against this table before meow
// parses it, so that a mistake stops with one line naming it (a typo gets a did-you-mean, a bad
// value is quoted as typed) and never with a stack trace.
import { isIP } from 'node:net';
import { parseHostMapping } from '../engine/capture/host-map.js';
import { parseUpstreamProxy, redactProxyUrl } from '../engine/capture/upstream-proxy.js';

export type Command = 'tui' | 'browser' | 'headless' | 'replay' | 'ca';
export const COMMANDS: readonly Command[] = ['tui', 'browser', 'headless', 'replay', 'ca'];

type FlagType = 'string' | 'number' | 'boolean';

export interface FlagSpec {
  /** As typed: `--max-body-size`. */
  name: string;
  type: FlagType;
  /** May be given more than once (a list). */
  multiple?: boolean;
  /** The commands that take it. */
  commands: readonly Command[];
  /** `<ms>`, `<dir>`, …: the value's placeholder in the help. */
  value?: string;
  help: string;
  /** The default as the help shows it. */
  shownDefault?: string;
  /** Checks a value (after the type check); returns what is wrong, in words. */
  check?: (value: string) => string | undefined;
  /** How a value is quoted in a message, when it may hold a secret (credentials in a URL). */
  quote?: (value: string) => string;
}

const LIVE: readonly Command[] = ['tui', 'browser', 'headless'];
const RULES: readonly Command[] = ['tui', 'browser', 'headless', 'replay'];

const wholeNumber = (max?: number) => (value: string) => {
  if (!/^\d+$/.test(value)) return 'must be a whole number';
  if (max !== undefined && Number(value) > max) return `must be at most ${max}`;
  return undefined;
};

const hostAddress = (value: string) =>
  value === 'localhost' || isIP(value) !== 0 ? undefined : 'must be an IP address to listen on (127.0.0.1, ::1, 0.0.0.0 for every interface) or localhost';

export const FLAGS: readonly FlagSpec[] = [
  { name: 'port', type: 'number', commands: [...LIVE, 'ca'], value: '<n>', help: 'proxy port for cookie store "0" (0: any free port)', shownDefault: '8080', check: wholeNumber(65535) },
  { name: 'incognito-port', type: 'number', commands: LIVE, value: '<n>', help: 'a second port, whose traffic uses cookie store "1"; 0 = off', shownDefault: 'port + 1', check: wholeNumber(65535) },
  { name: 'host', type: 'string', commands: LIVE, value: '<addr>', help: 'the address to listen on; 0.0.0.0 = every interface (anyone who can reach you)', shownDefault: '127.0.0.1 and ::1', check: hostAddress },
  { name: 'rules', type: 'string', commands: RULES, value: '<dir>', help: 'rule files and unpacked extensions (sub-folders with a manifest.json)', shownDefault: './rules' },
  { name: 'extension', type: 'string', multiple: true, commands: RULES, value: '<dir>', help: 'an unpacked extension (manifest.json), loaded unchanged (repeatable)' },
  { name: 'persona', type: 'string', commands: RULES, value: '<name>', help: 'the browser rules and extensions see: spec, chrome or firefox (a manifest may say otherwise)', shownDefault: 'spec; firefox for gecko extensions', check: (value) => (['spec', 'chrome', 'firefox'].includes(value) ? undefined : 'must be spec, chrome or firefox') },
  { name: 'worker-heap', type: 'number', commands: RULES, value: '<MB>', help: "heap cap of each rule's or extension's worker", shownDefault: '1024', check: wholeNumber() },
  { name: 'dry-run', type: 'boolean', commands: RULES, help: "compute every rule's verdicts, apply none" },
  { name: 'record', type: 'string', commands: LIVE, value: '<file>', help: 'record the session to a new file (0600; see wrtui replay)' },
  { name: 'redact', type: 'boolean', commands: LIVE, help: 'with --record: no Authorization, Cookie, Set-Cookie values in the file' },
  { name: 'state-dir', type: 'string', commands: [...LIVE, 'ca'], value: '<dir>', help: 'cookie stores, CA, extension storage, settings', shownDefault: '.wrtui' },
  { name: 'json', type: 'boolean', commands: ['headless', 'replay'], help: 'headless: the journal as NDJSON on stdout; replay: its journal, then the differences' },
  { name: 'watch', type: 'boolean', commands: LIVE, help: '--no-watch: load rules and extensions once, do not reload on save' },
  { name: 'cookies', type: 'string', commands: LIVE, value: '<mode>', help: "send: requests carry the jar's cookies; observe: the jar only learns (your client has its own)", shownDefault: 'send', check: (value) => (['send', 'observe'].includes(value) ? undefined : 'must be send or observe') },
  { name: 'insecure-upstream', type: 'string', multiple: true, commands: LIVE, value: '<host>', help: 'do not verify the TLS certificate of this host (repeatable)' },
  { name: 'resolve', type: 'string', multiple: true, commands: LIVE, value: '<host:addr>', help: 'connect to addr for host (host:port:addr for one port; *.example.com for subdomains, * for all; repeatable); the request keeps its name', check: (value) => { const parsed = parseHostMapping(value); return typeof parsed === 'string' ? parsed : undefined; } },
  { name: 'upstream-proxy', type: 'string', commands: LIVE, value: '<url>', help: 'send upstream requests through this HTTP or HTTPS proxy (http://user:password@host:port; hosts in NO_PROXY go direct)', check: (value) => { const parsed = parseUpstreamProxy(value, ''); return typeof parsed === 'string' ? parsed : undefined; }, quote: redactProxyUrl },
  { name: 'max-body-size', type: 'number', commands: LIVE, value: '<bytes>', help: 'body bytes kept (requestBody, journal, cache, the TUI); more streams', shownDefault: '16777216 in the TUI, 1048576 headless', check: wholeNumber() },
  { name: 'listener-timeout', type: 'number', commands: RULES, value: '<ms>', help: "a blocking listener's time to answer (replay: the recording's own)", shownDefault: '5000', check: wholeNumber() },
  { name: 'upstream-timeout', type: 'number', commands: LIVE, value: '<ms>', help: 'an upstream silent this long: net::ERR_TIMED_OUT (0: never)', shownDefault: '60000', check: wholeNumber() },
  { name: 'cache', type: 'boolean', commands: LIVE, help: 'an in-memory HTTP cache (fromCache; flushed by handlerBehaviorChanged)' },
  { name: 'max-requests', type: 'number', commands: ['tui', 'browser'], value: '<n>', help: 'requests the TUI keeps in memory; the oldest are dropped', shownDefault: '5000', check: (value) => wholeNumber()(value) ?? (Number(value) < 1 ? 'must be at least 1' : undefined) },
  { name: 'body-memory', type: 'number', commands: ['tui', 'browser'], value: '<MB>', help: 'memory for the bodies the TUI shows; the oldest are let go past it', shownDefault: '256', check: (value) => wholeNumber()(value) ?? (Number(value) < 1 ? 'must be at least 1' : undefined) },
  { name: 'mouse', type: 'boolean', commands: ['tui', 'browser'], help: '--no-mouse: the TUI does not ask the terminal for clicks and the wheel (its own text selection stays)' },
  { name: 'tui', type: 'boolean', commands: ['replay'], help: '--no-tui: the text report even on a terminal (the TUI shows the replay otherwise)' },
  { name: 'diffs-only', type: 'boolean', commands: ['replay'], help: "with --json: only the replayDiff lines and the summary, not the replay's journal" },
  { name: 'fail-on-diff', type: 'boolean', commands: ['replay'], help: 'exit 1 when anything differs from the recording (rules in CI)' },
  { name: 'export-har', type: 'string', commands: ['replay'], value: '<out.har>', help: 'write the file as HAR 1.2 instead of replaying it' },
  { name: 'export-journal', type: 'string', commands: ['replay'], value: '<out.ndjson>', help: "write the recording's journal, every entry whole, as headless --json prints it, instead of replaying it (- for stdout)" },
  { name: 'force', type: 'boolean', commands: ['replay'], help: 'with --export-har or --export-journal: replace an existing file (a new 0600 file; a symbolic link there is replaced, not followed)' },
  { name: 'chromium', type: 'string', commands: ['browser'], value: '<path>', help: 'the Chromium or Chrome to start', shownDefault: 'CHROME_PATH, else chromium on this machine' },
  { name: 'firefox', type: 'boolean', commands: ['browser'], help: "start Firefox (firefox-esr) instead, attached over WebDriver BiDi; implies --persona firefox", shownDefault: 'FIREFOX_PATH, else firefox-esr on this machine' },
  { name: 'headless-browser', type: 'boolean', commands: ['browser'], help: 'start the browser without a window (no display, CI)' },
  { name: 'help', type: 'boolean', commands: COMMANDS, help: 'this text' },
  { name: 'version', type: 'boolean', commands: COMMANDS, help: "wrtui's version" },
];

const BY_NAME = new Map(FLAGS.map((flag) => [flag.name, flag]));

/** A command-line mistake: one line for the user, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Checks `argv` (what follows `wrtui`) against the table for `command`. Throws a UsageError that
 * names the first mistake: an unknown option (with a did-you-mean), one of another command, a
 * missing or malformed value (quoted as typed), a single-value option given twice.
 */
export function checkArguments(argv: readonly string[], command: Command): void {
  const seen = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') break;
    if (!token.startsWith('-') || token === '-') continue;
    if (!token.startsWith('--')) throw new UsageError(`unknown option ${token}: wrtui's options are long ones (--port, --rules, …); see wrtui --help`);
    const equals = token.indexOf('=');
    let name = token.slice(2, equals === -1 ? undefined : equals);
    let inline = equals === -1 ? undefined : token.slice(equals + 1);
    let negated = false;
    if (!BY_NAME.has(name) && name.startsWith('no-') && BY_NAME.get(name.slice(3))?.type === 'boolean') {
      name = name.slice(3);
      negated = true;
    }
    const flag = BY_NAME.get(name);
    if (!flag) throw new UsageError(`unknown option --${name}${suggestion(name, command)}`);
    if (!flag.commands.includes(command)) {
      const names = flag.commands.map((c) => (c === 'tui' ? 'wrtui' : `wrtui ${c}`));
      const where = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0];
      throw new UsageError(`--${name} is an option of ${where}, not of ${command === 'tui' ? 'wrtui (the TUI)' : `wrtui ${command}`}`);
    }
    let value: string;
    if (flag.type === 'boolean') {
      if (negated && inline !== undefined) throw new UsageError(`--no-${name} takes no value, got "${inline}"`);
      if (inline !== undefined && inline !== 'true' && inline !== 'false') throw new UsageError(`--${name} is on or off (--${name} or --no-${name}), got "${inline}"`);
      value = negated ? 'false' : (inline ?? 'true');
    } else {
      if (negated) throw new UsageError(`unknown option --no-${name}${suggestion(`no-${name}`, command)}`);
      if (inline === undefined) {
        const next = argv[i + 1];
        if (next === undefined || (next.startsWith('--') && next.length > 2)) throw new UsageError(`--${name} needs a value: --${name} ${flag.value ?? '<value>'}`);
        inline = next;
        i++;
      }
      value = inline;
      const problem = flag.type === 'number' ? (wholeNumber()(value) === undefined ? flag.check?.(value) : (flag.check?.(value) ?? 'must be a number')) : flag.check?.(value);
      if (problem) throw new UsageError(`--${name} ${problem}, got "${quoted(flag, value)}"`);
    }
    const earlier = seen.get(name);
    if (earlier !== undefined && !flag.multiple) {
      throw new UsageError(`--${name} was given twice ("${quoted(flag, earlier)}" and "${quoted(flag, value)}"); give it once`);
    }
    seen.set(name, value);
  }
}

/** A value as a message may show it: a secret in it hidden. */
function quoted(flag: FlagSpec, value: string): string {
  return flag.quote ? flag.quote(value) : value;
}

/** " (did you mean --rules?)" for a name close to one of the command's options. */
function suggestion(name: string, command: Command): string {
  const candidates = FLAGS.filter((flag) => flag.commands.includes(command)).map((flag) => flag.name);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = candidate.startsWith(name) || name.startsWith(candidate) ? Math.abs(candidate.length - name.length) * 0.5 : editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, name.length / 3) ? ` (did you mean --${best}?)` : '; see wrtui --help';
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** meow's flags, from the table (camelCase keys). */
export function meowFlags(): Record<string, { type: FlagType; isMultiple?: boolean }> {
  const out: Record<string, { type: FlagType; isMultiple?: boolean }> = {};
  for (const flag of FLAGS) {
    if (flag.name === 'help' || flag.name === 'version') continue;
    out[flag.name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase())] = { type: flag.type, ...(flag.multiple && { isMultiple: true }) };
  }
  return out;
}

/** The options part of --help for `command` (all commands when undefined). */
export function optionsHelp(command?: Command): string {
  const lines: string[] = [];
  for (const flag of FLAGS) {
    if (command && !flag.commands.includes(command)) continue;
    const left = flag.name === 'watch' ? '--no-watch' : `--${flag.name}${flag.value ? ` ${flag.value}` : ''}`;
    lines.push(`    ${left.padEnd(26)} ${flag.help}${flag.shownDefault ? `  [${flag.shownDefault}]` : ''}`);
  }
  return lines.join('\n');
}
