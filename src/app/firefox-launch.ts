// `wrtui browser --firefox [url]`: a Firefox of its own for the session (Debian's firefox-esr). A
// fresh profile (removed at the end) with web-ext's preferences (no system add-ons, no updates) and
// none of Firefox's own background services, sending everything, loopback included, through
// wrtui's proxy. Its remote agent listens for WebDriver BiDi on 127.0.0.1 only, on a port Firefox
// picks (--remote-debugging-port 0, the port read from its stderr); wrtui attaches to it and asks
// what each request is (firefox-attach.ts, docs/browser-attach.md).
//
// Trust: Firefox keeps its trusted roots in the profile's NSS database, which only NSS's certutil
// can write. wrtui asks the BiDi session to accept the certificates it is shown instead
// (acceptInsecureCerts): every connection of this profile goes through wrtui's proxy, which
// checks the servers' certificates itself, so the only certificates the browser sees are wrtui's.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BidiSocket } from './bidi-socket.js';
import { BrowserNotFoundError, onPath, runnable, withTimeout, type LaunchedBrowser } from './browser-launch.js';
import type { ChromiumAttachOptions } from './chromium-attach.js';
import { FirefoxAttachment } from './firefox-attach.js';

/** Where Debian and others put Firefox; the first that runs is used. */
const CANDIDATES = ['/usr/bin/firefox-esr', 'firefox-esr', 'firefox'];

export interface FirefoxOptions {
  /** The proxy for cookie store "0", e.g. http://127.0.0.1:8080. */
  proxyUrl: string;
  url?: string;
  /** The Firefox to run; else FIREFOX_PATH, else the first of CANDIDATES found. */
  executable?: string;
  headless?: boolean;
  onExit?: (description: string) => void;
  /** Attach over WebDriver BiDi (what `wrtui browser --firefox` does); without it (a benchmark's baseline) Firefox just browses. */
  attach?: ChromiumAttachOptions;
  /**
   * Without `attach`: still start the remote agent, unattached (the benchmark's baseline: the agent
   * sets preferences of its own that quiet Firefox's background traffic, whose requests would count).
   */
  remoteAgent?: boolean;
}

/** The Firefox to run, or an error saying what was looked for. */
export function findFirefox(executable = process.env.FIREFOX_PATH): string {
  const candidates = executable ? [executable] : CANDIDATES;
  for (const candidate of candidates) {
    const found = candidate.includes('/') ? (runnable(candidate) ? candidate : undefined) : onPath(candidate);
    if (found) return found;
  }
  throw new BrowserNotFoundError(
    executable
      ? `${executable} is not an executable file (from ${process.env.FIREFOX_PATH === executable ? 'FIREFOX_PATH' : '--firefox-path'})`
      : `no Firefox found (looked for ${CANDIDATES.join(', ')}); install one (apt-get install firefox-esr) or name it with FIREFOX_PATH`,
  );
}

/**
 * The profile's preferences: web-ext's (so that a page behaves as in the Firefox an add-on is
 * tried in: no add-ons from the system, whose Privacy Badger would add DNT and Sec-GPC to every
 * request), Firefox's background services off, and the proxy for everything.
 */
export function firefoxPreferences(proxyUrl: string): Record<string, unknown> {
  const proxy = new URL(proxyUrl);
  const port = Number(proxy.port);
  return {
    // web-ext's (node_modules/web-ext/lib/firefox/preferences.js), those that change what a page does.
    'extensions.enabledScopes': 5,
    'extensions.autoDisableScopes': 10,
    'extensions.installDistroAddons': false,
    'extensions.update.enabled': false,
    'extensions.getAddons.cache.enabled': false,
    'browser.link.open_newwindow': 3,
    'browser.startup.homepage': 'about:blank',
    'startup.homepage_welcome_url': 'about:blank',
    'startup.homepage_welcome_url.additional': '',
    'datareporting.policy.firstRunURL': '',
    'browser.reader.detectedFirstArticle': true,
    // Nothing of Firefox's own on the wire (FACTS.md).
    'app.update.enabled': false,
    'app.normandy.enabled': false,
    'browser.safebrowsing.malware.enabled': false,
    'browser.safebrowsing.phishing.enabled': false,
    'network.captive-portal-service.enabled': false,
    'network.connectivity-service.enabled': false,
    'toolkit.telemetry.enabled': false,
    'datareporting.policy.dataSubmissionEnabled': false,
    'network.prefetch-next': false,
    'network.dns.disablePrefetch': true,
    'browser.startup.homepage_override.mstone': 'ignore',
    'services.settings.server': 'http://127.0.0.1:1/',
    'browser.shell.checkDefaultBrowser': false,
    // Everything through wrtui, 127.0.0.1 and localhost too.
    'network.proxy.type': 1,
    'network.proxy.http': proxy.hostname,
    'network.proxy.http_port': port,
    'network.proxy.ssl': proxy.hostname,
    'network.proxy.ssl_port': port,
    'network.proxy.share_proxy_settings': true,
    'network.proxy.allow_hijacking_localhost': true,
    'network.proxy.no_proxies_on': '',
    // HTTP/3 would go around an HTTP proxy's CONNECT.
    'network.http.http3.enable': false,
  };
}

