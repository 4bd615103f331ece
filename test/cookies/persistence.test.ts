// Cookie stores survive restarts (ARCHITECTURE.md "Files": persisted cookie stores in the state
// dir through lowdb). Real files in a temporary directory.
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AtomicJsonFile } from '../../src/engine/cookies/atomic-json-file.js';
import { CookieJars } from '../../src/engine/cookies/cookie-jars.js';
import { CookiePersistence, type CookiePersistenceOptions } from '../../src/engine/cookies/persistence.js';
import type { CookieChangeInfo } from '../../src/engine/types.js';
import { ManualClock, T0 } from './helpers.js';

let stateDir: string;

beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'wrtui-cookies-'));
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

async function start(options: Partial<CookiePersistenceOptions> & { clock?: ManualClock } = {}) {
  const problems: string[] = [];
  const persistence = await CookiePersistence.open({ stateDir, onProblem: (message) => problems.push(message), ...options });
  const jars = new CookieJars({ persistence, ...(options.clock ? { clock: options.clock } : {}) });
  return { persistence, jars, problems, file: join(stateDir, 'cookies.json') };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `condition` holds (or fails after `timeoutMs`), so slow disks do not make tests flaky. */
async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
}

describe('cookie persistence', () => {
  it('persistent cookies of store "0" survive a restart; session cookies and store "1" do not (as in a browser)', async () => {
    const first = await start();
    first.jars.setFromResponse('https://www.example.com/', ['keep=1; Max-Age=3600', 'dom=2; Domain=example.com; Path=/; Max-Age=3600; Secure; HttpOnly', 'session=3']);
    first.jars.setFromResponse('https://www.example.com/', ['private=4; Max-Age=3600'], '1');
    await first.jars.close();

    const second = await start();
    expect(second.jars.cookieHeader('https://www.example.com/')).toBe('keep=1; dom=2');
    expect(second.jars.cookieHeader('https://www.example.com/', '1')).toBe('');
    const dom = second.jars.allCookies().find((cookie) => cookie.key === 'dom')!;
    expect(dom).toMatchObject({ domain: 'example.com', hostOnly: false, secure: true, httpOnly: true });
    await second.jars.close();
  });

  it('writes the file with mode 0600 (and creates the state dir 0700)', async () => {
    const nested = join(stateDir, 'nested', '.wrtui');
    const persistence = await CookiePersistence.open({ stateDir: nested });
    const jars = new CookieJars({ persistence });
    jars.setFromResponse('http://example.com/', ['a=1; Max-Age=60']);
    await jars.close();
    expect(statSync(join(nested, 'cookies.json')).mode & 0o777).toBe(0o600);
    expect(statSync(nested).mode & 0o777).toBe(0o700);
  });

  it('loading restores cookies without onChanged events (nothing changed from an extension\'s point of view)', async () => {
    const first = await start();
    first.jars.setFromResponse('http://example.com/', ['a=1; Max-Age=3600']);
    await first.jars.close();
    const persistence = await CookiePersistence.open({ stateDir });
    const seen: CookieChangeInfo[] = [];
    // Listeners can only subscribe after construction, so also check the store stays silent as it loads.
    const jars = new CookieJars({ persistence, onListenerError: () => {} });
    jars.onChanged((info) => seen.push(info));
    expect(jars.cookieHeader('http://example.com/')).toBe('a=1');
    expect(seen).toEqual([]);
    await jars.close();
  });

  it('drops cookies that expired while wrtui was not running', async () => {
    const clock = new ManualClock(T0);
    const first = await start({ clock });
    first.jars.setFromResponse('http://example.com/', ['short=1; Max-Age=60', 'long=1; Max-Age=86400']);
    await first.jars.close();
    const later = new ManualClock(T0 + 120_000);
    const second = await start({ clock: later });
    expect(second.jars.cookieHeader('http://example.com/')).toBe('long=1');
    await second.jars.close();
  });

  it('keeps creation order (and so cookie order) across a restart', async () => {
    const clock = new ManualClock(T0);
    const first = await start({ clock });
    for (const name of ['z', 'y', 'x']) {
      first.jars.setFromResponse('http://example.com/', [`${name}=1; Max-Age=3600`]);
      clock.advance(1);
    }
    await first.jars.close();
    const second = await start({ clock });
    expect(second.jars.cookieHeader('http://example.com/')).toBe('z=1; y=1; x=1');
    await second.jars.close();
  });

  it('coalesces a burst of changes into one write', async () => {
    const { jars, persistence } = await start({ debounceMs: 30 });
    for (let i = 0; i < 200; i++) jars.setFromResponse(`http://site${i % 20}.com/`, [`c${i}=${i}; Max-Age=3600`]);
    await waitFor(() => persistence.writeCount >= 1);
    await sleep(100); // and no second write follows
    expect(persistence.writeCount).toBe(1);
    jars.setFromResponse('http://example.com/', ['another=1; Max-Age=3600']);
    await waitFor(() => persistence.writeCount >= 2);
    await sleep(100);
    expect(persistence.writeCount).toBe(2);
    await jars.close();
    expect(persistence.writeCount).toBe(2); // nothing left to write
    const saved = JSON.parse(readFileSync(persistence.file, 'utf8')) as { cookies: unknown[] };
    expect(saved.cookies).toHaveLength(201);
  });

  it('a steady trickle of changes is still written at least every maxDelayMs', async () => {
    const clock = new ManualClock(T0);
    const { jars, persistence } = await start({ clock, debounceMs: 50, maxDelayMs: 1000 });
    for (let i = 0; i < 50; i++) {
      jars.setFromResponse('http://example.com/', [`tick=${i}; Max-Age=3600`]);
      clock.advance(40); // always inside the debounce window
      await sleep(1);
    }
    await waitFor(() => persistence.writeCount >= 2);
    await sleep(50);
    expect(persistence.writeCount).toBe(2); // at 1000 ms and 2000 ms of clock time, none in between
    await jars.close();
  });

  it('changes to session cookies and to store "1" cause no write', async () => {
    const { jars, persistence } = await start({ debounceMs: 10 });
    jars.setFromResponse('http://example.com/', ['session=1']);
    jars.setFromResponse('http://example.com/', ['persistent=1; Max-Age=60'], '1');
    await sleep(60);
    expect(persistence.writeCount).toBe(0);
    await jars.close();
    expect(existsSync(persistence.file)).toBe(false);
  });

  it('flush() writes now', async () => {
    const { jars, persistence } = await start({ debounceMs: 10_000 });
    jars.setFromResponse('http://example.com/', ['a=1; Max-Age=60']);
    await persistence.flush();
    expect(persistence.writeCount).toBe(1);
    expect(readFileSync(persistence.file, 'utf8')).toContain('"key": "a"');
    await jars.close();
  });

  it('is atomic: a reader polling the file during many writes always finds complete JSON, and no temporary file is left', async () => {
    const { jars, persistence, file } = await start({ debounceMs: 1 });
    jars.setFromResponse('http://example.com/', ['seed=1; Max-Age=3600']);
    await persistence.flush();
    let reads = 0;
    let broken = 0;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        try {
          JSON.parse(await readFile(file, 'utf8'));
          reads++;
        } catch {
          broken++;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let i = 0; i < 60; i++) {
      jars.setFromResponse('http://example.com/', [`v=${'x'.repeat(i * 50)}; Max-Age=3600`]);
      await persistence.flush();
    }
    polling = false;
    await poller;
    expect(broken).toBe(0);
    expect(reads).toBeGreaterThan(10);
    expect(readdirSync(stateDir)).toEqual(['cookies.json']);
    await jars.close();
  });

  it('removes temporary files a crash left behind', async () => {
    writeFileSync(join(stateDir, '.cookies.json.4242.deadbeef.tmp'), '{"half": ');
    const { jars } = await start();
    expect(readdirSync(stateDir)).toEqual([]);
    await jars.close();
  });

  it('a corrupted file is not wiped: it is renamed to <file>.corrupt-<time>, reported with its path, and wrtui starts empty', async () => {
    const file = join(stateDir, 'cookies.json');
    writeFileSync(file, '{"format": "wrtui-cookies", "version": 1, "cookies": [ {"key": "a"');
    const { jars, problems } = await start();
    expect(jars.allCookies()).toEqual([]);
    const aside = readdirSync(stateDir).find((name) => name.startsWith('cookies.json.corrupt-'));
    expect(aside).toBeDefined();
    expect(readFileSync(join(stateDir, aside!), 'utf8')).toContain('{"key": "a"'); // the data is still there
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(file);
    expect(problems[0]).toContain(join(stateDir, aside!));
    expect(problems[0]).toMatch(/not valid JSON/);
    await jars.close();
  });

  it('a file that is JSON but not a cookie file is set aside the same way', async () => {
    writeFileSync(join(stateDir, 'cookies.json'), '[1, 2, 3]');
    const { problems } = await start();
    expect(problems[0]).toMatch(/unreadable \(it does not hold a JSON object\)/);
    expect(readdirSync(stateDir).some((name) => name.startsWith('cookies.json.corrupt-'))).toBe(true);
  });

  it('a failed write rejects flush() with a message naming the file', async () => {
    const blocked = join(stateDir, 'blocked');
    mkdirSync(blocked);
    const persistence = await CookiePersistence.open({ stateDir: blocked, fileName: 'sub/cookies.json' });
    writeFileSync(join(blocked, 'sub'), 'a file where the directory should be');
    const jars = new CookieJars({ persistence });
    jars.setFromResponse('http://example.com/', ['a=1; Max-Age=60']);
    await expect(persistence.flush()).rejects.toThrow(`Cannot write the cookie file ${join(blocked, 'sub/cookies.json')}`);
    await jars.close().catch(() => {});
  });

  it('AtomicJsonFile reads null for a missing file', async () => {
    expect(await new AtomicJsonFile(join(stateDir, 'none.json')).read()).toBeNull();
  });
});
