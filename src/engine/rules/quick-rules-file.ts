// The quick rules' folder on disk: `<rules>/quick-rules/`, an unpacked Manifest V3 extension that
// has nothing but a declarativeNetRequest ruleset (Chrome loads the same folder with "Load
// unpacked"). `rules.json` is a plain JSON list of DNR rules the user may edit; `answers/` holds
// the files quick "answer from a file" rules redirect to (web accessible, served by wrtui in place).
// Every write is whole and 0600 (a rule quotes a URL, which may carry a token), and never over a
// file that does not parse: wrtui refuses rather than lose the user's edit.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDir, FileExistsError, writePrivateFile } from '../private-file.js';
import type { DnrRule } from '../dnr/dnr-types.js';

export const QUICK_RULES_FOLDER = 'quick-rules';
export const QUICK_RULES_FILE = 'rules.json';
export const QUICK_RULESET_ID = 'quick';
export const QUICK_ANSWERS_FOLDER = 'answers';

/** The manifest wrtui writes when the folder has none: what declares the ruleset. */
export const QUICK_RULES_MANIFEST = {
  manifest_version: 3,
  name: 'quick-rules',
  version: '1',
  description: "Quick rules written by wrtui's w key: declarativeNetRequest rules in rules.json (edit it; wrtui reloads it). No code runs here.",
  permissions: ['declarativeNetRequest'],
  host_permissions: ['<all_urls>'],
  declarative_net_request: { rule_resources: [{ id: QUICK_RULESET_ID, enabled: true, path: QUICK_RULES_FILE }] },
  web_accessible_resources: [{ resources: [`${QUICK_ANSWERS_FOLDER}/*`], matches: ['<all_urls>'] }],
};

export function quickRulesDir(rulesDir: string): string {
  return path.join(path.resolve(rulesDir), QUICK_RULES_FOLDER);
}

/** A ruleset file that could not be read as a list of rules: the file, where in it, and why. */
export class QuickRulesFileError extends Error {
  readonly file: string;
  readonly location: string;
  constructor(file: string, location: string, message: string) {
    super(message);
    this.name = 'QuickRulesFileError';
    this.file = file;
    this.location = location;
  }
}

/** `text` parsed as a JSON list; a syntax error names the file's line and column. */
export function parseRulesText(text: string, file: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    const message = (error as Error).message;
    const at = jsonErrorPosition(message, text);
    const where = at ? `${file}:${at.line}:${at.column}` : file;
    throw new QuickRulesFileError(file, where, `${path.basename(file)} is not valid JSON: ${message}`);
  }
  if (!Array.isArray(value)) throw new QuickRulesFileError(file, file, `${path.basename(file)} must be a JSON list of declarativeNetRequest rules ([{ "id": 1, "condition": …, "action": … }])`);
  return value;
}

/** V8's "at position N" (Node 20) or "(line L column C)" (newer V8), as a line and column. */
function jsonErrorPosition(message: string, text: string): { line: number; column: number } | undefined {
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  const position = /position (\d+)/.exec(message);
  if (!position) return undefined;
  const before = text.slice(0, Number(position[1]));
  const lines = before.split('\n');
  return { line: lines.length, column: lines.at(-1)!.length + 1 };
}

/** The line of `rules.json` where the rule with `id` starts (its "id" key), for error locations. */
export function lineOfRule(text: string, id: number): number | undefined {
  const match = new RegExp(`"id"\\s*:\\s*${id}(?![0-9.])`).exec(text);
  return match ? text.slice(0, match.index).split('\n').length : undefined;
}

/** The rules as written, `[]` when the file is missing; throws QuickRulesFileError when it does not parse. */
export async function readQuickRules(dir: string): Promise<unknown[]> {
  const file = path.join(dir, QUICK_RULES_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return parseRulesText(text, file);
}

/** One rule per block, two-space indented: a file a person reads and edits. */
export function formatRules(rules: readonly unknown[]): string {
  return `${JSON.stringify(rules, null, 2)}\n`;
}

export interface NewQuickRule {
  condition: DnrRule['condition'];
  action: DnrRule['action'];
  priority?: number;
  /** A file to copy into answers/ under `answerName`; the action's redirect.extensionPath names it. */
  answer?: { from: string; name: string };
}

/**
 * Appends a rule (the next free id) to `<dir>/rules.json`, writing the manifest first when the
 * folder has none; resolves with the rule as written. Refuses, changing nothing, when rules.json
 * does not parse (the user's edit in progress is theirs).
 */
export async function addQuickRule(dir: string, rule: NewQuickRule): Promise<{ rule: DnrRule; file: string }> {
  await mkdir(path.dirname(dir), { recursive: true });
  await ensurePrivateDir(dir);
  const rules = await readQuickRules(dir);
  const id = 1 + rules.reduce<number>((max, item) => Math.max(max, Number.isInteger((item as { id?: unknown })?.id) ? (item as { id: number }).id : 0), 0);
  let action = rule.action;
  if (rule.answer) {
    const answers = path.join(dir, QUICK_ANSWERS_FOLDER);
    await ensurePrivateDir(answers);
    // A copy: the rule answers with the file as it was when the rule was written (edit the copy to change the answer).
    const name = await writeUnderFreeName(answers, `${id}-${rule.answer.name}`, await readFile(rule.answer.from));
    action = { ...action, redirect: { extensionPath: `/${QUICK_ANSWERS_FOLDER}/${name}` } };
  }
  const written: DnrRule = { id, ...(rule.priority !== undefined && { priority: rule.priority }), condition: rule.condition, action };
  await ensureManifest(dir);
  const file = path.join(dir, QUICK_RULES_FILE);
  await writePrivateFile(file, formatRules([...rules, written]), { replace: true });
  return { rule: written, file };
}

/** Removes the rule with `id` from rules.json; resolves with it (undefined when there is none). */
export async function removeQuickRule(dir: string, id: number): Promise<DnrRule | undefined> {
  const rules = await readQuickRules(dir);
  const index = rules.findIndex((item) => (item as { id?: unknown })?.id === id);
  if (index === -1) return undefined;
  const [removed] = rules.splice(index, 1);
  await writePrivateFile(path.join(dir, QUICK_RULES_FILE), formatRules(rules), { replace: true });
  return removed as DnrRule;
}

async function ensureManifest(dir: string): Promise<void> {
  const file = path.join(dir, 'manifest.json');
  try {
    await writePrivateFile(file, `${JSON.stringify(QUICK_RULES_MANIFEST, null, 2)}\n`);
  } catch (error) {
    if (!(error instanceof FileExistsError)) throw error;
  }
}

async function writeUnderFreeName(dir: string, name: string, bytes: Uint8Array): Promise<string> {
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-');
  const ext = path.extname(safe);
  const stem = safe.slice(0, safe.length - ext.length);
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? safe : `${stem}-${n}${ext}`;
    try {
      await writePrivateFile(path.join(dir, candidate), bytes);
      return candidate;
    } catch (error) {
      if (!(error instanceof FileExistsError) || n >= 100) throw error;
    }
  }
}
