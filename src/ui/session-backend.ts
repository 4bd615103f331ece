// The TuiBackend of a live capture session: the engine's journal and commands, the ExtensionHost's
// controls, and cookie edits made through a cookies API of wrtui's own (an owner named "wrtui"
// with the cookies permission on <all_urls>), so that onChanged fires exactly as it does when an
// extension edits a cookie, and rules listening to onChanged hear of it.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CaptureSession } from '../app/capture-session.js';
import { resendThroughProxy } from '../app/resend.js';
import { Breakpoints } from '../engine/breakpoints.js';
import type { Engine } from '../engine/engine.js';
import { toSpecCookie, type SameSiteStatus } from '../engine/cookies/index.js';
import { createOwner } from '../engine/owner.js';
import { ensurePrivateDir, writePrivateFileUnderFreeName } from '../engine/private-file.js';
import type { ExtensionHost } from '../engine/extensions/extension-host.js';
import type { Cookie } from '../engine/types.js';
import type { QuickRuleset } from '../engine/rules/quick-ruleset.js';
import type { CertificateAuthorityInfo, CookiesControl, QuickRulesControl, RulesControl, SessionMode, TuiBackend } from './backend.js';

export interface SessionBackendOptions {
  session: CaptureSession;
  stateDir: string;
  mode?: SessionMode;
  /** Where OSC 52 goes: the terminal. */
  writeToTerminal: (data: string) => void;
  /** $EDITOR with the terminal handed over (run-tui.tsx). */
  editText?: TuiBackend['editText'];
}

export function createSessionBackend(options: SessionBackendOptions): TuiBackend {
  const { session } = options;
  return createEngineBackend({
    engine: session.engine,
    rules: rulesControl(session.rules, session.quickRules),
    proxyUrl: session.proxy.url,
    everyInterface: session.proxy.everyInterface,
    incognitoProxyUrl: session.incognitoProxy?.url,
    ...(session.proxy.upstreamProxy !== undefined && { upstreamProxy: session.proxy.upstreamProxy }),
    ca: { certPath: session.ca.certPath, created: session.ca.created, warnings: session.ca.warnings },
    stateDir: options.stateDir,
    mode: options.mode ?? 'live',
    writeToTerminal: options.writeToTerminal,
    resend: (request) => resendThroughProxy(request, session.proxy.url, session.ca.certPath),
    ...(options.editText && { editText: options.editText }),
  });
}

export interface EngineBackendOptions {
  engine: Engine;
  rules: RulesControl | undefined;
  proxyUrl: string;
  /** Listening on every interface (--host 0.0.0.0): the status bar warns. */
  everyInterface?: boolean;
  incognitoProxyUrl: string | undefined;
  /** --upstream-proxy, credentials hidden. */
  upstreamProxy?: string;
  ca: CertificateAuthorityInfo | undefined;
  stateDir: string;
  mode: SessionMode;
  writeToTerminal: (data: string) => void;
  resend?: TuiBackend['resend'];
  editText?: TuiBackend['editText'];
}

/** A backend over any engine (a capture session's, a replay's, a test's). */
export function createEngineBackend(options: EngineBackendOptions): TuiBackend {
  const { engine } = options;
  const stateDir = resolve(options.stateDir);
  return {
    mode: options.mode,
    proxyUrl: options.proxyUrl,
    everyInterface: options.everyInterface ?? false,
    incognitoProxyUrl: options.incognitoProxyUrl,
    ...(options.upstreamProxy !== undefined && { upstreamProxy: options.upstreamProxy }),
    ca: options.ca,
    stateDir,
    journal: engine.journal,
    explainDnr: (request) => (engine.dnr.active ? engine.dnr.nearMisses(request) : { rules: [], urlMisses: 0 }),
    dnrRuleMatches: (rule, request) => engine.dnr.active && engine.dnr.ruleMatches(rule, request),
    reportProblem: (message) => engine.journal.append({ kind: 'log', level: 'error', source: 'tui', message }),
    getDryRun: () => engine.dryRun,
    setDryRun: (on) => {
      engine.dryRun = on;
      engine.journal.append({ kind: 'log', level: 'info', source: 'wrtui', message: `global dry-run ${on ? 'on: verdicts are computed, none applied' : 'off'}` });
    },
    rules: options.rules,
    cookies: cookiesControl(engine),
    breakpoints: new Breakpoints(engine),
    saveExport: (fileName, text) => saveExport(stateDir, fileName, text),
    writeToTerminal: options.writeToTerminal,
    ...(options.resend && { resend: options.resend }),
    ...(options.editText && { editText: options.editText }),
  };
}

