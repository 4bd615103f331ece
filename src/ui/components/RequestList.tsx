// The request list: a title line (count, filter, follow), the column header, and only the rows
// that fit on screen — a window over the store's records, so 100k requests cost what 40 do.
import { Box } from 'ink';
import { useMemo, type ReactElement } from 'react';
import { renderLine } from '../ansi.js';
import { line, type StyledLine } from '../detail/styled-line.js';
import { headerRow, requestColumns } from '../list/request-columns.js';
import type { ListWindow } from '../list/list-window.js';
import type { RequestRecord } from '../store/request-record.js';
import { RequestRow } from './RequestRow.js';
import { FixedLine } from './FixedLine.js';

export interface RequestListProps {
  records: readonly RequestRecord[];
  window: ListWindow;
  /** Rows for requests (the two title lines come on top). */
  rows: number;
  width: number;
  follow: boolean;
  /** "duration ↓" when sorted other than by arrival. */
  sort?: string | undefined;
  filter: { text: string; on: boolean };
  totalKept: number;
  /** Shown when the list is empty. */
  emptyHint: StyledLine[];
  focused: boolean;
  /** Epoch ms: a waiting request shows its age. */
  now: number;
}

export function RequestList({ records, window, rows, width, follow, sort, filter, totalKept, emptyHint, focused, now }: RequestListProps) {
  // One object per width: the rows are memoised on it, and a new one would redraw them all.
  const columns = useMemo(() => requestColumns(width), [width]);
  const title = line(
    { text: ' Requests ', bold: true, inverse: focused },
    ` ${records.length === totalKept ? `${totalKept}` : `${records.length} of ${totalKept}`}`,
    filter.text && (filter.on ? { text: `  filter: ${filter.text}`, color: 'cyan' } : { text: `  filter off (f): ${filter.text}`, dim: true }),
    sort && { text: `  sorted by ${sort} (o, G: arrival)`, color: 'magenta' },
    follow ? { text: '  ● following', color: 'green' } : { text: '  following off (G)', dim: true },
  );
  const body: ReactElement[] = [];
  if (records.length === 0) {
    const hint = totalKept > 0 ? [line({ text: '  No request matches the filter (f turns it off).', dim: true })] : emptyHint;
    for (let index = 0; index < rows; index++) body.push(<FixedLine key={index} width={width} text={renderLine(hint[index] ?? [], width)} />);
  } else {
    for (let index = 0; index < rows; index++) {
      const record = records[window.top + index];
      body.push(
        record ? (
          <RequestRow
            key={record.ordinal}
            record={record}
            revision={record.revision}
            // Only a waiting request's row changes with the clock (its age), once a second.
            waitedSeconds={record.endedAt === undefined ? Math.floor((now - record.startedAt) / 1000) : -1}
            now={now}
            columns={columns}
            width={width}
            selected={window.top + index === window.index}
          />
        ) : (
          <FixedLine key={`blank-${index}`} width={width} text="" />
        ),
      );
    }
  }
  return (
    <Box flexDirection="column" height={rows + 2} width={width}>
      <FixedLine width={width} text={renderLine(title, width)} />
      <FixedLine width={width} text={renderLine(headerRow(columns), width)} />
      {body}
    </Box>
  );
}
