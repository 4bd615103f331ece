// `wrtui browser [url]`: a Chromium of its own for the session. A fresh profile (removed at the
// end) that sends everything, loopback included, through wrtui's proxy and trusts wrtui's CA by
// its SPKI pin only (--ignore-certificate-errors-spki-list: no system trust store is touched), and
// none of Chromium's own background traffic, so the request list shows the page and nothing else.
// With `attach` (what `wrtui browser` does) wrtui also asks the browser what each request is, over
// the DevTools protocol on a pipe (chromium-attach.ts, docs/browser-attach.md).
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { CdpPipe } from './cdp-pipe.js';
import { ATTACH_EVENTS, ChromiumAttachment, type BrowserAttachment, type ChromiumAttachOptions } from './chromium-attach.js';

/** Where Debian, Ubuntu and others put Chromium or Chrome; the first that runs is used. */
const CANDIDATES = ['/usr/lib/chromium/chromium', 'chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

export interface BrowserOptions {
  /** The proxy for cookie store "0", e.g. http://127.0.0.1:8080. */
  proxyUrl: string;
  /** Base64 SHA-256 of the CA's SubjectPublicKeyInfo. */
  spkiFingerprint: string;
  /** The page to open (about:blank when none). */
  url?: string;
  /** The browser to run; else CHROME_PATH, else the first of CANDIDATES found. */
  executable?: string;
  /** Without a window (a machine with no display, CI). */
  headless?: boolean;
  /** The browser ended on its own (the user closed it, or it crashed). */
  onExit?: (description: string) => void;
  /**
   * Attach to the browser over the DevTools protocol (a pipe, never a port) and report what it
   * says of its requests and tabs (chromium-attach.ts). The first page opens once attached.
   */
  attach?: ChromiumAttachOptions;
}

export interface LaunchedBrowser {
  readonly executable: string;
  readonly args: readonly string[];
  /** The attachment (Chromium's DevTools, Firefox's WebDriver BiDi), when asked for. */
  readonly attachment: BrowserAttachment | undefined;
  /** Ends the browser (SIGTERM, then SIGKILL after 3 s) and removes its profile. */
  close(): Promise<void>;
}

export class BrowserNotFoundError extends Error {}

/** The browser to run, or an error saying what was looked for. */
export function findBrowser(executable = process.env.CHROME_PATH): string {
  const candidates = executable ? [executable] : CANDIDATES;
  for (const candidate of candidates) {
    const found = candidate.includes('/') ? (runnable(candidate) ? candidate : undefined) : onPath(candidate);
    if (found) return found;
  }
  throw new BrowserNotFoundError(
    executable
      ? `${executable} is not an executable file (from ${process.env.CHROME_PATH === executable ? 'CHROME_PATH' : '--chromium'})`
      : `no Chromium or Chrome found (looked for ${CANDIDATES.join(', ')}); install one (apt-get install chromium) or name it with --chromium <path>`,
  );
}

/** Chromium's arguments for a profile at `profile` browsing through the proxy. */
export function browserArgs(options: BrowserOptions, profile: string): string[] {
  return [
    `--user-data-dir=${profile}`,
    `--proxy-server=${options.proxyUrl}`,
    // Chromium bypasses proxies for localhost by default; "<-loopback>" removes that rule.
    '--proxy-bypass-list=<-loopback>',
    `--ignore-certificate-errors-spki-list=${options.spkiFingerprint}`,
    '--no-first-run',
    '--no-default-browser-check',
    // Chromium's own traffic (updates, time, sign-in, safe browsing, metrics) would crowd the list.
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-default-apps',
    '--disable-client-side-phishing-detection',
    '--disable-domain-reliability',
    '--disable-breakpad',
    '--metrics-recording-only',
    '--no-pings',
    '--no-service-autorun',
    '--disable-field-trial-config',
    '--disable-component-extensions-with-background-pages',
    '--disable-search-engine-choice-screen',
    '--disable-features=NetworkTimeServiceQuerying,OptimizationHints,PreconnectToSearch,AimEnabled,MediaRouter,Translate,AutofillServerCommunication,CertificateTransparencyComponentUpdater',
    '--enable-features=SkipListAccountsWithoutGaiaCookies',
    // Chromium refuses to start as root with its sandbox on (containers, CI).
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    ...(options.headless ? ['--headless=new', '--disable-gpu'] : []),
    // Attached: the first page opens once every target is watched (its first request is told).
    ...(options.attach ? ['--remote-debugging-pipe', 'about:blank'] : [options.url ?? 'about:blank']),
  ];
}

export async function launchBrowser(options: BrowserOptions): Promise<LaunchedBrowser> {
  const executable = findBrowser(options.executable);
  const profile = await mkdtemp(join(tmpdir(), 'wrtui-browser-'));
  const args = browserArgs(options, profile);
  let closing = false;
  // fd 3: commands to the browser; fd 4: its answers and events (--remote-debugging-pipe).
  const child: ChildProcess = spawn(executable, args, { stdio: options.attach ? ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] : 'ignore', detached: false });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      if (!closing) options.onExit?.(signal ? `the browser ended (${signal})` : `the browser closed (exit code ${code})`);
      resolve();
    });
    child.once('error', (error) => {
      if (!closing) options.onExit?.(`the browser could not run: ${error.message}`);
      resolve();
    });
  });
  let attachment: ChromiumAttachment | undefined;
  if (options.attach) {
    const cdp = new CdpPipe(child.stdio[3] as Writable, child.stdio[4] as Readable, ATTACH_EVENTS);
    attachment = new ChromiumAttachment(cdp, options.attach);
    try {
      await withTimeout(attachment.start(), 30_000, 'the browser did not answer over its DevTools pipe within 30 s');
      const first = attachment.tabs()[0];
      if (options.url && first) await attachment.navigate(first.id, options.url);
    } catch (error) {
      closing = true;
      child.kill('SIGKILL');
      await exited;
      await rm(profile, { recursive: true, force: true, maxRetries: 3 });
      throw error;
    }
  }
  return {
    executable,
    args,
    attachment,
    async close() {
      closing = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(killer);
      }
      // Chromium's helpers (its zygote, renderers, crash handler) outlive the main process for a
      // moment and write into the profile: one still writing recreated it after it was removed.
      await endProcessesNaming(profile);
      await rm(profile, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/** `promise`, or a rejection with `message` after `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]).finally(() => clearTimeout(timer));
}

/** Ends the processes whose command line names `path` (Linux's /proc): asks, waits up to 2 s, then kills. */
async function endProcessesNaming(path: string): Promise<void> {
  for (let waited = 0; waited < 2_000; waited += 100) {
    const left = await processesNaming(path);
    if (left.length === 0) return;
    if (waited === 0) for (const pid of left) signal(pid, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const pid of await processesNaming(path)) signal(pid, 'SIGKILL');
}

async function processesNaming(path: string): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return []; // not Linux: nothing to find this way
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(path)) found.push(Number(entry));
  }
  return found;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** Whether `file` is there and executable. */
export function runnable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` on PATH. */
export function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && runnable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}
