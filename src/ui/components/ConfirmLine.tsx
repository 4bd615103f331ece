// A yes/no question on the bottom line: y confirms, anything else cancels.
import { renderLine } from '../ansi.js';
import { useModalKeys } from '../hooks/use-view-commands.js';
import type { ConfirmSpec } from '../ui-actions.js';
import { FixedLine } from './FixedLine.js';

export interface ConfirmLineProps {
  spec: ConfirmSpec;
  width: number;
  onClose: () => void;
}

export function ConfirmLine({ spec, width, onClose }: ConfirmLineProps) {
  useModalKeys((input) => {
    onClose();
    if (input === 'y' || input === 'Y') spec.onYes();
    return true;
  });
  return <FixedLine width={width} text={renderLine([{ text: ` ${spec.question} `, bold: true, color: 'yellow' }, { text: 'y/n', bold: true }], width)} />;
}
