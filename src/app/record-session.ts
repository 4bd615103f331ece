// --record for a live session (headless and the TUI): starts the session recorder on the engine,
// redacting when --redact says so or, without the flag, when <state-dir>/settings.json does.
import type { Engine } from '../engine/engine.js';
import { SessionRecorder } from '../engine/session/session-recorder.js';
import { shellWord, shortPath } from '../engine/path-text.js';
import { SettingsFile } from '../engine/session/settings.js';

export interface RecordOptions {
  /** The session file; undefined: no recording. */
  record?: string;
  /** --redact / --no-redact; undefined: the settings decide (default off). */
  redact?: boolean;
  maxBodySize: number;
}

export async function startRecording(engine: Engine, options: RecordOptions, stateDir: string): Promise<SessionRecorder | undefined> {
  if (!options.record) return undefined;
  const problem = (message: string) => engine.journal.append({ kind: 'log', level: 'warn', source: 'state', message });
  const settings = SettingsFile.forStateDir(stateDir, problem);
  const redact = options.redact ?? (await settings.read()).recording.redact;
  const recorder = await SessionRecorder.start(engine, { file: options.record, redact, maxBodySize: options.maxBodySize, stateDir });
  // What is in effect, and why: a recording's reader should not have to guess whether it holds credentials.
  const why = options.redact !== undefined ? (redact ? '--redact' : '--no-redact') : `recording.redact of ${shortPath(settings.file)}${redact ? '' : '; --redact turns it on'}`;
  engine.journal.append({ kind: 'log', level: 'info', source: 'recorder', message: `recording to ${recorder.file}: ${redact ? 'credentials redacted (Authorization, Cookie, Set-Cookie values)' : 'not redacted: credentials are recorded as sent'} (${why})` });
  return recorder;
}

/** The end of a session's last line: where the recording went and how to replay it ('' without --record). */
export function recordedClause(recorder: SessionRecorder | undefined): string {
  if (!recorder) return '';
  const file = shortPath(recorder.file);
  return `; recorded ${recorder.requestCount} request${recorder.requestCount === 1 ? '' : 's'} to ${file} (wrtui replay ${shellWord(file)})`;
}
