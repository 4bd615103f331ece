// Debian's webext-lightbeam (Lightbeam 3.0.1, an MV2 Firefox add-on whose store is Dexie 2 over
// IndexedDB), unchanged, in wrtui under the firefox persona its manifest implies, while pages go
// through the proxy: a first party (www.site.test) that pulls a pixel from tracker.test and a
// script from cdn.ads.test, all served by one local origin (the proxy's host map sends *.test
// there). Lightbeam must load with no uncaught error and record what it is for: in its own
// database (websites_database, read back from the file wrtui keeps it in) the first party links
// both third parties and each third party its first party. Run twice: with requests sent as
// Firefox sends them (its headers: Referer, Sec-Fetch-*), across a restart of wrtui (its records
// are read back by Lightbeam itself: a third party seen after the restart joins the first party's
// list from before); and with a real Firefox ESR browsing through the proxy.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostMap, parseHostMapping, type HostMapping } from '../../src/engine/capture/host-map.js';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { INDEXED_DB_FILE } from '../../src/engine/extensions/indexed-db-file.js';
import type { IndexedDbSnapshot } from '../../src/engine/extensions/worker/indexed-db-contract.js';
import type { JournalEntry } from '../../src/engine/journal.js';
import { endProcessGroup, FIREFOX, firefoxProfile, NO_FIREFOX } from '../helpers/firefox.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const LIGHTBEAM = '/usr/share/webext/lightbeam';
/** Its manifest's name: the source of its journal entries. */
const LIGHTBEAM_NAME = 'Lightbeam 3.0';
const SKIP = !existsSync(LIGHTBEAM) && !process.env.CI;
if (SKIP) console.warn(`test/e2e/lightbeam.test.ts skipped: ${LIGHTBEAM} is missing (apt-get install webext-lightbeam; .ci/run installs it)`);

const FIREFOX_UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0';
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

let origin: Origin;
let work: string;

