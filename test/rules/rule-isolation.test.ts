// Failure isolation: a broken edit never takes the last good version down, every failure is a
// `rule` journal entry with action 'failed', the message and file:line in the rule's .ts file, and
// a listener's failures are located in the rule's .ts file and line.
import { afterEach, describe, expect, it } from 'vitest';
import type { JournalEntry, ListenerOutcome, RuleEntry } from '../../src/engine/journal.js';
import { lineOf, listenerUrls, markerRule, openRuleFolder, ruleAction, ruleSource, type RuleFolder } from './rule-folder.js';

let folder: RuleFolder | undefined;
afterEach(async () => {
  await folder?.close();
  folder = undefined;
});

/** Opens a folder with a good `guarded` rule, saves `broken`, and returns the failure entry. */
async function breakGuarded(broken: string, options: Parameters<typeof openRuleFolder>[0] = {}): Promise<RuleEntry & JournalEntry> {
  folder = await openRuleFolder({ ...options, files: { 'guarded.ts': markerRule('guarded', 'good.example') } });
  const since = folder.mark();
  await folder.write('guarded.ts', broken);
  return folder.waitForEntry(ruleAction('guarded', 'failed'), { since });
}

function expectLastGoodActive(): void {
  expect(folder!.host.rule('guarded')).toMatchObject({ state: 'active', reloadCount: 0 });
  expect(listenerUrls(folder!.host, 'guarded')).toEqual(['*://good.example/*']);
  expect(folder!.engine.registry.describe().map((l) => l.filter.urls[0])).toEqual(['*://good.example/*']);
}

describe('a broken save keeps the last good version', () => {
  it('syntax error: esbuild\'s message with file:line:col', async () => {
    const broken = markerRule('guarded', 'bad.example').replace("['blocking']);", "['blocking'];");
    const failure = await breakGuarded(broken);
    const line = lineOf(broken, "['blocking'];");
    expect(failure).toMatchObject({
      action: 'failed',
      rule: 'guarded',
      file: folder!.path('guarded.ts'),
      location: expect.stringMatching(new RegExp(`^${folder!.path('guarded.ts')}:${line}:\\d+$`)),
      message: expect.stringMatching(new RegExp(`^${folder!.path('guarded.ts')}:${line}:\\d+: Expected "\\)" but found ";" \\(the last good version stays active\\)$`)),
    });
    expectLastGoodActive();
    expect(folder!.host.rule('guarded')?.error?.message).toContain('Expected ")" but found ";"');
  });

  it('a throw in the background: the stack is mapped to the .ts file and line', async () => {
    const broken = ruleSource('guarded', "  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['*://bad.example/*'] }, ['blocking']);\n  const config: { hosts?: string[] } = {};\n  config.hosts!.map((host) => host);");
    const failure = await breakGuarded(broken);
    expect(failure.message).toMatch(/^the background threw TypeError: Cannot read properties of undefined \(reading 'map'\)/);
    expect(failure.location).toMatch(new RegExp(`^${folder!.path('guarded.ts')}:${lineOf(broken, 'config.hosts!.map')}:\\d+$`));
    // What the new background registered before it threw never went live.
    expectLastGoodActive();
  });

  it('a throw while the module is evaluated (top level)', async () => {
    const broken = `${markerRule('guarded', 'bad.example')}\nthrow new RangeError('top level');\n`;
    const failure = await breakGuarded(broken);
    expect(failure).toMatchObject({
      message: 'loading the rule threw RangeError: top level (the last good version stays active)',
      location: expect.stringMatching(new RegExp(`^${folder!.path('guarded.ts')}:${lineOf(broken, 'top level')}:\\d+$`)),
    });
    expectLastGoodActive();
  });

  it('an async background that rejects', async () => {
    const broken = ruleSource('guarded', "  chrome.webRequest.onBeforeRequest.addListener(() => {}, { urls: ['*://bad.example/*'] });\n  await Promise.resolve();\n  throw new Error('config server unreachable');").replace(
      'export default function',
      'export default async function',
    );
    const failure = await breakGuarded(broken);
    expect(failure.message).toBe('the background threw Error: config server unreachable (the last good version stays active)');
    expect(failure.location).toMatch(new RegExp(`:${lineOf(broken, 'config server unreachable')}:\\d+$`));
    expectLastGoodActive();
  });

  it('a background that never settles times out; its worker is stopped, so nothing it would register afterwards ever goes live', async () => {
    const broken = ruleSource(
      'guarded',
      "  await new Promise((resolve) => globalThis.setTimeout(resolve, 700));\n  chrome.webRequest.onBeforeRequest.addListener(() => {}, { urls: ['*://late.example/*'] });",
    ).replace('export default function', 'export default async function');
    folder = await openRuleFolder({ files: { 'guarded.ts': markerRule('guarded', 'good.example') }, host: { backgroundTimeoutMs: 300 } });
    const since = folder.mark();
    await folder.write('guarded.ts', broken);
    const failure = await folder.waitForEntry(ruleAction('guarded', 'failed'), { since });
    expect(failure.message).toBe('the background did not settle within 300 ms (an async background must resolve; see backgroundTimeoutMs) (the last good version stays active)');
    expectLastGoodActive();
    // Past the moment the late addListener would have run: the terminated worker never ran it.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expectLastGoodActive();
  });

  it('the same failures on a first load leave the rule failed, with no listener', async () => {
    const source = ruleSource('first-load', "  chrome.webRequest.onBeforeRequest.addListener(() => {}, { urls: ['*://x.example/*'] });\n  throw new Error('nope');");
    folder = await openRuleFolder({ files: { 'first-load.ts': source } });
    expect(folder.host.rule('first-load')).toMatchObject({
      state: 'failed',
      listeners: [],
      error: { message: 'the background threw Error: nope', location: expect.stringMatching(new RegExp(`first-load\\.ts:${lineOf(source, "'nope'")}:\\d+$`)) },
    });
    expect(folder.engine.registry.count()).toBe(0);
    expect(folder.ruleEntries('first-load').map((e) => e.action)).toEqual(['failed']);
  });

  it('fixing the file after a failure loads the fix', async () => {
    await breakGuarded('export const manifest = {');
    const since = folder!.mark();
    await folder!.write('guarded.ts', markerRule('guarded', 'fixed.example'));
    await folder!.waitForEntry(ruleAction('guarded', 'reloaded'), { since });
    expect(folder!.host.rule('guarded')).toMatchObject({ state: 'active', reloadCount: 1 });
    expect(folder!.host.rule('guarded')?.error).toBeUndefined();
    expect(listenerUrls(folder!.host, 'guarded')).toEqual(['*://fixed.example/*']);
  });

  it('the old version\'s timers stop when the new version takes over; a failed version\'s never start', async () => {
    const ticking = (word: string) => ruleSource('guarded', `  setInterval(() => console.log('${word}'), 10);`, { permissions: [] });
    folder = await openRuleFolder({ files: { 'guarded.ts': ticking('old') } });
    await folder.waitForEntry((e) => e.kind === 'log' && e.message === 'old', { since: 0 });
    let since = folder.mark();
    await folder.write('guarded.ts', ticking('new'));
    await folder.waitForEntry((e) => e.kind === 'log' && e.message === 'new', { since });
    since = folder.mark();
    await folder.write('guarded.ts', `${ticking('failed')}\nthrow new Error('broken');`);
    await folder.waitForEntry(ruleAction('guarded', 'failed'), { since });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const later = folder.logEntries('guarded').filter((e) => e.seq > since).map((e) => e.message);
    expect(later.every((message) => message === 'new')).toBe(true);
    expect(later.length).toBeGreaterThan(0);
  });
});

