// The Request tab says when an extension made a request itself (its own fetch): its headers are
// wrtui's on the extension's behalf, not a client's. Real proxy, a real extension in its worker.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { lineText } from '../../src/ui/detail/styled-line.js';
import { compileFilter } from '../../src/ui/filter/compile-filter.js';
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
  it('names the extension and its origin, where a client request says nothing of the kind; by:NAME finds it in the list', async () => {
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
    } finally {
      await host.close();
    }
  });
});
