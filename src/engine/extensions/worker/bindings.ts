// The extension's side of wrtui: this module is bundled into one script that runs INSIDE the
// extension's realm (a vm context with a browser's globals), like a browser's own bindings. It
// builds `chrome` and `browser` (and console, timers, importScripts) as the manifest allows, runs
// the background, and turns host items into listener calls. Everything it creates (namespaces,
// details, Promises, TypeErrors) belongs to the extension's realm. The only way out is the bridge.
import { localizedManifestText, predefinedMessages } from '../locale-messages.js';
import { RuntimeState } from '../../runtime.js';
import { reportListenerCounts } from './simple-event.js';
import { ManifestError, checkManifest } from '../../rules/rule-manifest.js';
import type { WebRequestEventName } from '../../types.js';
import type { WorkerBoot } from '../protocol.js';
import { guardApi } from './api-guard.js';
import { installCanvasGlobals } from './canvas-globals.js';
import { INSTALL_GLOBAL, type BindingsHandle, type Bridge } from './bridge.js';
import { createConsole, createTimers } from './console-and-timers.js';
import { CookiesBinding } from './cookies-binding.js';
import { HostCalls } from './host-calls.js';
import { BrowserSurfaces } from './browser-surfaces.js';
import { GlobalEvents, PAGE_HANDLERS, SERVICE_WORKER_HANDLERS, ServiceWorkerScope } from './global-scope.js';
import { createFileReader } from './file-reader.js';
import { createImportScripts } from './import-scripts.js';
import { createWorkerClass } from './dedicated-worker.js';
import { installIndexedDb } from './indexed-db-globals.js';
import { PageWindow } from './page-window.js';
import { createAlarms, createDeclarativeNetRequest, createExtension, createI18n, createManagement, createPermissions, createRuntime, createStorage } from './runtime-binding.js';
import { WebRequestBinding, messageOf } from './web-request-binding.js';
import { personaNamed } from '../../personas/index.js';

/** Namespaces wrtui has, each granted by the permission of the same name. */
const GATED_NAMESPACES = ['webRequest', 'cookies', 'storage', 'alarms', 'declarativeNetRequest'] as const;

const isErrorLike = (value: unknown): value is Error =>
  value instanceof Error || (typeof value === 'object' && value !== null && typeof (value as Error).name === 'string' && typeof (value as Error).message === 'string' && typeof (value as Error).stack === 'string');

/** A URL's origin as a browser writes it: Node's URL says "null" for chrome-extension:. */
const originOf = (url: URL) => `${url.protocol}//${url.host}`;

