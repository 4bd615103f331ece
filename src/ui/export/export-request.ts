// The "export as curl" command: the command line goes to a file under the state directory and,
// through OSC 52, to the clipboard of the terminal the user sits at.
import type { TuiBackend } from '../backend.js';
import type { RequestRecord } from '../store/request-record.js';
import { clientHeaders } from '../detail/header-origins.js';
import { curlCommand } from './curl-command.js';
import { osc52Sequence } from './osc52.js';

export interface ExportResult {
  path: string;
  /** False when the command was too long for OSC 52. */
  copied: boolean;
  command: string;
}

/**
 * `which`: 'client' exports the request as the client sent it (no jar cookies, no credentials
 * wrtui added, no rule's changes); 'upstream' as it went to the server.
 */
export async function exportRequestAsCurl(record: RequestRecord, backend: TuiBackend, which: 'client' | 'upstream' = 'client'): Promise<ExportResult> {
  const command = curlCommand({
    method: record.method,
    url: record.url,
    headers: which === 'client' ? clientHeaders(record) : (record.sentHeaders ?? record.requestHeaders),
    requestBody: record.requestBody,
    bodyBytes: record.requestBytes?.complete ? record.requestBytes.bytes : undefined,
  });
  const path = await backend.saveExport(`curl-${record.requestId}${which === 'upstream' ? '-upstream' : ''}.sh`, `#!/bin/sh\n# ${record.method} ${record.url} (${which === 'client' ? 'as the client sent it' : 'as it went upstream: jar cookies and rules included'})\n${command}\n`);
  const sequence = osc52Sequence(command);
  if (sequence) backend.writeToTerminal(sequence);
  return { path, copied: sequence !== undefined, command };
}
