// A window of styled lines: `height` rows from `top`, each exactly `width` columns. The detail
// pane, the help screen and the rules view scroll through it.
import { Box } from 'ink';
import { memo } from 'react';
import { renderLine } from '../ansi.js';
import type { StyledLine } from '../detail/styled-line.js';
import { FixedLine } from './FixedLine.js';

export interface LinesViewProps {
  lines: readonly StyledLine[];
  top: number;
  height: number;
  width: number;
}

export const LinesView = memo(function LinesView({ lines, top, height, width }: LinesViewProps) {
  const rows: string[] = [];
  for (let index = 0; index < height; index++) rows.push(renderLine(lines[top + index] ?? [], width));
  return (
    <Box flexDirection="column" height={height} width={width}>
      {rows.map((row, index) => (
        <FixedLine key={index} width={width} text={row} />
      ))}
    </Box>
  );
});
