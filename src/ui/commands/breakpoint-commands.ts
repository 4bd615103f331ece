// The breakpoint keys: i sets one (a stage and a filter), and on a paused request a continues,
// A continues all, X cancels, u redirects, E edits the headers in $EDITOR, C supplies credentials.
// Every answer is the "breakpoint" extension's BlockingResponse (src/engine/breakpoints.ts).
import { stageNamed, type BreakpointStage } from '../../engine/breakpoints.js';
import type { BlockingResponse, HttpHeaders, WebRequestDetails } from '../../engine/types.js';
import type { TuiBackend } from '../backend.js';
import { compileFilter, type FilterableRequest } from '../filter/compile-filter.js';
import type { RequestRecord } from '../store/request-record.js';
import { splitUrl } from '../store/split-url.js';
import type { UiActions } from '../ui-actions.js';

export type BreakpointCommand = 'breakpoint.set' | 'breakpoint.continue' | 'breakpoint.continueAll' | 'breakpoint.cancel' | 'breakpoint.redirect' | 'breakpoint.editHeaders' | 'breakpoint.credentials';

export function breakpointCommand(command: BreakpointCommand, record: RequestRecord | undefined, backend: TuiBackend, actions: UiActions): void {
  const breakpoints = backend.breakpoints;
  if (!breakpoints) return actions.notify('Breakpoints need the live proxy', 'warn');
  if (command === 'breakpoint.set') return promptForBreakpoint(backend, actions);
  if (command === 'breakpoint.continueAll') {
    const count = breakpoints.releaseAll();
    return actions.notify(count > 0 ? `${count} paused request${count === 1 ? '' : 's'} went on unchanged` : 'No request is paused');
  }
  const stage = record && (breakpoints.isPaused(record.requestId) as BreakpointStage | undefined);
  if (!record || !stage) return actions.notify('The selected request is not paused (PAUSED in the list marks those that are)', 'warn');
  const answer = (response: BlockingResponse | undefined, what: string) => {
    if (breakpoints.answer(record.requestId, response)) actions.notify(`#${record.requestId} at ${stage}: ${what}`);
  };
  switch (command) {
    case 'breakpoint.continue':
      return answer(undefined, 'continued unchanged');
    case 'breakpoint.cancel':
      return answer({ cancel: true }, 'cancelled (net::ERR_BLOCKED_BY_CLIENT)');
    case 'breakpoint.redirect':
      if (stage !== 'onBeforeRequest' && stage !== 'onHeadersReceived') return actions.notify(`A redirect is an answer of onBeforeRequest or onHeadersReceived, not of ${stage}`, 'warn');
      return actions.prompt({
        label: 'redirect to: ',
        initial: record.url,
        validate: (text) => (URL.canParse(text.trim()) ? undefined : { message: 'not a URL', position: 0, length: Math.max(1, text.length) }),
        onSubmit: (text) => answer({ redirectUrl: text.trim() }, `redirected to ${text.trim()}`),
      });
    case 'breakpoint.credentials':
      if (stage !== 'onAuthRequired') return actions.notify('Credentials answer onAuthRequired: set the breakpoint at auth', 'warn');
      return actions.prompt({
        label: 'user:password ',
        initial: '',
        validate: (text) => (text.includes(':') ? undefined : { message: 'user:password', position: 0, length: Math.max(1, text.length) }),
        onSubmit: (text) => {
          const colon = text.indexOf(':');
          answer({ authCredentials: { username: text.slice(0, colon), password: text.slice(colon + 1) } }, `answered with credentials for ${text.slice(0, colon)}`);
        },
      });
    case 'breakpoint.editHeaders':
      return void editHeaders(record, stage, backend, actions, answer);
  }
}

async function editHeaders(record: RequestRecord, stage: BreakpointStage, backend: TuiBackend, actions: UiActions, answer: (response: BlockingResponse, what: string) => void): Promise<void> {
  const key = stage === 'onBeforeSendHeaders' ? 'requestHeaders' : stage === 'onHeadersReceived' ? 'responseHeaders' : undefined;
  if (!key) return actions.notify(`Headers are answered at onBeforeSendHeaders (request) or onHeadersReceived (response), not at ${stage}`, 'warn');
  const shown = (record.pausedDetails as { [name: string]: HttpHeaders | undefined } | undefined)?.[key] ?? [];
  let text: string | undefined;
  try {
    text = await backend.editText?.(shown.map((header) => `${header.name}: ${header.value ?? ''}`).join('\n') + '\n', `${key}-${record.requestId}.txt`);
  } catch (error) {
    return actions.notify(`The editor failed: ${(error as Error).message}; the request stays paused`, 'error');
  }
  if (text === undefined) return actions.notify('Set $VISUAL or $EDITOR to edit headers; the request stays paused', 'warn');
  const headers: HttpHeaders = [];
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return actions.notify(`Line ${index + 1} is not "Name: value"; the request stays paused`, 'error');
    headers.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
  }
  answer({ [key]: headers }, `${key === 'requestHeaders' ? 'request' : 'response'} headers replaced (${headers.length})`);
}

function promptForBreakpoint(backend: TuiBackend, actions: UiActions): void {
  const breakpoints = backend.breakpoints!;
  const current = breakpoints.current;
  const parse = (text: string) => {
    const trimmed = text.trim();
    const first = trimmed.split(/\s+/, 1)[0] ?? '';
    const stage = stageNamed(first);
    const filter = stage ? trimmed.slice(first.length).trim() : trimmed;
    return { stage: stage ?? 'onBeforeRequest', filter, offset: stage ? text.indexOf(first) + first.length + 1 : 0 };
  };
  actions.prompt({
    label: 'breakpoint:',
    initial: current ? `${current.stage} ${current.description}`.trim() : '',
    placeholder: 'onBeforeRequest host:example.com',
    hint: 'stage (request|send|response|auth) then a filter; empty clears',
    validate: (text) => {
      const { filter, offset } = parse(text);
      const compiled = compileFilter(filter);
      return compiled.ok ? undefined : { ...compiled.error, position: compiled.error.position + offset };
    },
    onSubmit: (text) => {
      if (text.trim() === '') {
        breakpoints.set(undefined);
        return actions.notify('Breakpoint cleared; paused requests stay paused until answered (A continues all)');
      }
      const { stage, filter } = parse(text);
      const compiled = compileFilter(filter);
      if (!compiled.ok) return;
      const predicate = compiled.predicate;
      breakpoints.set({ stage, description: filter, matches: (details) => (predicate ? predicate(asFilterable(details)) : true) });
      actions.notify(`Breakpoint at ${stage}${filter ? ` for ${filter}` : ' for every request'}: matching requests pause (a continue, X cancel, u redirect, E headers, C credentials)`, 'warn');
    },
  });
}

/** What the filter language needs of a request, from a listener's details (the request is still going). */
function asFilterable(details: WebRequestDetails): FilterableRequest {
  const fields = details as WebRequestDetails & { statusCode?: number; requestHeaders?: HttpHeaders; responseHeaders?: HttpHeaders };
  return {
    url: details.url,
    ...splitUrl(details.url),
    method: details.method,
    statusCode: fields.statusCode,
    error: undefined,
    phase: 'pending',
    type: details.type,
    tabId: details.tabId,
    verdicts: new Set(),
    rules: new Set(),
    ...(fields.requestHeaders && { requestHeaders: fields.requestHeaders }),
    ...(fields.responseHeaders && { responseHeaders: fields.responseHeaders }),
  };
}
