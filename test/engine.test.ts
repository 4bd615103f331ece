import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../src/engine/engine.js';
import type { JournalEntry } from '../src/engine/journal.js';
import { createOwner, createTrustedOwner } from '../src/engine/owner.js';
import { runRequest } from '../src/engine/web-request/run-request.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('Engine.extensionApi: what the manifest does not declare is missing', () => {
  it('webRequest needs "webRequest", cookies needs "cookies"; runtime is always there', async () => {
    const engine = await Engine.open();
    const bare = engine.extensionApi(createOwner({ name: 'bare', host_permissions: ['<all_urls>'] }));
    expect(bare.chrome.webRequest).toBeUndefined();
    expect(bare.chrome.cookies).toBeUndefined();
    expect(bare.chrome.runtime.lastError).toBeUndefined();
    const full = engine.extensionApi(createTrustedOwner('full'));
    expect(full.chrome.webRequest?.MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES).toBe(20);
    expect(typeof full.browser.cookies?.getAll).toBe('function');
    await engine.close();
  });

  it('dispose() removes every listener of the owner, webRequest and cookies.onChanged alike', async () => {
    const engine = await Engine.open();
    const api = engine.extensionApi(createTrustedOwner('rule'));
    const changes: unknown[] = [];
    api.chrome.webRequest!.onBeforeRequest.addListener(() => {}, { urls: ['<all_urls>'] });
    api.chrome.cookies!.onChanged.addListener((info) => void changes.push(info));
    api.dispose();
    expect(engine.registry.count()).toBe(0);
    await engine.extensionApi(createTrustedOwner('other')).browser.cookies!.set({ url: 'http://example.test/', name: 'a', value: '1' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(changes).toEqual([]);
    await engine.close();
  });
});

describe('the journal gets cookie changes and lastError that nobody checked', () => {
  it('a cookies.set is journaled as cookieChanged with cause explicit', async () => {
    const engine = await Engine.open();
    const entries: JournalEntry[] = [];
    engine.journal.subscribe((entry) => entries.push(entry));
    await engine.extensionApi(createTrustedOwner('rule')).browser.cookies!.set({ url: 'http://example.test/', name: 'a', value: '1' });
    expect(entries).toContainEqual(expect.objectContaining({ kind: 'cookieChanged', changeInfo: expect.objectContaining({ removed: false, cause: 'explicit' }) }));
    await engine.close();
  });

  it('a failed call whose callback never reads chrome.runtime.lastError is reported as unchecked', async () => {
    const engine = await Engine.open();
    const entries: JournalEntry[] = [];
    engine.journal.subscribe((entry) => entries.push(entry));
    const owner = createOwner({ name: 'narrow', permissions: ['cookies'], host_permissions: ['*://allowed.test/*'] });
    await new Promise<void>((resolve) => engine.extensionApi(owner).chrome.cookies!.set({ url: 'http://denied.test/', name: 'a', value: '1' }, () => resolve()));
    expect(entries).toContainEqual(expect.objectContaining({ kind: 'log', source: 'narrow', message: 'Unchecked runtime.lastError: No host permissions for cookies at url: "http://denied.test/".' }));
    await engine.close();
  });
});

describe('cookie stores survive restarts through the state dir', () => {
  it('a persistent cookie set by a response is there after reopening; a session cookie is not', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'wrtui-engine-'));
    dirs.push(stateDir);
    const first = await Engine.open({ stateDir });
    await runRequest(first.lifecycle, { url: 'http://example.test/', method: 'GET', requestHeaders: [] }, {
      async send() {
        return { statusCode: 200, headers: [{ name: 'Set-Cookie', value: 'keep=1; Max-Age=3600' }, { name: 'Set-Cookie', value: 'session=1' }] };
      },
    });
    await first.close();
    const second = await Engine.open({ stateDir });
    expect(second.cookies.cookieHeader('http://example.test/')).toBe('keep=1');
    await second.close();
  });
});

describe('handlerBehaviorChanged flushes the caches registered with the engine', () => {
  it('onFlush hooks run on an accepted call, not on a refused one', async () => {
    const engine = await Engine.open();
    let flushed = 0;
    engine.onFlush(() => void flushed++);
    const owner = createTrustedOwner('rule');
    for (let i = 0; i < 21; i++) engine.handlerBehaviorChanged(owner);
    expect(flushed).toBe(20);
    expect(engine.quotaState('rule')).toMatchObject({ used: 20, limit: 20 });
    await engine.close();
  });
});
