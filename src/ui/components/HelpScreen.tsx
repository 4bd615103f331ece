// The help screen (?): every command of the key table, grouped by where it works, and the filter
// language. Built from the same table as the footer, so the two never disagree.
import { Box } from 'ink';
import { useMemo } from 'react';
import { renderLine } from '../ansi.js';
import type { SessionMode } from '../backend.js';
import { helpSections } from '../commands/command-table.js';
import { ERROR_SHORT_FORMS } from '../list/request-columns.js';
import { blank, heading, line, wrapLines, type StyledLine } from '../detail/styled-line.js';
import { LinesView } from './LinesView.js';
import { FixedLine } from './FixedLine.js';

export interface HelpScreenProps {
  mode: SessionMode;
  top: number;
  width: number;
  height: number;
}

/** The help; a replay's marks the keys that need the live proxy. */
export function helpLines(mode: SessionMode = 'live'): StyledLine[] {
  const lines: StyledLine[] = [];
  for (const section of helpSections()) {
    if (section.commands.length === 0) continue;
    lines.push(heading(section.title));
    for (const command of section.commands) lines.push(line('  ', { text: command.keyLabel.padEnd(10), bold: true, color: 'cyan' }, ` ${command.description}`, ...(command.liveOnly && mode === 'replay' ? [{ text: ' (live proxy only: not in a replay)', dim: true }] : [])));
    lines.push(blank);
  }
  lines.push(heading('Filter language (/)'));
  for (const [example, meaning] of FILTER_HELP) lines.push(line('  ', { text: example.padEnd(34), color: 'cyan' }, ` ${meaning}`));
  lines.push(blank);
  lines.push(heading('Status bar'));
  lines.push(line('  ', { text: 'hBC left'.padEnd(10), color: 'cyan' }, ' handlerBehaviorChanged calls each rule has left of 20 in any 10 minutes (each reload makes one);'));
  lines.push(line('  ', ' '.repeat(10), ' "(next in 3m12s)" when a rule has none left, "2 refused" for calls turned away in the window'));
  lines.push(blank);
  lines.push(heading('Marks in the list'));
  for (const [mark, meaning] of MARK_HELP) lines.push(line('  ', { text: mark.padEnd(10), color: 'yellow' }, ` ${meaning}`));
  lines.push(blank);
  lines.push(heading('Short error names in the status column (when net::ERR_* does not fit)'));
  const byShort = new Map<string, string[]>();
  for (const [name, short] of Object.entries(ERROR_SHORT_FORMS)) byShort.set(short, [...(byShort.get(short) ?? []), name]);
  for (const [short, names] of byShort) lines.push(line('  ', { text: short.padEnd(10), color: 'red' }, ` ${names.map((name) => `net::ERR_${name}`).join(', ')}`));
  lines.push(line('  ', { text: 'cert'.padEnd(10), color: 'red' }, ' net::ERR_CERT_*'));
  lines.push(line('  ', { text: 'tls'.padEnd(10), color: 'red' }, ' net::ERR_SSL_* and net::ERR_BAD_SSL_*'));
  lines.push(line('  ', { text: 'error'.padEnd(10), color: 'red' }, ' any other: the Response tab names it'));
  return lines;
}

const FILTER_HELP: readonly (readonly [string, string])[] = [
  ['api', 'bare word: the URL contains it (quote to include spaces: "a b")'],
  ['host:example', 'host matches the regular expression (case-insensitive)'],
  ['url:/api/   path:^/v2/', 'the whole URL / path and query match the regular expression'],
  ['method:POST   method:GET,HEAD', 'the method (any of a comma list)'],
  ['status:404 4xx 40x 400-499 >=500', 'the status code'],
  ['status:error   status:pending', 'failed requests (net::ERR_*) / not finished yet'],
  ['old   url:/old$', 'a redirected request matches when any of its hops does'],
  ['type:image   type:xhr,script', 'the resource type (xhr js css img doc frame ws aliases)'],
  ['tab:3   tab:none   tab:any', 'the tab wrtui counted it in (a page and its subresources share one); none: from no tab (curl)'],
  ['is:cancelled redirected dry-run', 'what rules did (also failed, modified, headers, auth, ignored)'],
  ['rule:strip', 'a rule whose name matches answered the request'],
  ['by:badger   by:.', 'an extension whose name matches made the request itself (its own fetch); by:. any extension'],
  ['header:x-token   header:content-type=json', 'a request (as sent) or response header; =TEXT: its value contains TEXT'],
  ['body:token', "the request's or the response's body contains it (decoded: gzip, br, deflate)"],
  ['ws:hello', 'a WebSocket one of whose messages (either way) contains it'],
  ['dnr:block   dnr:main#3   dnr:3', 'declarativeNetRequest: what its rules did (any, block, redirect, upgradeScheme, allow, headers); a rule: acted on it, or would match it now'],
  ['a and b   a b   a or b   not a   !a', 'combine; not binds tightest, then and, then or'],
  ['(host:a or host:b) and not is:failed', 'parentheses group'],
];

const MARK_HELP: readonly (readonly [string, string])[] = [
  ['same   CHANGED', 'replay: the request behaved as recorded, or not (the Diff tab says what changed)'],
  ['…same   …CHANGED', "replay: a re-run after a save has not reached this request yet (the last run's row and verdict, dim)"],
  ['cancel', 'a rule cancelled it (net::ERR_BLOCKED_BY_CLIENT)'],
  ['redir', 'a rule redirected it'],
  ['hdrs', 'a rule changed request or response headers'],
  ['auth', 'a rule answered an authentication challenge'],
  ['~cancel', 'a dry-run rule would have cancelled it (~redir, ~hdrs, ~auth likewise)'],
  ['FAIL', 'a listener threw, timed out or returned an invalid answer'],
  ['ignored', 'a rule answered but lost a conflict (the Rules tab says why)'],
  ['unfollowed', 'the client took a 3xx as its answer and did not follow it (the row shows -/-> and the target)'],
  ['cached', "the response came from wrtui's HTTP cache"],
  ['ext', 'an extension made the request itself, its own fetch (by:NAME filters them; the Request tab names it)'],
  ['+2', 'two more marks did not fit: the Rules tab lists them all'],
];

export function HelpScreen({ mode, top, width, height }: HelpScreenProps) {
  const lines = useMemo(() => wrapLines(helpLines(mode), width - 2, 14), [mode, width]);
  const bodyHeight = Math.max(1, height - 1);
  const start = Math.min(top, Math.max(0, lines.length - bodyHeight));
  return (
    <Box flexDirection="column" height={height}>
      <FixedLine width={width} text={renderLine(line({ text: ' Keys ', bold: true, inverse: true }, { text: '  esc or ? closes · ↑/↓ PgUp/PgDn scroll', dim: true }), width)} />
      <Box paddingLeft={2}>
        <LinesView lines={lines} top={start} height={bodyHeight} width={width - 2} />
      </Box>
    </Box>
  );
}

export function helpLineCount(width: number, mode: SessionMode): number {
  return wrapLines(helpLines(mode), width - 2, 14).length;
}
