// rules/log-cookies.ts with real traffic: a Set-Cookie from the origin changes the cookie store,
// the rule's onChanged listener logs it, and the log line lands in the journal under the rule's
// name, not on wrtui's stdout.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { exampleFiles } from './example-rules.js';
import { startOrigin, startProxy, type Origin, type Proxy } from './real-traffic.js';
import { openRuleFolder, type RuleFolder } from './rule-folder.js';

describe('log-cookies', () => {
  let folder: RuleFolder;
  let origin: Origin;
  let proxy: Proxy;

  beforeAll(async () => {
    folder = await openRuleFolder({ files: await exampleFiles('log-cookies'), host: { watch: false } });
    origin = await startOrigin((request, response) => {
      if (request.url === '/login') response.setHeader('Set-Cookie', 'session=abc123; Path=/');
      if (request.url === '/logout') response.setHeader('Set-Cookie', 'session=; Path=/; Max-Age=0');
      response.end('ok');
    });
    proxy = await startProxy(folder.engine);
  });
  afterAll(async () => {
    await proxy?.close();
    await origin?.close();
    await folder?.close();
  });

  it('counts its cookies.onChanged listener: the Rules view does not say "0 listeners" for it', () => {
    const rule = folder.host.rule('log-cookies')!;
    expect(rule.listeners).toEqual([]); // no webRequest listener
    expect(rule.eventListeners).toEqual([{ event: 'cookies.onChanged', count: 1 }]);
  });

  it('logs a cookie set and its removal to the journal, as log entries of the rule', async () => {
    expect(folder.host.rule('log-cookies')).toMatchObject({ state: 'active', dryRun: true });
    folder.host.setDryRun('log-cookies', false); // nothing to apply; the logging is the same either way
    const stdout = vi.spyOn(process.stdout, 'write');
    const consoleLog = vi.spyOn(console, 'log');
    try {
      const since = folder.mark();
      await proxy.fetch(`${origin.url}/login`);
      const set = await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'log-cookies', { since });
      expect(set).toMatchObject({ kind: 'log', level: 'info', source: 'log-cookies', message: 'set session for 127.0.0.1/ (explicit) in store 0' });

      const next = folder.mark();
      await proxy.fetch(`${origin.url}/logout`);
      const removed = await folder.waitForEntry((e) => e.kind === 'log' && e.source === 'log-cookies', { since: next });
      expect(removed).toMatchObject({ message: expect.stringMatching(/^removed session for 127\.0\.0\.1\/ \((explicit|expired_overwrite)\)/) });
      expect(consoleLog).not.toHaveBeenCalled();
      expect(stdout.mock.calls.flat().join('')).not.toContain('session for');
    } finally {
      stdout.mockRestore();
      consoleLog.mockRestore();
    }
  });
});
