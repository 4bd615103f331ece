// The detail pane of one request: a tab bar (Timeline, Request, Response, Rules, Cookies) and a
// scrollable window of the tab's lines, wrapped to the pane's width.
import type { RuleStatus } from '../../engine/extensions/rule-status.js';
import { Box } from 'ink';
import { renderLine } from '../ansi.js';
import { DETAIL_TAB_TITLES, detailLines, type DetailTab } from '../detail/detail-tabs.js';
import { wrapLines, type Segment, type StyledLine } from '../detail/styled-line.js';
import type { ExplainDnr } from '../detail/rules-lines.js';
import type { RequestRecord } from '../store/request-record.js';
import { LinesView } from './LinesView.js';
import { FixedLine } from './FixedLine.js';
import { PaneBoundary, ThrowFailure } from './PaneBoundary.js';

export interface DetailPaneProps {
  record: RequestRecord | undefined;
  /** detailPaneLines(record, tab, width - 1), built by the view (it bounds scrolling with them). */
  lines: readonly StyledLine[];
  tab: DetailTab;
  /** The tabs this session has (detailTabsFor). */
  tabNames: readonly DetailTab[];
  top: number;
  height: number;
  width: number;
  focused: boolean;
  /** The search in this tab: its term, the matching lines, and how often it occurs in the whole body. */
  search?: { term: string; matches: readonly number[]; top: number; inBody: number | undefined } | undefined;
  /** Making the tab's lines failed (computeForPane): the tab says so under its bar, which stays. */
  failure?: { error: unknown } | undefined;
}

/** The tab's lines as drawn (wrapped); the view uses the count to bound scrolling. */
export function detailPaneLines(record: RequestRecord | undefined, tab: DetailTab, width: number, unfold = false, explainDnr?: ExplainDnr, rules?: readonly RuleStatus[]): StyledLine[] {
  if (!record) return [];
  return wrapLines(detailLines(tab, record, width, unfold, explainDnr, rules), width);
}

export function DetailPane({ record, lines, tab, tabNames, top, height, width, focused, search, failure }: DetailPaneProps) {
  const bodyHeight = Math.max(0, height - 1);
  const tabs: Segment[] = [{ text: ' ' }];
  for (const name of tabNames) {
    const active = name === tab;
    // Brackets as well as inverse video: the active tab must read without colours too.
    tabs.push({ text: active ? `[${DETAIL_TAB_TITLES[name]}]` : ` ${DETAIL_TAB_TITLES[name]} `, inverse: active, bold: active, color: active && focused ? 'cyan' : undefined }, { text: ' ' });
  }
  const shownTo = Math.min(lines.length, top + bodyHeight);
  tabs.push({ text: lines.length > bodyHeight ? ` ${top + 1}-${shownTo}/${lines.length}` : '', dim: true });
  if (record) tabs.push({ text: `  #${record.requestId}`, dim: true });
  if (search) {
    const current = search.matches.findIndex((line) => line >= search.top);
    // Short: the tab bar is one line, and the counts must survive a narrow pane.
    const where = search.matches.length === 0 ? 'no line' : `line ${current === -1 ? search.matches.length : current + 1}/${search.matches.length}`;
    tabs.push({ text: `  /${search.term} ${where}${search.inBody !== undefined ? ` · ${search.inBody} in body` : ''}`, color: 'yellow' });
  }
  return (
    <Box flexDirection="column" height={height} width={width}>
      <FixedLine width={width} text={renderLine(tabs, width, { dim: !focused })} />
      <Box paddingLeft={1}>
        <PaneBoundary pane={`detail ${DETAIL_TAB_TITLES[tab]}`} width={width - 1} height={bodyHeight} resetKey={`${record?.requestId} ${record?.revision} ${tab} ${width}`}>
          <ThrowFailure failure={failure} />
          <LinesView lines={lines} top={top} height={bodyHeight} width={width - 1} />
        </PaneBoundary>
      </Box>
    </Box>
  );
}

/** The tab whose title is at column `x` of the tab bar (as DetailPane draws it: " [Title] Title  …"). */
export function tabAtColumn(tabNames: readonly DetailTab[], x: number): DetailTab | undefined {
  let start = 1;
  for (const name of tabNames) {
    const end = start + DETAIL_TAB_TITLES[name].length + 2;
    if (x >= start && x < end) return name;
    start = end + 1;
  }
  return undefined;
}