/**
 * Writes `<stateDir>/exports/<fileName>` (or `<name>-2.<ext>` …: never over a file), 0600 in a
 * 0700 folder: exports hold request headers (cookies, tokens). Resolves with its path.
 */
export async function saveExport(stateDir: string, fileName: string, text: string): Promise<string> {
  const dir = join(stateDir, 'exports');
  await ensurePrivateDir(dir);
  return writePrivateFileUnderFreeName(dir, fileName, text);
}

function rulesControl(host: ExtensionHost, quick: QuickRuleset | undefined): RulesControl {
  return {
    ...(quick && { quick: quickRulesControl(quick) }),
    ...(host.dir !== undefined && { dir: host.dir }),
    list: () => host.rules(),
    onChange: (listener) => host.onChange(listener),
    reload: (name) => host.reload(name),
    setDryRun: (name, on) => host.setDryRun(name, on),
    ...(host.dir !== undefined && { writeRule: (name: string, source: string) => writeNewRule(host.dir!, name, source) }),
  };
}

export function quickRulesControl(quick: QuickRuleset): QuickRulesControl {
  return {
    dir: quick.dir,
    status: () => quick.status(),
    onChange: (listener) => quick.onChange(listener),
    add: (rule) => quick.add(rule),
    remove: (id) => quick.remove(id),
    reload: () => quick.reload(),
    setDryRun: (on) => quick.setDryRun(on),
  };
}

/**
 * Writes `<name>.ts` (or `<name>-2.ts` …: never over an existing file) in the rules folder, 0600
 * like every file wrtui writes (a quick rule quotes a URL, which may carry a token); resolves with
 * its path.
 */
export async function writeNewRule(dir: string, name: string, source: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  return writePrivateFileUnderFreeName(dir, `${name}.ts`, source);
}

function cookiesControl(engine: Engine): CookiesControl {
  const owner = createOwner({ name: 'wrtui', permissions: ['cookies'], host_permissions: ['<all_urls>'] });
  const cookies = engine.extensionApi(owner).browser.cookies!;
  return {
    storeIds: engine.cookies.storeIds,
    list(storeId) {
      // Synchronous, for rendering: the same cookies getAll({storeId}) gives, without touching
      // their last-access time (looking at a cookie must not change which one is evicted).
      return engine.cookies.allCookies(storeId).map((cookie) => toSpecCookie(cookie, storeId));
    },
    async remove(cookie) {
      await cookies.remove({ url: cookieUrl(cookie), name: cookie.name, storeId: cookie.storeId });
    },
    async setValue(cookie, value) {
      const stored = engine.cookies
        .allCookies(cookie.storeId)
        .find((candidate) => candidate.key === cookie.name && candidate.path === cookie.path && sameDomain(candidate.domain, cookie.domain));
      return cookies.set({
        url: cookieUrl(cookie),
        name: cookie.name,
        value,
        path: cookie.path,
        secure: cookie.secure,
        httpOnly: cookie.httpOnly,
        storeId: cookie.storeId,
        ...(!cookie.hostOnly && { domain: cookie.domain }),
        ...(!cookie.session && cookie.expirationDate !== undefined && { expirationDate: cookie.expirationDate }),
        sameSite: sameSiteOf(stored?.sameSite),
      });
    },
  };
}

/** The URL a cookie belongs to: its domain (without the leading dot) and path, https when Secure. */
export function cookieUrl(cookie: Pick<Cookie, 'domain' | 'path' | 'secure'>): string {
  return `${cookie.secure ? 'https' : 'http'}://${cookie.domain.replace(/^\./, '')}${cookie.path}`;
}

function sameDomain(toughDomain: string | null, specDomain: string): boolean {
  const bare = specDomain.replace(/^\./, '').replace(/^\[|\]$/g, '');
  return (toughDomain ?? '') === bare;
}

function sameSiteOf(value: string | undefined): SameSiteStatus {
  switch (value?.toLowerCase()) {
    case 'strict':
      return 'strict';
    case 'lax':
      return 'lax';
    case 'none':
      return 'no_restriction';
    default:
      return 'unspecified';
  }
}
