// r and e on a request: resend it as the client sent it, or first let the user edit it in their
// editor; either way it goes through the proxy as a new request, and the footer says what became of it.
import { requestAsText, requestFromText } from '../../app/resend.js';
import type { TuiBackend } from '../backend.js';
import type { RequestRecord } from '../store/request-record.js';
import type { UiActions } from '../ui-actions.js';
import { resendSource } from './resend-source.js';

/**
 * `expectResend` is told what is about to be sent (the store marks the request that arrives as
 * resent from `record`); what it returns ends the wait once the resend is answered.
 */
export async function resendCommand(record: RequestRecord, edit: boolean, backend: TuiBackend, notify: UiActions['notify'], expectResend?: (method: string, url: string) => () => void): Promise<void> {
  const resend = backend.resend;
  if (!resend) return notify('Resending needs the live proxy (not in a replay)', 'warn');
  const source = resendSource(record);
  if (!source.ok) return notify(`Cannot resend #${record.requestId}: ${source.error}`, 'error');
  let request = source.request;
  if (edit) {
    let text: string | undefined;
    try {
      text = await backend.editText?.(requestAsText(request), `request-${record.requestId}.http`);
    } catch (error) {
      return notify(`The editor failed: ${(error as Error).message}; nothing was sent`, 'error');
    }
    if (text === undefined) return notify('Set $VISUAL or $EDITOR to edit a request before resending it (r resends it as it is)', 'warn');
    const parsed = requestFromText(text);
    if (!parsed.ok) return notify(`Not resent: ${parsed.error}`, 'error');
    request = parsed.request;
  }
  notify(`Resending #${record.requestId}: ${request.method} ${request.url}`);
  const stopExpecting = expectResend?.(request.method, request.url);
  const result = await resend(request).finally(() => stopExpecting?.());
  if (result.ok) notify(`Resent #${record.requestId}${edit ? ' (edited)' : ''}: ${result.statusCode}; it is the newest request in the list`);
  else notify(`Resending #${record.requestId} failed: ${result.error}`, 'error');
}