beforeAll(async () => {
  if (SKIP) return;
  if (!existsSync(LIGHTBEAM)) throw new Error(`${LIGHTBEAM} is missing and CI is set (.ci/run installs webext-lightbeam)`);
  origin = await startOrigin((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (host === 'www.site.test' && req.url === '/') {
      const at = (name: string) => `http://${name}:${origin.port}`;
      return res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><title>site</title><img src="/logo.gif"><img src="${at('tracker.test')}/pixel.gif"><script src="${at('cdn.ads.test')}/ad.js"></script>`);
    }
    if (req.url?.endsWith('.gif')) return res.writeHead(200, { 'Content-Type': 'image/gif' }).end(GIF);
    if (req.url?.endsWith('.js')) return res.writeHead(200, { 'Content-Type': 'text/javascript' }).end('void 0;');
    res.writeHead(404).end();
  });
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-lightbeam-'));
});

afterAll(async () => {
  await origin?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** wrtui: the proxy (every *.test host is the local origin) and Lightbeam in its extension host, keeping state in `stateDir`. */
async function startWrtui(stateDir: string): Promise<{ harness: ProxyHarness; host: ExtensionHost; close(): Promise<void> }> {
  const harness = await startProxyHarness({ proxy: { hostMap: new HostMap([parseHostMapping('*.test:127.0.0.1') as HostMapping]) } });
  const host = await ExtensionHost.start(harness.engine, { extensions: [LIGHTBEAM], watch: false, typeCheck: false, stateDir });
  expect(host.rules()[0]).toMatchObject({ persona: 'firefox', state: 'active' });
  return {
    harness,
    host,
    async close() {
      await host.close();
      await harness.close();
    },
  };
}

interface Website {
  hostname: string;
  firstParty?: number;
  isVisible?: number;
  firstPartyHostnames?: string[];
  thirdPartyHostnames?: string[];
}

/**
 * Lightbeam's websites as its IndexedDB database holds them in the file wrtui keeps (undefined
 * before there is one). Its state folder is named by its Chrome id (docs/personas.md, firefox persona): the
 * only one in `stateDir`.
 */
async function websites(stateDir: string): Promise<Record<string, Website> | undefined> {
  let snapshot: IndexedDbSnapshot;
  try {
    const [folder, ...others] = await readdir(path.join(stateDir, 'extensions'));
    if (others.length > 0) throw new Error(`more than one extension in ${stateDir}`);
    snapshot = v8.deserialize(await readFile(path.join(stateDir, 'extensions', folder!, INDEXED_DB_FILE))) as IndexedDbSnapshot;
  } catch {
    return undefined;
  }
  const store = snapshot.databases.find((database) => database.name === 'websites_database')?.stores.find((candidate) => candidate.name === 'websites');
  return store && Object.fromEntries(store.records.map(([key, value]) => [key as string, value as Website]));
}

/** Resolves with Lightbeam's websites once `test` holds for them (the file is written after each change; at most 30 s). */
async function recorded(stateDir: string, test: (sites: Record<string, Website>) => boolean): Promise<Record<string, Website>> {
  const deadline = Date.now() + 30_000;
  let last: Record<string, Website> | undefined;
  for (;;) {
    last = await websites(stateDir);
    if (last && test(last)) return last;
    if (Date.now() > deadline) throw new Error(`Lightbeam's store never held what was expected; it held ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What a browser's page and its subresources send: a typed navigation, then requests whose Referer is the page. */
async function browse(harness: ProxyHarness, thirdParties: string[]): Promise<void> {
  const page = `http://www.site.test:${origin.port}/`;
  const common = { 'User-Agent': FIREFOX_UA, 'Accept-Language': 'en-US,en;q=0.5' };
  await (await harness.fetch(page, { headers: { ...common, Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'Sec-Fetch-Dest': 'document', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Site': 'none', 'Sec-Fetch-User': '?1', 'Upgrade-Insecure-Requests': '1' } })).body.text();
  for (const url of [`http://www.site.test:${origin.port}/logo.gif`, ...thirdParties.map((name) => `http://${name}:${origin.port}/pixel.gif`)]) {
    const site = new URL(url).hostname === 'www.site.test' ? 'same-origin' : 'cross-site';
    await (await harness.fetch(url, { headers: { ...common, Accept: 'image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5', Referer: site === 'same-origin' ? page : `http://www.site.test:${origin.port}/`, 'Sec-Fetch-Dest': 'image', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Site': site } })).body.text();
  }
}

/** What went wrong in Lightbeam, as the journal says it (nothing, if it runs as it should): its uncaught errors, warnings, a failed load. */
function failures(entries: readonly JournalEntry[]): JournalEntry[] {
  return entries.filter((entry) => (entry.kind === 'log' && entry.source === LIGHTBEAM_NAME && (entry.level === 'error' || entry.level === 'warn')) || (entry.kind === 'rule' && entry.action === 'failed'));
}

describe.skipIf(SKIP)('Lightbeam (webext-lightbeam, unchanged) in wrtui under the firefox persona', () => {
  it('loads with no uncaught error and records the first party and its third parties in its IndexedDB, which outlives a restart of wrtui', { timeout: 90_000 }, async () => {
    const stateDir = path.join(work, 'state-requests');
    const first = await startWrtui(stateDir);
    await browse(first.harness, ['tracker.test', 'cdn.ads.test']);
    const sites = await recorded(stateDir, (all) => all['www.site.test']?.thirdPartyHostnames?.length === 2);
    expect(sites['www.site.test']).toMatchObject({ hostname: 'www.site.test', firstParty: 1, isVisible: 1, thirdPartyHostnames: ['tracker.test', 'cdn.ads.test'] });
    expect(sites['tracker.test']).toMatchObject({ firstParty: 0, isVisible: 1, firstPartyHostnames: ['www.site.test'] });
    expect(sites['cdn.ads.test']).toMatchObject({ firstParty: 0, isVisible: 1, firstPartyHostnames: ['www.site.test'] });
    // The page's own image is no third party.
    expect(Object.keys(sites).sort()).toEqual(['cdn.ads.test', 'tracker.test', 'www.site.test']);
    expect(failures(first.harness.entries)).toEqual([]);
    await first.close();

    // wrtui again, on the same state: Lightbeam reads the first party back and adds the new third party to it.
    const second = await startWrtui(stateDir);
    await browse(second.harness, ['later.test']);
    const after = await recorded(stateDir, (all) => all['later.test'] !== undefined && (all['www.site.test']?.thirdPartyHostnames?.length ?? 0) >= 3);
    expect(after['www.site.test']!.thirdPartyHostnames).toEqual(['tracker.test', 'cdn.ads.test', 'later.test']);
    expect(failures(second.harness.entries)).toEqual([]);
    await second.close();
  });

  it.skipIf(NO_FIREFOX)('records the same with a real Firefox ESR browsing the page through the proxy', { timeout: 90_000 }, async () => {
    const stateDir = path.join(work, 'state-firefox');
    const wrtui = await startWrtui(stateDir);
    const profile = await firefoxProfile(path.join(work, 'profile'), {
      'network.proxy.type': 1,
      'network.proxy.http': '127.0.0.1',
      'network.proxy.http_port': wrtui.harness.proxy.port,
      'network.proxy.no_proxies_on': '',
    });
    const child = spawn(FIREFOX, ['-headless', '-no-remote', '-profile', profile, `http://www.site.test:${origin.port}/`], { stdio: 'ignore', detached: true });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const sites = await recorded(stateDir, (all) => all['www.site.test']?.thirdPartyHostnames?.length === 2);
      expect(sites['www.site.test']).toMatchObject({ firstParty: 1, isVisible: 1 });
      expect([...sites['www.site.test']!.thirdPartyHostnames!].sort()).toEqual(['cdn.ads.test', 'tracker.test']);
      expect(sites['tracker.test']).toMatchObject({ firstParty: 0, isVisible: 1, firstPartyHostnames: ['www.site.test'] });
      expect(sites['cdn.ads.test']).toMatchObject({ firstParty: 0, isVisible: 1, firstPartyHostnames: ['www.site.test'] });
      expect(failures(wrtui.harness.entries)).toEqual([]);
    } finally {
      await endProcessGroup(child, exited);
      await wrtui.close();
    }
  });
});
