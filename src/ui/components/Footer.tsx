// The bottom line: the keys of the current view, from the command table (or a short notice
// after an action: "copied as curl …", "cookie deleted").
import { renderLine } from '../ansi.js';
import { footerCommands, type ViewName } from '../commands/command-table.js';
import type { Segment } from '../detail/styled-line.js';
import type { NoticeLevel } from '../ui-actions.js';
import { FixedLine } from './FixedLine.js';

export interface FooterProps {
  view: ViewName;
  width: number;
  notice: { text: string; level: NoticeLevel } | undefined;
}

const NOTICE_COLORS: Readonly<Record<NoticeLevel, string>> = { info: 'green', warn: 'yellow', error: 'red' };

export function Footer({ view, width, notice }: FooterProps) {
  if (notice) return <FixedLine width={width} text={renderLine([{ text: ` ${notice.text}`, color: NOTICE_COLORS[notice.level], bold: true }], width)} />;
  const segments: Segment[] = [{ text: ' ' }];
  for (const command of footerCommands(view)) {
    segments.push({ text: command.keyLabel, bold: true, color: 'cyan' }, { text: ` ${command.short}  `, dim: true });
  }
  return <FixedLine width={width} text={renderLine(segments, width)} />;
}
