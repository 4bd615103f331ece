// The top two lines: where the proxy listens, the CA, LIVE / DRY-RUN / REPLAY, requests per
// second, how many requests are kept (and dropped), rules loaded and failing, and every rule's
// handlerBehaviorChanged quota (calls left of 20 per rule that used some, and when a rule that
// has none left may call again).
import { Box } from 'ink';
import type { RuleStatus } from '../../engine/extensions/extension-host.js';
import { renderLine } from '../ansi.js';
import type { TuiBackend } from '../backend.js';
import { line, type Segment, type StyledLine } from '../detail/styled-line.js';
import { formatCountdown, plural, shortPath } from '../format.js';
import type { TrafficStore } from '../store/traffic-store.js';
import { FixedLine } from './FixedLine.js';

export interface StatusBarProps {
  store: TrafficStore;
  backend: TuiBackend;
  rules: readonly RuleStatus[];
  width: number;
  now: number;
}

export function StatusBar({ store, backend, rules, width, now }: StatusBarProps) {
  return (
    <Box flexDirection="column" height={2}>
      <FixedLine width={width} text={renderLine(firstLine(store, backend, width), width)} />
      <FixedLine width={width} text={renderLine(secondLine(store, backend, rules, now, width), width)} />
    </Box>
  );
}

function firstLine(store: TrafficStore, backend: TuiBackend, width: number): StyledLine {
  const mode: Segment =
    backend.mode === 'replay'
      ? { text: ' REPLAY ', inverse: true, color: 'magenta', bold: true }
      : backend.getDryRun()
        ? { text: ' DRY-RUN ', inverse: true, color: 'yellow', bold: true }
        : { text: ' LIVE ', inverse: true, color: 'green', bold: true };
  const kept = store.all().length;
  const dropped = store.droppedCount;
  const rate = store.requestsPerSecond();
  return line(
    // The name only where there is room: on 80 columns the drop notice matters more.
    width >= 100 && { text: ' wrtui ', inverse: true, bold: true },
    ' ',
    mode,
    // A replay under global dry-run (D) says so too: its verdicts are journaled, none applied.
    backend.mode === 'replay' && backend.getDryRun() && { text: ' DRY-RUN ', inverse: true, color: 'yellow', bold: true },
    ...(backend.mode === 'replay'
      ? [' ', { text: backend.source ?? 'a recording', bold: true }, ' ', ...replayProgress(store, backend)]
      : [
          ' proxy ',
          backend.everyInterface
            ? { text: `0.0.0.0:${portOf(backend.proxyUrl)} OPEN TO THE NETWORK`, bold: true, color: 'red' }
            : { text: hostPort(backend.proxyUrl), bold: true },
          backend.incognitoProxyUrl ? ` incognito :${portOf(backend.incognitoProxyUrl)}` : ' incognito off',
          // --upstream-proxy: where requests go next (credentials hidden).
          ...(backend.upstreamProxy ? [' via ', { text: backend.upstreamProxy, bold: true, color: 'cyan' } satisfies Segment] : []),
        ]),
    // A replay's requests are not arriving live: its progress says how far it is instead.
    backend.mode !== 'replay' && '  ',
    backend.mode !== 'replay' && { text: `${rate < 10 ? rate.toFixed(1) : Math.round(rate)} req/s`, bold: true },
    dropped > 0 ? { text: `  ${kept} kept, ${dropped} dropped (--max-requests ${store.maxRequests})`, color: 'yellow', bold: true } : `  ${kept} requests`,
  );
}

