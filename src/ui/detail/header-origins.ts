// Where each header of a request came from: the client, wrtui's cookie jar, credentials a rule
// gave, or a rule's onBeforeSendHeaders answer; and the headers the client itself sent, for an
// export that is honest about it. Pure: it reads the record the journal built.
import type { WrtuiAddedHeader } from '../../engine/journal.js';
import type { HttpHeader, HttpHeaders } from '../../engine/types.js';
import { headerLineKey, hopDnrEntries, latestOutcomes, type RequestRecord } from '../store/request-record.js';

export type HeaderOrigin =
  | { kind: 'client' }
  /** Cookie values from the jar (`cookies`), with the client's own other cookies when `withClient`. */
  | { kind: 'jar'; cookies: string[]; withClient: boolean }
  | { kind: 'credentials' }
  | { kind: 'rule'; owners: string[] };

export interface HeaderLine {
  header: HttpHeader;
  origin: HeaderOrigin;
}

export interface HeaderOrigins {
  /** What went upstream, each line with where it came from. */
  sent: HeaderLine[];
  /** Lines listeners were shown that rules took out. */
  removed: { header: HttpHeader; owners: string[] }[];
  /** What dry-run rules would have done to the request headers ("block: would remove Referer (request)"). */
  dryRun: string[];
}

export function headerOrigins(record: RequestRecord): HeaderOrigins | undefined {
  const shown = record.requestHeaders;
  const sent = record.sentHeaders ?? shown;
  if (!sent) return undefined;
  const outcomes = latestOutcomes(record, 'onBeforeSendHeaders');
  const changers = outcomes.filter((outcome) => outcome.status === 'applied' && outcome.response?.requestHeaders);
  const shownLines = new Set((shown ?? []).map(headerLineKey));
  const sentLines = new Set(sent.map(headerLineKey));
  const dnrChanges = hopDnrEntries(record, 'onBeforeSendHeaders').at(-1)?.headerChanges ?? [];
  const ownersWith = (key: string, present: boolean) => {
    const owners = changers.filter((outcome) => outcome.response!.requestHeaders!.some((header) => headerLineKey(header) === key) === present).map((outcome) => outcome.owner);
    if (owners.length > 0) return owners;
    // Not a listener's: a declarativeNetRequest rule's, which acts after the listeners saw the headers.
    const name = key.slice(0, key.indexOf(': '));
    const byDnr = [...new Set(dnrChanges.filter((change) => change.header.toLowerCase() === name).map((change) => `DNR ${change.extension}`))];
    return byDnr.length > 0 ? byDnr : changers.map((outcome) => outcome.owner);
  };
  const added = new Map((record.wrtuiAdded ?? []).map((entry) => [entry.header.toLowerCase(), entry]));
  return {
    sent: sent.map((header) => {
      const key = headerLineKey(header);
      if (shown && !shownLines.has(key)) return { header, origin: { kind: 'rule', owners: ownersWith(key, true) } };
      return { header, origin: wrtuiOrigin(added.get(header.name.toLowerCase())) };
    }),
    removed: (shown ?? []).filter((header) => !sentLines.has(headerLineKey(header))).map((header) => ({ header, owners: ownersWith(headerLineKey(header), false) })),
    dryRun: outcomes.filter((outcome) => outcome.status === 'dry-run' && outcome.response?.requestHeaders).map((outcome) => `${outcome.owner}: ${outcome.reason ?? 'would change request headers'}`),
  };
}

/** The headers as the client sent them: without the jar's cookies and the credentials wrtui added. */
export function clientHeaders(record: RequestRecord): HttpHeaders | undefined {
  const shown = record.requestHeaders;
  if (!shown) return record.sentHeaders;
  let headers: HttpHeaders = shown;
  for (const added of record.wrtuiAdded ?? []) {
    const name = added.header.toLowerCase();
    const index = headers.findIndex((header) => header.name.toLowerCase() === name);
    headers = headers.filter((header) => header.name.toLowerCase() !== name);
    if (added.by === 'cookie jar' && added.clientValue !== undefined) headers.splice(index === -1 ? headers.length : index, 0, { name: added.header, value: added.clientValue });
  }
  return headers;
}

function wrtuiOrigin(added: WrtuiAddedHeader | undefined): HeaderOrigin {
  if (!added) return { kind: 'client' };
  if (added.by === 'auth credentials') return { kind: 'credentials' };
  return { kind: 'jar', cookies: added.cookies ?? [], withClient: added.clientValue !== undefined };
}