function installBindings(bridge: Bridge, boot: WorkerBoot): BindingsHandle {
  const scope = globalThis as unknown as Record<string, unknown>;
  // An error of another realm too (a script that does not compile throws Node's SyntaxError).
  const describe = (error: unknown) => (isErrorLike(error) ? `${error.name}: ${error.message}` : messageOf(error));
  const reportUncaught = (error: unknown, where: string) => {
    const location = bridge.locate(error);
    bridge.post(location === undefined ? ['uncaught', 'exception', `${where}: ${describe(error)}`] : ['uncaught', 'exception', `${where}: ${describe(error)}`, location]);
  };

  let permissions: ReadonlySet<string> = new Set(boot.permissions);
  let hostPermissions: readonly string[] = boot.hostPermissions;
  let manifest: Record<string, unknown> = boot.manifest ?? {};
  reportListenerCounts((event, count) => bridge.post(['eventListeners', event, count]));
  const lastError = new RuntimeState((message) => bridge.post(['log', 'warn', `Unchecked runtime.lastError: ${message}`]));
  const calls = new HostCalls(bridge);
  bridge.useHostCalls((method, args) => calls.call(method, args));
  let persona = personaNamed(boot.persona ?? 'spec');
  const webRequest = new WebRequestBinding(bridge, calls, () => permissions, () => persona, reportUncaught);
  const cookies = new CookiesBinding(bridge, calls, lastError, reportUncaught);
  const runtime = createRuntime(boot, lastError, () => manifest, reportUncaught, bridge, () => persona.surfaces);
  const i18n = createI18n(boot, lastError, reportUncaught, () => persona.surfaces);
  const storage = createStorage(calls, lastError, reportUncaught, () => persona.surfaces);
  const alarms = createAlarms(calls, lastError, reportUncaught);
  const dnr = createDeclarativeNetRequest(calls, lastError, reportUncaught, () => permissions.has('declarativeNetRequestFeedback'));
  const reported = new Set<string>();

  /** A manifest text with its `__MSG_name__` resolved, as chrome.i18n would resolve it now. */
  const localize = (text: string) => localizedManifestText(boot.messages ?? {}, predefinedMessages(new URL(boot.baseUrl).host, persona.surfaces.uiLocale), text);
  /** management.getSelf(): the extension as Chromium 156 describes an unpacked one. */
  const selfInfo = () => {
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    const name = localize(text(manifest.name)) || boot.name;
    const options = text(manifest.options_page) || text((manifest.options_ui as { page?: unknown } | undefined)?.page);
    return {
      description: localize(text(manifest.description)),
      enabled: true,
      homepageUrl: text(manifest.homepage_url),
      hostPermissions: [...hostPermissions],
      id: boot.extensionId,
      installType: 'development',
      isApp: false,
      mayDisable: true,
      name,
      offlineEnabled: manifest.offline_enabled === true,
      optionsUrl: options ? new URL(options.replace(/^\/+/, ''), boot.baseUrl).href : '',
      permissions: [...permissions].sort(),
      shortName: localize(text(manifest.short_name)) || name,
      type: 'extension',
      version: text(manifest.version),
      versionName: text(manifest.version_name),
    };
  };
  // Made once the manifest is known (a rule's comes from its module): chrome and browser share them.
  let surfaces: BrowserSurfaces | undefined;
  /** `chrome` (callbacks, and Promises without one) or `browser` (Promises), as the permissions allow. */
  const namespaces = (style: 'callback' | 'promise') => {
    const manifestVersion = typeof manifest.manifest_version === 'number' ? manifest.manifest_version : 2;
    const root = style === 'callback' ? 'chrome' : 'browser';
    runtime.adapt();
    surfaces ??= new BrowserSurfaces({ bridge, lastError, onError: reportUncaught, manifest, permissions, dialect: persona.surfaces, baseUrl: boot.baseUrl, later: (run) => void bridge.setTimer(run, 0, false), calls, messages: localize, attachedBrowser: boot.attachedBrowser === true }, reported);
    const api: Record<string, unknown> = {
      // The browser's own surfaces first, so that wrtui's real namespaces win any name they share.
      ...surfaces.namespaces(root),
      runtime: runtime.namespace,
      i18n,
      permissions: createPermissions(lastError, reportUncaught, () => ({ permissions: [...permissions], origins: hostPermissions }), () => persona.surfaces),
      extension: createExtension(lastError, reportUncaught, runtime.namespace.getURL as (path: unknown) => string, manifestVersion, globalThis),
      management: createManagement(lastError, reportUncaught, () => selfInfo()),
    };
    if (permissions.has('webRequest')) api.webRequest = webRequest.namespace(manifestVersion);
    if (permissions.has('cookies')) api.cookies = cookies.namespace(style);
    if (permissions.has('storage')) api.storage = storage.namespace();
    if (permissions.has('alarms')) api.alarms = alarms.namespace;
    if (permissions.has('declarativeNetRequest') || permissions.has('declarativeNetRequestWithHostAccess')) api.declarativeNetRequest = dnr.namespace;
    const needs = Object.fromEntries(GATED_NAMESPACES.filter((name) => !(name in api)).map((name) => [name, name]));
    return guardApi(root, api, bridge, reported, needs);
  };
  const exposeNamespaces = () => {
    const chrome = namespaces('callback');
    const browser = namespaces('promise');
    scope.chrome = chrome;
    scope.browser = browser;
    return { chrome, browser };
  };

  scope.console = createConsole(bridge);
  Object.assign(scope, createTimers(bridge, reportUncaught).timers);
  scope.self = globalThis;
  const showNavigator = () => {
    scope.navigator = { userAgent: persona.userAgent ?? `wrtui (${boot.name})`, language: 'en-US', languages: ['en-US', 'en'], onLine: true, hardwareConcurrency: 1 };
  };
  showNavigator();
  const background = (boot.manifest?.background ?? {}) as { service_worker?: string; type?: string; scripts?: unknown; page?: unknown };
  // A background page (MV2, and Firefox's MV3 background.scripts) is a window; a service worker is not.
  const isPage = boot.kind === 'extension' && (boot.page !== undefined || boot.pageHtml !== undefined);
  const isServiceWorker = boot.kind === 'extension' && !isPage && typeof background.service_worker === 'string';
  // Either is an EventTarget with its `on…` attributes; a service worker also has its registration.
  const globalEvents = isPage || isServiceWorker ? new GlobalEvents(scope, reportUncaught, isPage ? PAGE_HANDLERS : SERVICE_WORKER_HANDLERS) : undefined;
  const serviceWorker = isServiceWorker ? new ServiceWorkerScope(scope, globalEvents!, new URL(background.service_worker!, boot.baseUrl).href, boot.baseUrl, reportUncaught) : undefined;
  if (boot.kind === 'extension') {
    scope.origin = originOf(new URL(boot.baseUrl));
    scope.isSecureContext = true;
  }
  if (isServiceWorker && background.type !== 'module') {
    // A classic service worker may pull in more scripts, synchronously, relative to its own URL.
    const serviceWorkerUrl = new URL(background.service_worker!, boot.baseUrl);
    scope.importScripts = createImportScripts({
      scriptUrl: serviceWorkerUrl.href,
      origin: originOf(new URL(boot.baseUrl)),
      fileOf: (url) => `${boot.rootDir}/${decodeURIComponent(url.pathname.replace(/^\/+/, ''))}`,
      readFile: (file) => bridge.readFile(file),
      runScript: (code, file) => bridge.runScript(code, file),
    });
  }
  // self.location: the service worker's script, or the background page (Chrome names the one it
  // makes for background.scripts _generated_background_page.html).
  if (boot.kind === 'extension') {
    const page = typeof background.service_worker === 'string' ? background.service_worker : typeof background.page === 'string' ? background.page : background.scripts !== undefined ? '_generated_background_page.html' : undefined;
    if (page !== undefined) {
      const url = new URL(page, boot.baseUrl);
      scope.location = { href: url.href, origin: originOf(url), protocol: url.protocol, host: url.host, hostname: url.hostname, pathname: url.pathname, search: '', hash: '', toString: () => url.href };
    }
  }

  // Node's Event and EventTarget, taken before a page's DOM may shadow them.
  const NodeEvent = Event;
  const NodeEventTarget = EventTarget;
  const pageWindow = isPage ? new PageWindow({ scope, boot, bridge, calls, events: globalEvents!, onError: reportUncaught, NodeEvent, NodeEventTarget }) : undefined;
  // FileReader and the canvas globals: a window's and a worker's alike.
  if (isPage || isServiceWorker) installCanvasGlobals(scope, () => bridge.canvas());
  if (isPage || isServiceWorker) scope.FileReader = createFileReader({ Event: NodeEvent, EventTarget: NodeEventTarget, onError: reportUncaught });
  // A page makes dedicated Workers (uBlock Origin's serializer and list updater); a service worker cannot, in Chromium neither.
  if (isPage) {
    scope.Worker = createWorkerClass({
      workers: bridge.workers,
      base: () => (scope.location as { href: string }).href,
      origin: originOf(new URL(boot.baseUrl)),
      navigator: () => {
        const { userAgent, language, languages, onLine, hardwareConcurrency } = scope.navigator as Record<string, unknown>;
        return { userAgent: String(userAgent), language: String(language), languages: [...(languages as string[])].map(String), onLine: onLine === true, hardwareConcurrency: Number(hardwareConcurrency) };
      },
      Event: NodeEvent,
      EventTarget: NodeEventTarget,
      MessageEvent,
      report: (message, location) => bridge.post(location === undefined ? ['uncaught', 'exception', message] : ['uncaught', 'exception', message, location]),
    });
  }
  // IndexedDB: every extension's (pages, service workers, rules), run on first use.
  const indexedDb = installIndexedDb({ scope, bridge, calls });

  const fail = (what: string, error: unknown, location?: string) => {
    const where = location ?? bridge.locate(error);
    bridge.post(where === undefined ? ['loadFailed', `${what} ${describe(error)}`] : ['loadFailed', `${what} ${describe(error)}`, where]);
  };

  const startExtension = () => {
    exposeNamespaces();
    for (const [index, unit] of boot.scripts.entries()) {
      // A module (a bundle of one) has no current script, in a browser too.
      pageWindow?.running(unit.source === undefined ? index : undefined);
      try {
        bridge.runScript(unit.code ?? bridge.readFile(unit.file), unit.file, unit.map);
      } catch (error) {
        return fail('the background script threw', error);
      } finally {
        pageWindow?.running(undefined);
      }
    }
    bridge.post(['ready']);
    // Woken again after a fault (no onInstalled to come), a service worker is already active.
    if (boot.installReason === undefined) serviceWorker?.active();
    // A page's scripts ran while it was parsed; then its document is interactive, then loaded.
    if (pageWindow) bridge.setTimer(() => pageWindow.loaded(), 0, false);
  };

  const startRule = () => {
    const unit = boot.rule!;
    let exports: Record<string, unknown>;
    try {
      exports = bridge.runRuleBundle(unit.code!, unit.file, unit.map);
    } catch (error) {
      return fail('loading the rule threw', error);
    }
    let checked;
    try {
      checked = checkManifest(exports.manifest);
      bridge.post(['manifest', JSON.parse(JSON.stringify(exports.manifest)) as unknown]);
    } catch (error) {
      if (error instanceof ManifestError) return bridge.post(['loadFailed', error.message, unit.source ?? unit.file]);
      return fail('the rule\'s manifest cannot be read:', error, unit.source);
    }
    manifest = checked.manifest as unknown as Record<string, unknown>;
    permissions = new Set(checked.manifest.permissions);
    hostPermissions = checked.manifest.host_permissions ?? [];
    persona = personaNamed(checked.manifest.persona ?? boot.persona ?? 'spec');
    showNavigator();
    bridge.setNodeAllowed(checked.manifest.node === true);
    const main = exports.default;
    if (typeof main !== 'function') {
      return bridge.post(['loadFailed', 'the default export must be the background function: export default function background({ chrome, browser }) { … }', unit.source ?? unit.file]);
    }
    const api = exposeNamespaces();
    let result: unknown;
    try {
      result = (main as (context: unknown) => unknown)(api);
    } catch (error) {
      return fail('the background threw', error);
    }
    Promise.resolve(result).then(
      () => bridge.post(['ready']),
      (error: unknown) => fail('the background threw', error),
    );
  };

  return {
    start: () => (boot.kind === 'rule' ? startRule() : startExtension()),
    receive(items) {
      for (const item of items) {
        switch (item[0]) {
          case 'event':
            webRequest.deliver(item[1] as number, item[2] as WebRequestEventName, item[3] as number[], item[4] as string);
            break;
          case 'reply':
            calls.reply(item[1] as number, item[2] as boolean, item[3]);
            break;
          case 'filterStart':
          case 'filterData':
          case 'filterStop':
          case 'filterError':
            webRequest.filters.receive(item as never);
            break;
          case 'actionIgnored':
            webRequest.actionIgnored.dispatch({ requestId: item[1] as string, action: item[2] as string });
            break;
          case 'cookieChanged':
            cookies.changed(item[1] as string);
            break;
          case 'alarm':
            alarms.fire(item[1]);
            break;
          case 'tabCreated':
            surfaces?.dispatch('tabs.onCreated', JSON.parse(item[1] as string) as unknown);
            break;
          case 'surfaceEvent':
            surfaces?.dispatch(item[1] as string, ...(JSON.parse(item[2] as string) as unknown[]));
            break;
          case 'storageChanged':
            storage.changed(JSON.parse(item[2] as string) as Record<string, unknown>);
            break;
          case 'indexedDbSave':
            indexedDb.saveNow();
            break;
          case 'dnrMatched':
            dnr.matched(item[1] as string);
            break;
          case 'lifecycle': {
            const name = item[1] as 'onInstalled' | 'onStartup';
            const details = JSON.parse(JSON.stringify(item[2] ?? {})) as unknown;
            // A service worker's first run: install, runtime.onInstalled, activate (as Chromium orders them).
            if (name === 'onInstalled' && serviceWorker) void serviceWorker.install(() => runtime.events.onInstalled.dispatch(details));
            else runtime.events[name].dispatch(details);
            break;
          }
        }
      }
    },
  };
}

(globalThis as unknown as Record<string, unknown>)[INSTALL_GLOBAL] = installBindings;
