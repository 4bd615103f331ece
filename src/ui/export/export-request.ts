// The "export as curl" command: the command line goes to a file under the state directory and,
// through OSC 52, to the clipboard of the terminal the user sits at.
import type { TuiBackend } from '../backend.js';
import type { RequestRecord } from '../store/request-record.js';
import { curlCommand } from './curl-command.js';
import { osc52Sequence } from './osc52.js';

export interface ExportResult {
  path: string;
  /** False when the command was too long for OSC 52. */
  copied: boolean;
  command: string;
}

export async function exportRequestAsCurl(record: RequestRecord, backend: TuiBackend): Promise<ExportResult> {
  const command = curlCommand({
    method: record.method,
    url: record.url,
    headers: record.sentHeaders ?? record.requestHeaders,
    requestBody: record.requestBody,
    bodyBytes: record.requestBytes?.complete ? record.requestBytes.bytes : undefined,
  });
  const path = await backend.saveExport(`curl-${record.requestId}.sh`, `#!/bin/sh\n# ${record.method} ${record.url}\n${command}\n`);
  const sequence = osc52Sequence(command);
  if (sequence) backend.writeToTerminal(sequence);
  return { path, copied: sequence !== undefined, command };
}
