// A temporary rules folder with a ExtensionHost over an Engine, for tests that write real files and
// wait for real file-system events.
import { mkdtemp, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Engine, type EngineOptions } from '../../src/engine/engine.js';
import type { JournalEntry, LogEntry, RuleEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { ExtensionHost, type ExtensionHostOptions } from '../../src/engine/extensions/extension-host.js';
import type { RequestInit } from '../../src/engine/web-request/lifecycle.js';
import { runRequest, type RequestResult } from '../../src/engine/web-request/run-request.js';
import { ScriptedOrigin } from '../helpers/web-request-harness.js';

export interface RuleFolder {
  dir: string;
  engine: Engine;
  host: ExtensionHost;
  entries: JournalEntry[];
  /** Writes `source` to `file` (relative to the folder), making folders as needed. */
  write(file: string, source: string): Promise<void>;
  /** Saves like an editor that writes a temporary file and renames it over the original. */
  writeAndRename(file: string, source: string): Promise<void>;
  remove(file: string): Promise<void>;
  path(file: string): string;
  ruleEntries(rule?: string): (RuleEntry & JournalEntry)[];
  logEntries(source?: string): (LogEntry & JournalEntry)[];
  webRequestEntries(): (WebRequestEntry & JournalEntry)[];
  /** Resolves with the first entry from now on (or already after `since`) that matches. */
  waitForEntry<T extends JournalEntry>(match: (entry: JournalEntry) => entry is T, options?: { since?: number; timeoutMs?: number }): Promise<T>;
  waitForEntry(match: (entry: JournalEntry) => boolean, options?: { since?: number; timeoutMs?: number }): Promise<JournalEntry>;
  /** The journal's length now: pass as `since` to wait only for what happens next. */
  mark(): number;
  /** One request through the engine's lifecycle to a scripted origin (no network). */
  run(url: string, init?: Partial<RequestInit>): Promise<RequestResult>;
  close(): Promise<void>;
}

export interface RuleFolderOptions {
  /** Files written before the host starts. */
  files?: Record<string, string>;
  host?: Omit<ExtensionHostOptions, 'rulesDir'>;
  engine?: EngineOptions;
}

export async function openRuleFolder(options: RuleFolderOptions = {}): Promise<RuleFolder> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wrtui-rules-test-'));
  const write = async (file: string, source: string) => {
    const target = path.join(dir, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, source);
  };
  for (const [file, source] of Object.entries(options.files ?? {})) await write(file, source);
  const engine = await Engine.open(options.engine ?? {});
  const entries: JournalEntry[] = [];
  engine.journal.subscribe((entry) => entries.push(entry));
  const host = await ExtensionHost.start(engine, { typeCheck: false, ...options.host, rulesDir: dir });

  const waitForEntry = (match: (entry: JournalEntry) => boolean, { since = entries.length, timeoutMs = 5000 } = {}) =>
    new Promise<JournalEntry>((resolve, reject) => {
      const found = entries.slice(since).find(match);
      if (found) return resolve(found);
      const timer = setTimeout(() => {
        unsubscribe();
        reject(new Error(`no matching journal entry within ${timeoutMs} ms; last entries:\n${entries.slice(-8).map((e) => JSON.stringify(e)).join('\n')}`));
      }, timeoutMs);
      const unsubscribe = engine.journal.subscribe((entry) => {
        if (!match(entry)) return;
        clearTimeout(timer);
        unsubscribe();
        resolve(entry);
      });
    });

  return {
    dir,
    engine,
    host,
    entries,
    write,
    async writeAndRename(file, source) {
      const target = path.join(dir, file);
      const temporary = path.join(dir, `.${path.basename(file)}.swp`);
      await writeFile(temporary, source);
      await rename(temporary, target);
    },
    remove: (file) => rm(path.join(dir, file), { force: true }),
    path: (file) => path.join(dir, file),
    ruleEntries: (rule) => entries.filter((e): e is RuleEntry & JournalEntry => e.kind === 'rule' && (rule === undefined || e.rule === rule)),
    logEntries: (source) => entries.filter((e): e is LogEntry & JournalEntry => e.kind === 'log' && (source === undefined || e.source === source)),
    webRequestEntries: () => entries.filter((e): e is WebRequestEntry & JournalEntry => e.kind === 'webRequest'),
    waitForEntry: waitForEntry as RuleFolder['waitForEntry'],
    mark: () => entries.length,
    run: (url, init = {}) => runRequest(engine.lifecycle, { method: 'GET', requestHeaders: [], type: 'main_frame', ...init, url }, new ScriptedOrigin()),
    async close() {
      await host.close();
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Waits for the rule entry `action` of `rule` after `since`. */
export function ruleAction(rule: string, action: RuleEntry['action']) {
  return (entry: JournalEntry): entry is RuleEntry & JournalEntry => entry.kind === 'rule' && entry.rule === rule && entry.action === action;
}

/** A rule file's source: a manifest and a background body. */
export function ruleSource(
  name: string,
  body: string,
  manifest: Record<string, unknown> = { permissions: ['webRequest', 'webRequestBlocking', 'cookies'], host_permissions: ['<all_urls>'] },
  prelude = '',
): string {
  return `${prelude}
export const manifest = ${JSON.stringify({ name, ...manifest })};
export default function background({ chrome, browser }: any) {
${body}
}
`;
}

/** A rule with one onBeforeRequest listener whose filter names `marker`: which version is live shows in the registry. */
export function markerRule(name: string, marker: string): string {
  return ruleSource(name, `  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['*://${marker}/*'] }, ['blocking']);`);
}

/** The URL patterns of a rule's live listeners. */
export function listenerUrls(host: ExtensionHost, name: string): string[] {
  return (host.rule(name)?.listeners ?? []).flatMap((listener) => listener.filter.urls);
}

/** The 1-based line of the first line of `source` containing `text`. */
export function lineOf(source: string, text: string): number {
  const index = source.split('\n').findIndex((line) => line.includes(text));
  if (index === -1) throw new Error(`${JSON.stringify(text)} is not in the source`);
  return index + 1;
}
