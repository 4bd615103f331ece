// The Rules tab's last lines: the toolbar badge each extension shows for the request's tab, as it
// set it (uBlock Origin's count of what it blocked in that tab). wrtui has no toolbar; this is where
// a user looking at a request sees what the extension's button would say of its page.
import type { RuleStatus } from '../../engine/extensions/rule-status.js';
import type { RequestRecord } from '../store/request-record.js';
import { blank, heading, line, type StyledLine } from './styled-line.js';

/** The badges for the request's tab (a tab's own text, else the button's), of the extensions that show one. */
export function badgeLines(record: RequestRecord, rules: readonly RuleStatus[]): StyledLine[] {
  const tabId = record.tabId;
  const shown = rules.flatMap((rule) => {
    if (!rule.badge) return [];
    const text = tabId >= 0 ? (rule.badge.byTab[tabId] ?? rule.badge.text) : rule.badge.text;
    return text === '' ? [] : [{ name: rule.name, text }];
  });
  if (shown.length === 0) return [];
  const width = Math.min(24, Math.max(...shown.map((badge) => badge.name.length)));
  return [
    blank,
    heading(tabId >= 0 ? `Toolbar badges in tab ${tabId}` : 'Toolbar badges'),
    ...shown.map((badge) => line('  ', { text: badge.name.padEnd(width), bold: true }, '  ', { text: ` ${badge.text} `, inverse: true })),
  ];
}