describe('listener failures are located in the rule\'s .ts file', () => {
  const LISTENER = `  chrome.webRequest.onBeforeRequest.addListener((details: { url: string }) => {
    if (details.url.includes('throws')) throw new Error('listener exploded');
    if (details.url.includes('hangs')) return new Promise(() => {});
    if (details.url.includes('nonsense')) return { cancel: true, redirectUrl: 'https://x.example/' };
    return undefined;
  }, { urls: ['<all_urls>'] }, ['blocking']);`;

  async function outcomeOf(url: string): Promise<ListenerOutcome | undefined> {
    const since = folder!.mark();
    const result = await folder!.run(url);
    expect(result).toMatchObject({ kind: 'response', statusCode: 200 }); // the request went on without the listener
    const entry = folder!.entries.slice(since).find((e) => e.kind === 'webRequest' && e.event === 'onBeforeRequest');
    return entry?.kind === 'webRequest' ? entry.outcomes[0] : undefined;
  }

  it('a throw: failed, with the .ts file and line of the throw', async () => {
    const source = ruleSource('flaky', LISTENER);
    folder = await openRuleFolder({ files: { 'flaky.ts': source } });
    expect(await outcomeOf('http://site.example/throws')).toMatchObject({
      owner: 'flaky',
      status: 'failed',
      reason: 'listener threw: listener exploded',
      location: expect.stringMatching(new RegExp(`${folder.path('flaky.ts')}:${lineOf(source, 'listener exploded')}:\\d+$`)),
    });
  });

  it('a listener that never answers, and one answering an invalid BlockingResponse: failed, the request goes on', async () => {
    folder = await openRuleFolder({ files: { 'flaky.ts': ruleSource('flaky', LISTENER) }, engine: { listenerTimeoutMs: 150 } });
    expect(await outcomeOf('http://site.example/hangs')).toMatchObject({ owner: 'flaky', status: 'failed', reason: expect.stringContaining('did not answer within 150 ms') });
    expect(await outcomeOf('http://site.example/nonsense')).toMatchObject({ owner: 'flaky', status: 'failed', reason: expect.stringContaining('invalid BlockingResponse') });
    expect(folder.host.rule('flaky')?.state).toBe('active');
  });

  it('a throw in a helper the listener calls is located in the helper', async () => {
    const helper = "export function check(url: string): never {\n  throw new TypeError(`cannot check ${url}`);\n}\n";
    folder = await openRuleFolder({
      files: {
        'lib/check.ts': helper,
        'helped.ts': ruleSource('helped', "  chrome.webRequest.onBeforeRequest.addListener((d: { url: string }) => check(d.url), { urls: ['<all_urls>'] }, ['blocking']);", undefined, "import { check } from './lib/check.js';"),
      },
    });
    expect(await outcomeOf('http://site.example/')).toMatchObject({
      status: 'failed',
      location: expect.stringMatching(new RegExp(`${folder.path('lib/check.ts')}:2:\\d+$`)),
    });
  });
});
