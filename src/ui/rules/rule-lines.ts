// The rules view's content as lines: one row per rule file or extension (state, its worker's state,
// dry-run, listeners, reloads, the handlerBehaviorChanged quota meter, type errors) and the
// selected one in full: its error with file:line, its worker (state, heap, restarts, Node or not,
// the last fault and where), its listeners per event with their filters, its type errors.
import { relative } from 'node:path';
import type { RuleStatus } from '../../engine/extensions/extension-host.js';
import { formatClock, formatCountdown, shortPath } from '../format.js';
import { blank, heading, line, type Segment, type StyledLine } from '../detail/styled-line.js';

const STATE_STYLES: Readonly<Record<RuleStatus['state'], Segment>> = {
  active: { text: '● active  ', color: 'green' },
  failed: { text: '× failed  ', color: 'red', bold: true },
  unloaded: { text: '○ unloaded', dim: true },
};

const RUNTIME_STYLES: Readonly<Record<RuleStatus['runtime']['state'], Segment>> = {
  starting: { text: '… starting', color: 'cyan' },
  running: { text: '▶ running ', color: 'green' },
  restarting: { text: '↻ restart ', color: 'yellow', bold: true },
  crashed: { text: '✖ crashed ', color: 'red', bold: true },
  stopped: { text: '■ stopped ', dim: true },
};

const MiB = 1024 * 1024;

/** Which browser's interface the rule or extension sees: the spec's, Chrome's or Firefox's. */
const PERSONA_CELLS: Readonly<Record<RuleStatus['persona'], Segment>> = {
  spec: { text: 'spec    ', dim: true },
  chrome: { text: 'chrome  ', color: 'blue' },
  firefox: { text: 'firefox ', color: 'yellow' },
};

/** The worker's state, on a wide screen its heap, restarts when there were some, ⬢ when it has Node. */
function runtimeCells(rule: RuleStatus, width: number): Segment[] {
  const { runtime } = rule;
  const state = RUNTIME_STYLES[runtime.state];
  return [
    width >= 110 ? state : { ...state, text: state.text.slice(0, 2) },
    width >= 140 && { text: runtime.heapUsedBytes > 0 ? `${(runtime.heapUsedBytes / MiB).toFixed(0).padStart(4)}M` : '     ', dim: true },
    runtime.restarts > 0 ? { text: ` ×${String(runtime.restarts).padEnd(2)}`, color: 'yellow' } : '    ',
    runtime.node ? { text: '⬢ ', color: 'magenta' } : '  ',
    width >= 140 && PERSONA_CELLS[rule.persona],
  ].filter((segment): segment is Segment => segment !== false);
}

const PERSONA_MEANING: Readonly<Record<RuleStatus['persona'], string>> = {
  spec: 'the seed interface exactly',
  chrome: "Chrome's types, options, headers (extraHeaders) and details fields",
  firefox: "Firefox's types, options, details fields and auth sequence",
};

/** A meter of the calls left (full = all 20 left), "17 left", and the refusals of the window. */
export function quotaMeter(quota: RuleStatus['quota'], now: number, cells = 10): Segment[] {
  const left = Math.max(0, quota.limit - quota.used);
  const filled = Math.min(cells, Math.round((left / quota.limit) * cells));
  const color = left === 0 ? 'red' : left <= quota.limit * 0.25 ? 'yellow' : 'green';
  return [
    { text: '▮'.repeat(filled), color },
    { text: '▯'.repeat(cells - filled), dim: true },
    { text: ` ${String(left).padStart(2)} left`, color: left === 0 ? 'red' : undefined, bold: left === 0 },
    left === 0 && quota.nextSlotFreeAt !== null ? { text: ` next ${formatCountdown(quota.nextSlotFreeAt, now)}`, dim: true } : { text: '' },
    quota.refused > 0 ? { text: ` ${quota.refused} refused`, color: 'red' } : { text: '' },
  ];
}

export function ruleRow(rule: RuleStatus, nameWidth: number, now: number, width: number): StyledLine {
  const failing = rule.state === 'active' && rule.error;
  const wide = width >= 110;
  const listeners = listenerCount(rule);
  return line(
    ' ',
    failing ? { text: '! failing ', color: 'yellow', bold: true } : STATE_STYLES[rule.state],
    ' ',
    { text: rule.name.length > nameWidth ? `${rule.name.slice(0, nameWidth - 1)}…` : rule.name.padEnd(nameWidth), bold: true },
    ' ',
    ...runtimeCells(rule, width),
    rule.dryRun ? { text: 'dry-run ', color: 'yellow' } : { text: 'live    ', color: 'green' },
    { text: wide ? `${String(listeners).padStart(2)} listener${listeners === 1 ? ' ' : 's'}` : `${String(listeners).padStart(2)} lsn`, dim: listeners === 0 },
    wide ? `  reloads ${String(rule.reloadCount).padEnd(3)} ` : `  r${String(rule.reloadCount).padEnd(3)}`,
    { text: 'hBC ', dim: true },
    ...quotaMeter(rule.quota, now, wide ? 10 : 0),
    rule.typeErrors.length > 0 && { text: `  ${rule.typeErrors.length} type error${rule.typeErrors.length === 1 ? '' : 's'}`, color: 'yellow' },
  );
}