function secondLine(store: TrafficStore, backend: TuiBackend, rules: readonly RuleStatus[], now: number, width: number): StyledLine {
  const segments: (Segment | string | false)[] = [' '];
  // First: a request waiting for the user matters more than anything else on this line.
  const breakpoint = backend.breakpoints?.current;
  const paused = backend.breakpoints?.paused().length ?? 0;
  if (breakpoint || paused > 0) {
    segments.push({ text: `breakpoint ${breakpoint ? `${breakpoint.stage}${breakpoint.description ? ` ${breakpoint.description}` : ''}` : 'cleared'}`, color: 'yellow', bold: true });
    if (paused > 0) segments.push({ text: ` · ${paused} paused (a/A continue)`, color: 'yellow', bold: true, inverse: true });
    segments.push('  ');
  }
  if (backend.rules) {
    // A rule whose last edit failed runs its previous version: active, and failing too.
    const quick = backend.rules.quick?.status();
    const failing = rules.filter((rule) => rule.state === 'failed' || rule.error).length + (quick?.error ? 1 : 0);
    const active = rules.filter((rule) => rule.state === 'active' && !rule.error).length;
    segments.push(`rules ${active} active`);
    // Quick rules (w) have no worker: counted apart.
    if (quick && quick.rules.length > 0) segments.push(` + ${quick.rules.length} quick`);
    if (failing > 0) segments.push({ text: ` ${failing} failing`, color: 'red', bold: true });
    segments.push('  ', ...quotaSegments(rules, now, width), '  ');
  } else {
    segments.push({ text: 'no rules', dim: true }, '  ');
  }
  const ca = backend.ca;
  if (ca) {
    segments.push(`CA ${shortPath(ca.certPath)}`);
    if (ca.created) segments.push({ text: ' (created now: trust it, see `wrtui ca`)', color: 'yellow' });
    if (ca.warnings.length > 0) segments.push({ text: ` ${ca.warnings.length} CA warning${ca.warnings.length > 1 ? 's' : ''} (log)`, color: 'yellow' });
  }
  if (store.unseenProblems > 0) segments.push({ text: `  ${plural(store.unseenProblems, 'new warning')}: 4 = log`, color: 'yellow' });
  return line(...segments);
}

/**
 * "handlerBehaviorChanged left: strip 17/20, block 0/20 (next in 9m12s)": the rules that called it
 * in the last 10 minutes, fewest calls left first. Narrow screens say "hBC" (the Rules view and
 * the help spell it out).
 */
function quotaSegments(rules: readonly RuleStatus[], now: number, width: number): Segment[] {
  const name = width >= 140 ? 'handlerBehaviorChanged' : 'hBC';
  const called = rules.filter((rule) => rule.quota.used > 0 || rule.quota.refused > 0).sort((a, b) => b.quota.used - a.quota.used);
  const limit = rules[0]?.quota.limit ?? 20;
  if (called.length === 0) return [{ text: `${name} ${limit}/${limit} calls left`, dim: true }];
  const segments: Segment[] = [{ text: `${name} left:`, dim: true }];
  for (const [index, rule] of called.entries()) {
    const { quota } = rule;
    const left = Math.max(0, quota.limit - quota.used);
    segments.push({ text: `${index === 0 ? ' ' : ', '}${rule.name} ` });
    segments.push({ text: `${left}/${quota.limit}`, color: left === 0 ? 'red' : left <= quota.limit * 0.25 ? 'yellow' : undefined, bold: left === 0 });
    if (left === 0 && quota.nextSlotFreeAt !== null) segments.push({ text: ` (next ${formatCountdown(quota.nextSlotFreeAt, now)})`, dim: true });
    if (quota.refused > 0) segments.push({ text: ` ${quota.refused} refused`, color: 'red' });
  }
  return segments;
}

/**
 * What the run on screen found: while it goes, how far it is and what changed so far ("all
 * identical" only once it is whole); the last run's rows a re-run has not reached yet count for nothing.
 */
function replayProgress(store: TrafficStore, backend: TuiBackend): Segment[] {
  let compared = 0;
  let changed = 0;
  for (const record of store.all()) {
    if (!record.replayDiff || record.replayStale) continue;
    compared++;
    if (!record.replayDiff.identical) changed++;
  }
  const found: Segment = changed > 0 ? { text: `${changed} changed${backend.replayRun?.running() ? ' so far' : ''} (is:changed)`, bold: true, color: 'yellow' } : { text: backend.replayRun?.running() ? 'none changed so far' : 'all identical' };
  if (!backend.replayRun?.running()) return [found];
  return [found, { text: `  compared ${compared.toLocaleString('en-US')}/${backend.replayRun.total.toLocaleString('en-US')}`, dim: true }];
}

function hostPort(url: string): string {
  return url.replace(/^https?:\/\//, '');
}

function portOf(url: string): string {
  return /:(\d+)\/?$/.exec(url)?.[1] ?? url;
}
