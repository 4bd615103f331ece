// The top two lines: where the proxy listens, the CA, LIVE / DRY-RUN / REPLAY, requests per
// second, how many requests are kept (and dropped), rules loaded and failing, and every rule's
// handlerBehaviorChanged quota (used/20 and when the next slot frees).
import { Box } from 'ink';
import { relative } from 'node:path';
import type { RuleStatus } from '../../engine/extensions/extension-host.js';
import { renderLine } from '../ansi.js';
import type { TuiBackend } from '../backend.js';
import { line, type Segment, type StyledLine } from '../detail/styled-line.js';
import { formatCountdown } from '../format.js';
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
      <FixedLine width={width} text={renderLine(secondLine(store, backend, rules, now), width)} />
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
    ' proxy ',
    backend.everyInterface
      ? { text: `0.0.0.0:${portOf(backend.proxyUrl)} OPEN TO THE NETWORK`, bold: true, color: 'red' }
      : { text: hostPort(backend.proxyUrl), bold: true },
    backend.incognitoProxyUrl ? ` incognito :${portOf(backend.incognitoProxyUrl)}` : ' incognito off',
    '  ',
    { text: `${rate < 10 ? rate.toFixed(1) : Math.round(rate)} req/s`, bold: true },
    dropped > 0 ? { text: `  ${kept} kept, ${dropped} dropped (--max-requests ${store.maxRequests})`, color: 'yellow', bold: true } : `  ${kept} requests`,
  );
}

function secondLine(store: TrafficStore, backend: TuiBackend, rules: readonly RuleStatus[], now: number): StyledLine {
  const segments: (Segment | string | false)[] = [' '];
  if (backend.rules) {
    const active = rules.filter((rule) => rule.state === 'active').length;
    const failing = rules.filter((rule) => rule.state === 'failed' || rule.error).length;
    segments.push(`rules ${active} active`);
    if (failing > 0) segments.push({ text: ` ${failing} failing`, color: 'red', bold: true });
    segments.push('  ', ...quotaSegments(rules, now), '  ');
  } else {
    segments.push({ text: 'no rules', dim: true }, '  ');
  }
  const ca = backend.ca;
  if (ca) {
    segments.push(`CA ${shortPath(ca.certPath)}`);
    if (ca.created) segments.push({ text: ' (created now: trust it, see `wrtui ca`)', color: 'yellow' });
    if (ca.warnings.length > 0) segments.push({ text: ` ${ca.warnings.length} CA warning${ca.warnings.length > 1 ? 's' : ''} (log)`, color: 'yellow' });
  }
  if (store.unseenProblems > 0) segments.push({ text: `  ${store.unseenProblems} new warnings: 4 = log`, color: 'yellow' });
  return line(...segments);
}

/** "hbc 3/20 strip-tracking-params (next in 9m12s), 1/20 block-trackers", most used first. */
function quotaSegments(rules: readonly RuleStatus[], now: number): Segment[] {
  const used = rules.filter((rule) => rule.quota.used > 0).sort((a, b) => b.quota.used - a.quota.used);
  const limit = rules[0]?.quota.limit ?? 20;
  if (used.length === 0) return [{ text: `hbc 0/${limit}`, dim: true }];
  const segments: Segment[] = [{ text: 'hbc', dim: true }];
  for (const [index, rule] of used.entries()) {
    const { quota } = rule;
    const full = quota.used >= quota.limit;
    segments.push({ text: `${index === 0 ? ' ' : ', '}${quota.used}/${quota.limit}`, color: full ? 'red' : quota.used >= quota.limit * 0.75 ? 'yellow' : undefined, bold: full });
    segments.push({ text: ` ${rule.name}` });
    if (quota.nextSlotFreeAt !== null) segments.push({ text: ` (next ${formatCountdown(quota.nextSlotFreeAt, now)})`, dim: true });
  }
  return segments;
}

function hostPort(url: string): string {
  return url.replace(/^https?:\/\//, '');
}

function portOf(url: string): string {
  return /:(\d+)\/?$/.exec(url)?.[1] ?? url;
}

function shortPath(path: string): string {
  const relativePath = relative(process.cwd(), path);
  return relativePath.startsWith('..') || relativePath === '' ? path : relativePath;
}
