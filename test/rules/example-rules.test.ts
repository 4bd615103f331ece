// The shipped rules/ folder as `wrtui` loads it on its defaults: every example loads, in dry-run,
// without a warning, so traffic only shows what they would do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import type { JournalEntry } from '../../src/engine/journal.js';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { runRequest } from '../../src/engine/web-request/run-request.js';
import { ScriptedOrigin } from '../helpers/web-request-harness.js';
import { EXAMPLES_DIR } from './example-rules.js';

describe('the shipped example rules', () => {
  let engine: Engine;
  let host: ExtensionHost;
  const entries: JournalEntry[] = [];

  beforeAll(async () => {
    engine = await Engine.open();
    engine.journal.subscribe((entry) => entries.push(entry));
    host = await ExtensionHost.start(engine, { rulesDir: EXAMPLES_DIR, watch: false, typeCheck: false });
  });
  afterAll(async () => {
    await host?.close();
    await engine?.close();
  });

  it('all load, all in dry-run, with no failure or warning', () => {
    expect(host.rules().map((rule) => [rule.name, rule.state, rule.dryRun])).toEqual([
      ['basic-auth', 'active', true],
      ['block-trackers', 'active', true],
      ['csp-report-only', 'active', true],
      ['log-cookies', 'active', true],
      ['privacy-headers', 'active', true],
      ['strip-tracking-params', 'active', true],
      ['stub-analytics', 'active', true],
    ]);
    expect(entries.filter((e) => e.kind === 'rule' && e.action !== 'loaded')).toEqual([]);
  });

  it('together they change nothing about a request, and journal what they would do', async () => {
    const origin = new ScriptedOrigin();
    const result = await runRequest(
      engine.lifecycle,
      { url: 'https://www.google-analytics.com/analytics.js?utm_source=x', method: 'GET', requestHeaders: [{ name: 'X-Client-Data', value: 'abc' }], type: 'script' },
      origin,
    );
    expect(result).toMatchObject({ kind: 'response', statusCode: 200 });
    expect(origin.received[0]?.url).toBe('https://www.google-analytics.com/analytics.js?utm_source=x');
    const statuses = entries.flatMap((e) => (e.kind === 'webRequest' ? e.outcomes.map((o) => `${o.owner}:${o.status}`) : []));
    expect(new Set(statuses)).toEqual(new Set(['block-trackers:dry-run', 'stub-analytics:dry-run', 'strip-tracking-params:dry-run', 'privacy-headers:dry-run']));
  });
});
