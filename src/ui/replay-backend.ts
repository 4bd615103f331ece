// The TuiBackend of a finished replay: its journal (the replayed requests, then one replayDiff
// entry per request) read from memory, nothing to command (the replay is over: no proxy, no
// cookies to edit, no rules to reload), and exports saved under the state directory.
import { resolve } from 'node:path';
import type { JournalEntry } from '../engine/journal.js';
import type { TuiBackend } from './backend.js';
import { saveExport } from './session-backend.js';

export interface ReplayBackendOptions {
  /** The recording or HAR replayed, for the status bar. */
  file: string;
  /** Every entry, seq order, each delivered once to each subscriber (the latest run's). */
  entries: () => readonly JournalEntry[];
  stateDir: string;
  dryRun: boolean;
  writeToTerminal: (data: string) => void;
}

export function createReplayBackend(options: ReplayBackendOptions): TuiBackend {
  const stateDir = resolve(options.stateDir);
  return {
    mode: 'replay',
    source: options.file,
    proxyUrl: '',
    incognitoProxyUrl: undefined,
    ca: undefined,
    stateDir,
    journal: {
      subscribe(subscriber) {
        for (const entry of options.entries()) subscriber(entry);
        return () => {};
      },
    },
    getDryRun: () => options.dryRun,
    setDryRun: () => {},
    rules: undefined,
    cookies: { storeIds: ['0'], list: () => [], remove: async () => {}, setValue: async () => null },
    saveExport: (fileName, text) => saveExport(stateDir, fileName, text),
    writeToTerminal: options.writeToTerminal,
  };
}