/** `rulesCount`: how many run, so a precedence reads as a rank (it shifts when files come and go; the order of the others never does). */
/** webRequest listeners and every other event's (cookies.onChanged, runtime.onInstalled …). */
export function listenerCount(rule: RuleStatus): number {
  return rule.listeners.length + rule.eventListeners.reduce((sum, { count }) => sum + count, 0);
}

/** The list's filter that finds the requests `name` made itself: its name as a literal pattern, quoted when it has spaces. */
export function byFilter(name: string): string {
  const pattern = `^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
  return /[\s"]/.test(pattern) ? `by:${JSON.stringify(pattern)}` : `by:${pattern}`;
}

export function ruleDetailLines(rule: RuleStatus | undefined, rulesDir: string | undefined, now: number, rulesCount?: number): StyledLine[] {
  if (!rule) return [line({ text: 'No rules or extensions. Put a .ts rule (or an extension folder) in the rules folder; wrtui loads it when it is saved.', dim: true })];
  const lines: StyledLine[] = [];
  const file = rulesDir ? relative(rulesDir, rule.file) || rule.file : rule.file;
  lines.push(line({ text: rule.name, bold: true }, { text: `  ${file}`, dim: true }, rule.precedence !== undefined && { text: `  precedence ${rule.precedence}${rulesCount ? ` of ${rulesCount}` : ''} (${rule.declaredPrecedence !== undefined ? `declared ${rule.declaredPrecedence}, ` : ''}then by name: the later wins)`, dim: true }, rule.lastLoadedAt !== undefined && { text: `  loaded ${formatClock(rule.lastLoadedAt)}`, dim: true }));
  if (rule.error) {
    lines.push(line({ text: rule.state === 'active' ? 'The last edit failed; the previous version keeps running:' : 'Failed to load:', color: 'red', bold: true }));
    for (const text of rule.error.message.split('\n')) lines.push(line({ text: `  ${text}`, color: 'red' }));
    if (rule.error.location) lines.push(line({ text: '  at ', dim: true }, { text: rule.error.location, color: 'cyan' }));
  }
  lines.push(line({ text: 'handlerBehaviorChanged  ', dim: true }, ...quotaMeter(rule.quota, now, 20)));
  const { quota } = rule;
  const oldest = quota.nextSlotFreeAt === null ? '' : quota.used >= quota.limit ? `; the next call is accepted ${formatCountdown(quota.nextSlotFreeAt, now)}` : `; the oldest leaves the window ${formatCountdown(quota.nextSlotFreeAt, now)}`;
  lines.push(line({ text: `  ${quota.used} accepted, ${quota.refused} refused in the last 10 minutes${oldest}`, dim: true }));
  const { runtime } = rule;
  lines.push(
    line(
      { text: 'Worker  ', dim: true },
      RUNTIME_STYLES[runtime.state],
      runtime.heapUsedBytes > 0 && { text: `  ${(runtime.heapUsedBytes / MiB).toFixed(1)} MiB heap`, dim: true },
      { text: `  ${runtime.restarts} restart${runtime.restarts === 1 ? '' : 's'}`, color: runtime.restarts > 0 ? 'yellow' : undefined, dim: runtime.restarts === 0 },
      runtime.node ? { text: '  with Node (manifest node: true)', color: 'magenta' } : { text: "  a browser's globals only", dim: true },
      rule.extensionId !== undefined && { text: `  id ${rule.extensionId}`, dim: true },
    ),
  );
  lines.push(line({ text: 'Persona ', dim: true }, { ...PERSONA_CELLS[rule.persona], text: rule.persona }, { text: `  ${PERSONA_MEANING[rule.persona]}`, dim: true }));
  const own = rule.ownRequests;
  if (own) {
    lines.push(
      line(
        { text: 'Network ', dim: true },
        own.made === 0 ? { text: 'no requests of its own yet', dim: true } : `${own.made} request${own.made === 1 ? '' : 's'} of its own`,
        own.failed > 0 && { text: `, ${own.failed} failed`, color: 'red' },
        own.made > 0 && { text: `  ${byFilter(rule.name)} lists them in the requests view`, dim: true },
      ),
    );
  }
  if (rule.storage) {
    const items = (n: number) => `${n} item${n === 1 ? '' : 's'}`;
    lines.push(
      line(
        { text: 'Storage ', dim: true },
        `local ${items(rule.storage.local)}`,
        rule.storage.file ? { text: `  ${shortPath(rule.storage.file)}`, color: 'cyan' } : { text: '  in memory (no state dir)', dim: true },
        rule.storage.file && { text: '  edit it to configure the extension: it hears storage.onChanged', dim: true },
        `  · session ${items(rule.storage.session)}`,
      ),
    );
  }
  if (runtime.fault) {
    const doing = runtime.fault.doing ? ` while handling ${runtime.fault.doing.event} for ${runtime.fault.doing.url}` : '';
    lines.push(line({ text: `  last fault ${formatClock(runtime.fault.at)}: `, color: 'yellow' }, { text: `${runtime.fault.reason}${doing}`, color: 'yellow' }));
    if (runtime.fault.location) lines.push(line({ text: '  at ', dim: true }, { text: runtime.fault.location, color: 'cyan' }));
  }
  lines.push(blank);
  lines.push(heading(`Listeners (${listenerCount(rule)})`));
  if (listenerCount(rule) === 0) lines.push(line({ text: '  none registered', dim: true }));
  for (const { event, count } of rule.eventListeners) lines.push(line('  ', { text: event.padEnd(20), color: 'cyan' }, count > 1 ? `${count} listeners` : ''));
  for (const listener of rule.listeners) {
    const filter = listener.filter;
    lines.push(
      line(
        '  ',
        { text: listener.event.padEnd(20), color: 'cyan' },
        filter.urls.join(' '),
        filter.types && { text: `  types: ${filter.types.join(', ')}`, color: 'magenta' },
        filter.tabId !== undefined && { text: `  tab ${filter.tabId}`, dim: true },
        filter.windowId !== undefined && { text: `  window ${filter.windowId}`, dim: true },
        listener.extraInfoSpec.length > 0 && { text: `  [${listener.extraInfoSpec.join(', ')}]`, color: 'yellow' },
      ),
    );
  }
  const dnr = rule.declarativeNetRequest;
  if (dnr) {
    const enabled = dnr.rulesets.filter((ruleset) => ruleset.enabled).reduce((sum, ruleset) => sum + ruleset.rules, 0);
    lines.push(blank);
    lines.push(heading(`declarativeNetRequest (${enabled + dnr.dynamicRules + dnr.sessionRules} rules in effect)`));
    const count = (n: number) => `${String(n).padStart(6)} rule${n === 1 ? ' ' : 's'}`;
    for (const ruleset of dnr.rulesets) {
      lines.push(line('  ', { text: ruleset.id.padEnd(12), bold: true }, ruleset.enabled ? { text: 'on  ', color: 'green' } : { text: 'off ', dim: true }, count(ruleset.rules), { text: `  ${ruleset.path}`, dim: true }, ruleset.skipped.length > 0 && { text: `  ${ruleset.skipped.length} skipped (invalid)`, color: 'yellow' }));
      for (const skipped of ruleset.skipped.slice(0, 5)) lines.push(line({ text: `      ${skipped}`, color: 'yellow' }));
    }
    lines.push(line('  ', { text: '_dynamic'.padEnd(12), bold: true }, '    ', count(dnr.dynamicRules), { text: '  updateDynamicRules, kept across restarts', dim: true }));
    lines.push(line('  ', { text: '_session'.padEnd(12), bold: true }, '    ', count(dnr.sessionRules), { text: '  updateSessionRules, until wrtui stops', dim: true }));
    lines.push(line({ text: '  A request\'s Rules tab says which rules acted on it and why the others did not; filter with dnr: (dnr:block, dnr:main#3).', dim: true }));
  }
  if (rule.typeErrors.length > 0) {
    lines.push(blank);
    lines.push(heading(`Type errors (${rule.typeErrors.length}; the rule still runs)`));
    for (const diagnostic of rule.typeErrors) {
      const where = `${rulesDir ? relative(rulesDir, diagnostic.file) || diagnostic.file : diagnostic.file}:${diagnostic.line}:${diagnostic.column}`;
      lines.push(line('  ', { text: where, color: 'cyan' }, { text: `  TS${diagnostic.code} `, dim: true }, diagnostic.message));
    }
  }
  return lines;
}
