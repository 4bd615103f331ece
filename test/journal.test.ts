// The journal: one ordered stream; a consumer that subscribes late still gets every entry from seq 1.
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CaptureProxy } from '../src/engine/capture/capture-proxy.js';
import { loadOrCreateCertificateAuthority } from '../src/engine/capture/certificate-authority.js';
import { Engine } from '../src/engine/engine.js';
import { createTrustedOwner } from '../src/engine/owner.js';
import { Journal, type JournalEntry, type LogEntry } from '../src/engine/journal.js';
import { startOrigin, type Origin } from './helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from './helpers/proxy-harness.js';

const log = (message: string) => ({ kind: 'log' as const, level: 'info' as const, source: 'test', message });

describe('every consumer sees every entry from seq 1, in order, whenever it subscribed', () => {
  it('fromStart: what was appended before comes first, then what is appended after', () => {
    const journal = new Journal();
    journal.append(log('one'));
    journal.append(log('two'));
    const seen: JournalEntry[] = [];
    journal.subscribe((entry) => seen.push(entry), { fromStart: true });
    journal.append(log('three'));
    expect(seen.map((entry) => [entry.seq, (entry as { message: string }).message])).toEqual([[1, 'one'], [2, 'two'], [3, 'three']]);
  });

  it('without fromStart: only what comes after', () => {
    const journal = new Journal();
    journal.append(log('before'));
    const seen: number[] = [];
    journal.subscribe((entry) => seen.push(entry.seq));
    journal.append(log('after'));
    expect(seen).toEqual([2]);
  });

  it('memory is bounded: past `keep` entries a late subscriber starts later (its first seq says where); body entries are never kept', () => {
    const journal = new Journal({ keep: 3 });
    journal.append({ kind: 'body', requestId: '1', direction: 'response', url: 'http://x/', bytes: new Uint8Array(10), complete: true });
    for (const word of ['a', 'b', 'c', 'd']) journal.append(log(word));
    const seen: number[] = [];
    journal.subscribe((entry) => seen.push(entry.seq), { fromStart: true });
    expect(seen).toEqual([3, 4, 5]);
  });
});

describe('a journal subscriber that throws never stops the journal, the other subscribers or the proxy', () => {
  const failures = (entries: readonly JournalEntry[]) => entries.filter((entry): entry is LogEntry & JournalEntry => entry.kind === 'log' && entry.source === 'journal');

  it('the others get every entry in order; the failure is journaled once, after the entry it failed on', () => {
    const journal = new Journal();
    journal.subscribe(() => {
      throw new TypeError('event.outcomes is not iterable');
    });
    const seen: JournalEntry[] = [];
    journal.subscribe((entry) => seen.push(entry));
    journal.append(log('one'));
    journal.append(log('two'));
    expect(seen.map((entry) => entry.seq)).toEqual([1, 2, 3]);
    expect(seen.map((entry) => (entry as LogEntry).message)).toEqual(['one', expect.stringContaining('a journal subscriber failed on a log entry (seq 1) and was skipped for it: event.outcomes is not iterable'), 'two']);
    expect(failures(seen)).toHaveLength(1);
  });

  it('one failing on every entry with new messages is told a few times, then no more (no flood, no loop)', () => {
    const journal = new Journal();
    let calls = 0;
    journal.subscribe(() => {
      throw new Error(`failure ${++calls}`);
    });
    const seen: JournalEntry[] = [];
    journal.subscribe((entry) => seen.push(entry));
    for (let i = 0; i < 10; i++) journal.append(log(`entry ${i}`));
    expect(failures(seen).map((entry) => entry.message.replace(/ \(at .*\)/, ''))).toEqual([
      'a journal subscriber failed on a log entry (seq 1) and was skipped for it: failure 1',
      'a journal subscriber failed on a log entry (seq 2) and was skipped for it: failure 2',
      'a journal subscriber failed on a log entry (seq 3) and was skipped for it: failure 3; its further failures are not logged',
    ]);
    expect(seen.filter((entry) => entry.kind === 'log' && entry.source === 'test')).toHaveLength(10);
  });

  let harness: ProxyHarness | undefined;
  let origin: Origin | undefined;
  afterEach(async () => {
    await harness?.close();
    await origin?.close();
    harness = origin = undefined;
  });

  it('through the proxy: with a subscriber that throws on every entry, requests are served and end as usual', async () => {
    origin = await startOrigin();
    harness = await startProxyHarness();
    harness.engine.journal.subscribe(() => {
      throw new Error('a broken screen');
    });
    for (const path of ['/a', '/b', '/c']) {
      const { stdout } = await harness.curl(['-s', `${origin.url}${path}`]);
      expect(stdout).toBe('origin says hi');
    }
    expect(harness.webRequestEntries((entry) => entry.event === 'onCompleted')).toHaveLength(3);
    expect(failures(harness.entries)).toHaveLength(1);
  });
});

describe('subscribers declare the webRequest events they read: an event nobody hears is not journaled', () => {
  it('reads(): nobody subscribed yet (kept for the first), a subscriber of every event, or one that named it', () => {
    const journal = new Journal();
    expect(journal.reads('onResponseStarted')).toBe(true);
    const stop = journal.subscribe(() => undefined, { webRequestEvents: ['onBeforeRequest', 'onCompleted'] });
    expect(journal.reads('onCompleted')).toBe(true);
    expect(journal.reads('onResponseStarted')).toBe(false);
    const stopAll = journal.subscribe(() => undefined);
    expect(journal.reads('onResponseStarted')).toBe(true);
    stopAll();
    stopAll();
    expect(journal.reads('onResponseStarted')).toBe(false);
    stop();
    expect(journal.reads('onResponseStarted')).toBe(true);
  });

  it("through the proxy: a subscriber reading a request's start and end gets those; the events between are journaled only when a listener gets them", async () => {
    const origin = await startOrigin();
    const stateDir = await mkdtemp(join(tmpdir(), 'wrtui-journal-reads-'));
    const engine = await Engine.open({});
    const proxy = new CaptureProxy({ lifecycle: engine.lifecycle, ca: await loadOrCreateCertificateAuthority(stateDir), port: 0 });
    await proxy.start();
    const events: string[] = [];
    engine.journal.subscribe((entry) => void (entry.kind === 'webRequest' && events.push(entry.event)), { webRequestEvents: ['onBeforeRequest', 'onCompleted', 'onErrorOccurred'] });
    const get = (path: string) =>
      new Promise<void>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port: proxy.port, path: `${origin.url}${path}` }, (response) => response.resume().on('end', resolve)).on('error', reject);
      });
    const ended = (count: number) => vi.waitFor(() => expect(events.filter((event) => event === 'onCompleted')).toHaveLength(count));
    try {
      await get('/unheard');
      await ended(1);
      expect(events).toEqual(['onBeforeRequest', 'onCompleted']);
      events.length = 0;
      engine.extensionApi(createTrustedOwner('hears')).chrome.webRequest!.onResponseStarted.addListener(() => undefined, { urls: ['<all_urls>'] });
      await get('/heard');
      await ended(1);
      expect(events).toEqual(['onBeforeRequest', 'onResponseStarted', 'onCompleted']);
    } finally {
      await proxy.stop();
      await engine.close();
      await origin.close();
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});
