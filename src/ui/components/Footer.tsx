// The bottom line: the keys of the current view, from the command table (or a short notice
// after an action: "copied as curl …", "cookie deleted").
import { renderLine } from '../ansi.js';
import { footerCommands, type ViewName } from '../commands/command-table.js';
import type { Segment } from '../detail/styled-line.js';
import type { NoticeLevel } from '../ui-actions.js';
import type { SessionMode } from '../backend.js';
import { FixedLine } from './FixedLine.js';

export interface FooterProps {
  view: ViewName;
  mode: SessionMode;
  width: number;
  notice: { text: string; level: NoticeLevel } | undefined;
}

const NOTICE_COLORS: Readonly<Record<NoticeLevel, string>> = { info: 'green', warn: 'yellow', error: 'red' };

export function Footer({ view, mode, width, notice }: FooterProps) {
  if (notice) return <FixedLine width={width} text={renderLine([{ text: ` ${notice.text}`, color: NOTICE_COLORS[notice.level], bold: true }], width)} />;
  return <FixedLine width={width} text={renderLine(footerLine(view, width, mode), width)} />;
}

/** Commands that must always be visible, at any width: how to get help and how to leave. */
const ALWAYS_SHOWN = new Set(['help', 'quit']);

/**
 * The view's keys that fit, then "? help  q quit" whatever the width: a narrow terminal drops
 * the other keys (the help screen lists them all), never those two.
 */
export function footerLine(view: ViewName, width: number, mode: SessionMode = 'live'): Segment[] {
  const commands = footerCommands(view, mode);
  const cell = (command: (typeof commands)[number]): Segment[] => [{ text: command.keyLabel, bold: true, color: 'cyan' }, { text: ` ${command.short}  `, dim: true }];
  const length = (segments: Segment[]) => segments.reduce((sum, segment) => sum + segment.text.length, 0);
  const essential = commands.filter((command) => ALWAYS_SHOWN.has(command.name)).flatMap(cell);
  const segments: Segment[] = [{ text: ' ' }];
  let room = width - 1 - length(essential);
  for (const command of commands) {
    if (ALWAYS_SHOWN.has(command.name)) continue;
    const next = cell(command);
    if (length(next) > room) break;
    segments.push(...next);
    room -= length(next);
  }
  return [...segments, ...essential];
}
