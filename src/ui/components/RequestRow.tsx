// One request as one line of the list. Memoised on the record's revision: of the rows on screen
// only those whose request changed are rebuilt when the store notifies.
import { memo } from 'react';
import { renderLine } from '../ansi.js';
import { requestRow, type RequestColumns } from '../list/request-columns.js';
import type { RequestRecord } from '../store/request-record.js';
import { FixedLine } from './FixedLine.js';

export interface RequestRowProps {
  record: RequestRecord;
  /** record.revision, so memo sees changes of the (mutable) record. */
  revision: number;
  /** Whole seconds a waiting request has waited (-1 once it ended), so memo redraws its age once a second. */
  waitedSeconds: number;
  now: number;
  columns: RequestColumns;
  width: number;
  selected: boolean;
}

export const RequestRow = memo(
  function RequestRow({ record, now, columns, width, selected }: RequestRowProps) {
    const cells = requestRow(record, columns, now);
    if (selected) cells[0] = { text: '▶ ', bold: true };
    return <FixedLine width={width} text={renderLine(cells, width, selected ? { inverse: true } : undefined)} />;
  },
  // `now` alone changes every frame; a row depends on it only through waitedSeconds.
  (before, after) =>
    before.record === after.record && before.revision === after.revision && before.waitedSeconds === after.waitedSeconds && before.columns === after.columns && before.width === after.width && before.selected === after.selected,
);
