// The Rules tab: each rule's verdict per event — applied, ignored with why, dry-run would-…,
// failed with where.
import type { RequestRecord } from '../store/request-record.js';
import { blank, heading, line, type StyledLine } from './styled-line.js';
import { describeOutcome, STATUS_COLORS } from './verdict-text.js';

export function rulesLines(record: RequestRecord): StyledLine[] {
  const lines: StyledLine[] = [];
  const answered = record.events.filter((event) => event.outcomes.length > 0);
  if (answered.length === 0) {
    lines.push(line({ text: 'No rule answered any event of this request (listeners that returned nothing leave no verdict).', dim: true }));
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
  return lines;
}
