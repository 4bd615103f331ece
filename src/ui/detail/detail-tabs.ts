// The detail pane's tabs, in order, and the lines each shows for a request.
import type { RuleStatus } from '../../engine/extensions/rule-status.js';
import type { SessionMode } from '../backend.js';
import { badgeLines } from './badge-lines.js';
import type { RequestRecord } from '../store/request-record.js';
import { cookiesLines } from './cookies-lines.js';
import { requestLines } from './request-lines.js';
import { responseLines } from './response-lines.js';
import { rulesLines, type ExplainDnr } from './rules-lines.js';
import { heading, line, type StyledLine } from './styled-line.js';
import { timelineLines } from './timeline-lines.js';

export const DETAIL_TABS = ['timeline', 'request', 'response', 'rules', 'cookies', 'diff'] as const;
export type DetailTab = (typeof DETAIL_TABS)[number];

export const DETAIL_TAB_TITLES: Readonly<Record<DetailTab, string>> = {
  timeline: 'Timeline',
  request: 'Request',
  response: 'Response',
  rules: 'Rules',
  cookies: 'Cookies',
  diff: 'Diff',
};

/** The tab's lines, unwrapped; `width` sizes what is drawn to the pane's width (the waterfall). */
export function detailLines(tab: DetailTab, record: RequestRecord, width: number, unfold = false, explainDnr?: ExplainDnr, rules?: readonly RuleStatus[]): StyledLine[] {
  switch (tab) {
    case 'timeline':
      return timelineLines(record, width);
    case 'request':
      return requestLines(record, unfold);
    case 'response':
      return responseLines(record, unfold);
    case 'rules':
      return [...rulesLines(record, explainDnr), ...badgeLines(record, rules ?? [])];
    case 'cookies':
      return cookiesLines(record);
    case 'diff':
      return diffLines(record);
  }
}

/** The tabs a session has: Diff only in a replay (live traffic has no recording to compare with). */
export function detailTabsFor(mode: SessionMode): readonly DetailTab[] {
  return mode === 'replay' ? DETAIL_TABS : LIVE_TABS;
}

const LIVE_TABS: readonly DetailTab[] = DETAIL_TABS.filter((tab) => tab !== 'diff');

export function nextTab(tab: DetailTab, step: 1 | -1, tabs: readonly DetailTab[] = DETAIL_TABS): DetailTab {
  const index = tabs.indexOf(tab);
  return tabs[(index + step + tabs.length) % tabs.length]!;
}

/** The Diff tab: how the replayed request compares with its recording, one changed thing a line. */
function diffLines(record: RequestRecord): StyledLine[] {
  const diff = record.replayDiff;
  if (!diff) return [line({ text: 'A replay shows here how each request compares with its recording (wrtui replay <file>).', dim: true })];
  if (diff.identical) return [line({ text: 'Identical to the recording: the same events, outcomes and cookie changes.', color: 'green' })];
  return [heading(`Changed: ${diff.changes.join(', ')}`), ...diff.lines.map((text) => line('  ', text))];
}
