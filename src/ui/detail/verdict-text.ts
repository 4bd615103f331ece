// Words for what a listener answered and what became of it, shared by the detail tabs.
import type { ListenerOutcome } from '../../engine/journal.js';
import type { BlockingResponse } from '../../engine/types.js';

export function describeResponse(response: BlockingResponse | undefined): string {
  if (!response) return 'no answer';
  const parts: string[] = [];
  if (response.cancel) parts.push('cancel');
  if (response.redirectUrl !== undefined) parts.push(`redirect → ${response.redirectUrl}`);
  if (response.requestHeaders) parts.push(`set ${response.requestHeaders.length} request headers`);
  if (response.responseHeaders) parts.push(`set ${response.responseHeaders.length} response headers`);
  if (response.authCredentials) parts.push(`answer auth as ${response.authCredentials.username}`);
  if (response.cancel === false && parts.length === 0) parts.push('cancel: false (go on)');
  return parts.length > 0 ? parts.join(', ') : 'nothing';
}

export const STATUS_COLORS: Readonly<Record<ListenerOutcome['status'], string>> = {
  applied: 'green',
  ignored: 'gray',
  'dry-run': 'yellow',
  failed: 'red',
};

/** One sentence: "dry-run: would cancel", "applied: redirect → …", "failed: TypeError … at file:12". */
export function describeOutcome(outcome: ListenerOutcome): string {
  switch (outcome.status) {
    case 'applied':
      return `${describeResponse(outcome.response)}${outcome.reason ? ` (${outcome.reason})` : ''}`;
    case 'dry-run':
      return outcome.reason ?? `would ${describeResponse(outcome.response)}`;
    case 'ignored':
      return `${outcome.response ? `${describeResponse(outcome.response)} — ` : ''}${outcome.reason ?? 'ignored'}`;
    case 'failed':
      return `${outcome.reason ?? 'failed'}${outcome.location ? ` at ${outcome.location}` : ''}`;
  }
}