export async function launchFirefox(options: FirefoxOptions): Promise<LaunchedBrowser> {
  const executable = findFirefox(options.executable);
  const profile = await mkdtemp(join(tmpdir(), 'wrtui-firefox-'));
  const prefs = firefoxPreferences(options.proxyUrl);
  await writeFile(join(profile, 'user.js'), Object.entries(prefs).map(([key, value]) => `user_pref(${JSON.stringify(key)}, ${JSON.stringify(value)});`).join('\n'), { mode: 0o600 });
  // The remote agent on loopback only, on a port Firefox picks; about:blank until attached.
  const remote = options.attach || options.remoteAgent ? ['--remote-debugging-port=0', '--remote-allow-hosts', '127.0.0.1'] : [];
  const args = ['--no-remote', '--profile', profile, ...remote, ...(options.headless ? ['--headless'] : []), options.attach ? 'about:blank' : (options.url ?? 'about:blank')];
  let closing = false;
  // Its own process group: Firefox's content processes go with it.
  const child: ChildProcess = spawn(executable, args, { stdio: ['ignore', 'ignore', options.attach ? 'pipe' : 'ignore'], detached: true });
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
  const endGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  let bidi: BidiSocket | undefined;
  let attachment: FirefoxAttachment | undefined;
  if (options.attach) {
  try {
      const endpoint = await withTimeout(remoteAgentUrl(child), 30_000, 'Firefox did not open its WebDriver BiDi port within 30 s');
      bidi = await BidiSocket.connect(`${endpoint}/session`);
      await bidi.send('session.new', { capabilities: { alwaysMatch: { acceptInsecureCerts: true } } });
      attachment = new FirefoxAttachment(bidi, options.attach);
      await withTimeout(attachment.start(), 30_000, 'Firefox did not answer over WebDriver BiDi within 30 s');
      const first = attachment.tabs()[0];
      if (options.url && first) await attachment.navigate(first.id, options.url);
    } catch (error) {
      closing = true;
      bidi?.close();
      endGroup('SIGKILL');
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
      bidi?.close();
      if (child.exitCode === null && child.signalCode === null) {
        endGroup('SIGTERM');
        const killer = setTimeout(() => endGroup('SIGKILL'), 3000);
        await exited;
        clearTimeout(killer);
      }
      // Content processes may outlive the parent for a moment.
      endGroup('SIGKILL');
      await rm(profile, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/** The BiDi address Firefox prints on stderr ("WebDriver BiDi listening on ws://127.0.0.1:PORT"); refuses any other host. */
function remoteAgentUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString('utf8')).slice(-4096);
      const match = /WebDriver BiDi listening on (ws:\/\/[^\s/]+)/.exec(seen);
      if (!match) return;
      child.stderr!.off('data', onData);
      child.stderr!.resume(); // drained from now on: Firefox must never block on a full pipe
      const url = match[1]!;
      const host = new URL(url).hostname;
      if (host !== '127.0.0.1' && host !== '[::1]') reject(new Error(`Firefox's remote agent listens on ${host}, not loopback: refusing to attach`));
      else resolve(url);
    };
    child.stderr!.on('data', onData);
    child.once('exit', () => reject(new Error(`Firefox ended before it opened its WebDriver BiDi port${seen.trim() ? `: ${seen.trim().split('\n').at(-1)}` : ''}`)));
  });
}

