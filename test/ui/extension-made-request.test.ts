// The Request tab says when an extension made a request itself (its own fetch): its headers are
// wrtui's on the extension's behalf, not a client's. Real proxy, a real extension in its worker.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { lineText } from '../../src/ui/detail/styled-line.js';
import { compileFilter } from '../../src/ui/filter/compile-filter.js';
import { byFilter, ruleDetailLines } from '../../src/ui/rules/rule-lines.js';
import { requestLines } from '../../src/ui/detail/request-lines.js';
import { finished, requestIdOf } from '../helpers/proxy-harness.js';
import { startStoreRig, type StoreRig } from '../helpers/store-rig.js';

let rig: StoreRig;
let folder: string;
beforeAll(async () => {
  rig = await startStoreRig((_req, res) => res.end('origin'));
  folder = await mkdtemp(path.join(tmpdir(), 'wrtui-made-by-'));
});
afterAll(async () => {
  await rig.close();
  await rm(folder, { recursive: true, force: true });
});

describe('the Request tab of a request an extension made itself', () => {
  it('names the extension and its origin, where a client request says nothing of the kind; by:NAME finds it in the list; the rules view counts it', async () => {
    const url = `${rig.origin.url}/beacon`;
    await writeFile(path.join(folder, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'Beacon Maker', version: '1', host_permissions: ['<all_urls>'], background: { service_worker: 'sw.js' } }));
    await writeFile(path.join(folder, 'sw.js'), `fetch(${JSON.stringify(url)});`);
    const host = await ExtensionHost.start(rig.h.engine, { extensions: [folder], watch: false, typeCheck: false, stateDir: rig.h.stateDir });
    try {
      await rig.h.waitFor((entry) => entry.kind === 'webRequest' && entry.details.url === url);
      await finished(rig.h, requestIdOf(rig.h, url));
      rig.store.flush();
      const record = rig.store.all().find((candidate) => candidate.firstUrl === url)!;
      const text = requestLines(record).map(lineText);
      expect(text[2]).toMatch(/^made by Beacon Maker itself \(its own fetch, from chrome-extension:\/\/[a-p]{32}\): wrtui sent it as its browser would$/);
      expect(text.find((row) => row.includes('Sec-Fetch-Site'))).toMatch(/^extension\s+Sec-Fetch-Site: none$/);

      const clientRecord = await rig.record('/page');
      const client = requestLines(clientRecord).map(lineText);
      expect(client.some((row) => row.startsWith('made by'))).toBe(false);
      // The list's filter finds it by its extension's name.
      const compiled = compileFilter('by:beacon');
      if (!compiled.ok || !compiled.predicate) throw new Error('the filter should compile');
      expect([record, clientRecord].map(compiled.predicate)).toEqual([true, false]);

      // The rules view counts them, and names the filter that lists them: its name, literally.
      const status = host.rules()[0]!;
      expect(status.ownRequests).toEqual({ made: 1, failed: 0 });
      const network = ruleDetailLines(status, undefined, Date.now()).map(lineText).find((row) => row.startsWith('Network'));
      expect(network).toBe('Network 1 request of its own  by:"^Beacon Maker$" lists them in the requests view');
      const exact = compileFilter(byFilter('Beacon Maker'));
      if (!exact.ok || !exact.predicate) throw new Error('the rules view\'s filter should compile');
      expect([record, { ...record, madeBy: { extension: 'Beacon Maker Plus', origin: '' } }, clientRecord].map(exact.predicate)).toEqual([true, false, false]);
      expect(byFilter('uBlock (dev)')).toBe('by:"^uBlock \\\\(dev\\\\)$"');
      const dev = compileFilter(byFilter('uBlock (dev)'));
      if (!dev.ok || !dev.predicate) throw new Error('a name with pattern characters should compile');
      expect(dev.predicate({ ...record, madeBy: { ...record.madeBy!, extension: 'uBlock (dev)' } })).toBe(true);
    } finally {
      await host.close();
    }
  });
});
