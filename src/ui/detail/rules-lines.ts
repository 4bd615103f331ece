// The Rules tab: each rule's verdict per event — applied, ignored with why, dry-run would-…,
// failed with where.
import type { DnrRequest } from '../../engine/dnr/compiled-rule.js';
import type { RuleExplanation } from '../../engine/dnr/dnr-engine.js';
import { dnrResourceType } from '../../engine/dnr/dnr-resource-type.js';
import type { ResourceType } from '../../engine/types.js';
import type { RequestRecord } from '../store/request-record.js';
import { blank, heading, line, type StyledLine } from './styled-line.js';
import { describeOutcome, STATUS_COLORS } from './verdict-text.js';

/** Asks the DNR engine which rules' URL condition matches a request and why those did not act (the backend's explainDnr). */
export type ExplainDnr = (request: DnrRequest) => { rules: RuleExplanation[]; urlMisses: number };

/** Near misses listed at most: rules whose URL condition matched but another did not. */
const MAX_NEAR_MISSES = 30;

export function rulesLines(record: RequestRecord, explainDnr?: ExplainDnr): StyledLine[] {
  const lines: StyledLine[] = [];
  const answered = record.events.filter((event) => event.outcomes.length > 0);
  const dnr = dnrLines(record, explainDnr);
  if (answered.length === 0) {
    lines.push(line({ text: 'No rule answered any event of this request (listeners that returned nothing leave no verdict).', dim: true }));
    if (dnr.length > 0) lines.push(blank, ...dnr);
    return lines;
  }
  const ownerWidth = Math.min(24, Math.max(...answered.flatMap((event) => event.outcomes.map((outcome) => outcome.owner.length))));
  for (const event of answered) {
    lines.push(heading(event.event));
    for (const outcome of event.outcomes) {
      lines.push(
        line(
          '  ',
          { text: outcome.owner.padEnd(ownerWidth), bold: true },
          '  ',
          { text: outcome.status.padEnd(7), color: STATUS_COLORS[outcome.status] },
          '  ',
          describeOutcome(outcome),
          { text: `  ${outcome.durationMs.toFixed(1)} ms`, dim: true },
        ),
      );
    }
    lines.push(blank);
  }
  lines.push(...dnr);
  return lines;
}

/**
 * declarativeNetRequest: what its rules did at each point (rule, priority, action, applied or not,
 * header changes), then why the others did not act: rules that matched but were outranked, and
 * near misses (the URL condition matched, another condition did not: the first one is named).
 */
function dnrLines(record: RequestRecord, explainDnr: ExplainDnr | undefined): StyledLine[] {
  const { rules: explained, urlMisses } = explainDnr?.(dnrRequestOf(record)) ?? { rules: [], urlMisses: 0 };
  if (record.dnr.length === 0 && explained.length === 0 && urlMisses === 0) return [];
  const lines: StyledLine[] = [heading('declarativeNetRequest')];
  if (record.dnr.length === 0) lines.push(line({ text: '  no rule acted on this request', dim: true }));
  const acted = new Set<string>();
  for (const entry of record.dnr) {
    for (const match of entry.matches) {
      acted.add(`${match.extensionId}/${match.rulesetId}/${match.ruleId}`);
      lines.push(
        line(
          '  ',
          { text: entry.stage.padEnd(20), dim: true },
          { text: (match.status === 'applied' ? match.action : match.status === 'dry-run' ? `would ${match.action}` : match.action).padEnd(15), color: match.status === 'applied' ? (match.action === 'allow' || match.action === 'allowAllRequests' ? 'green' : 'magenta') : match.status === 'dry-run' ? 'yellow' : undefined, dim: match.status === 'outranked' },
          { text: match.extension, bold: true },
          `  ${match.rulesetId}#${match.ruleId}`,
          { text: `  priority ${match.priority}`, dim: true },
          match.status === 'outranked' && { text: "  outranked by another extension's action", dim: true },
        ),
      );
    }
    if (entry.redirectUrl) lines.push(line({ text: `${' '.repeat(22)}→ ${entry.redirectUrl}`, color: 'cyan' }));
    for (const change of entry.headerChanges ?? []) {
      lines.push(line({ text: `${' '.repeat(22)}${change.operation} ${change.header}${change.value !== undefined ? `: ${change.value}` : ''}`, color: 'cyan' }, { text: `  (rule ${change.ruleId})`, dim: true }));
    }
  }
  const outranked = explained.filter((rule) => rule.failed === undefined && !acted.has(`${rule.extensionId}/${rule.rulesetId}/${rule.ruleId}`));
  const nearMisses = explained.filter((rule) => rule.failed !== undefined);
  if (outranked.length + nearMisses.length > 0) lines.push(blank, heading('Why the other rules did not act'));
  for (const rule of outranked.slice(0, MAX_NEAR_MISSES)) {
    lines.push(line('  ', { text: rule.extension, bold: true }, `  ${rule.rulesetId}#${rule.ruleId} ${rule.action}`, { text: `  priority ${rule.priority}`, dim: true }, { text: '  matched, but a rule of higher precedence acted (or a header was already set)', dim: true }));
  }
  for (const rule of nearMisses.slice(0, MAX_NEAR_MISSES)) {
    lines.push(line('  ', { text: rule.extension, bold: true }, `  ${rule.rulesetId}#${rule.ruleId} ${rule.action}`, { text: `  priority ${rule.priority}`, dim: true }, { text: `  ${rule.failed}`, color: 'yellow' }));
  }
  const more = Math.max(0, outranked.length - MAX_NEAR_MISSES) + Math.max(0, nearMisses.length - MAX_NEAR_MISSES);
  if (more > 0) lines.push(line({ text: `  … ${more} more`, dim: true }));
  if (urlMisses > 0) lines.push(line({ text: `  ${urlMisses} other rule${urlMisses === 1 ? '' : 's'}: the URL condition does not match ${record.firstUrl}`, dim: true }));
  return lines;
}

/** The request as DNR saw it at its first hop (its type in Chrome's names, its initiator when the persona reported one). */
export function dnrRequestOf(record: RequestRecord): DnrRequest {
  const details = record.events[0]?.details as { tabId?: number; initiator?: unknown } | undefined;
  return {
    url: record.firstUrl,
    method: record.method,
    type: dnrResourceType(record.type as ResourceType),
    tabId: details?.tabId ?? -1,
    ...(typeof details?.initiator === 'string' && { initiator: details.initiator }),
  };
}
