// chrome.runtime, i18n, permissions, extension, storage, alarms and declarativeNetRequest: what
// extensions commonly touch at start-up, so that loading them does not throw. runtime, i18n,
// permissions and extension answer locally (id, manifest, URLs, lastError, messages, what the
// manifest grants), in the persona's words; the storage areas, alarms and DNR rules live on the
// host, so they outlive a restarted worker as they outlive a restarted service worker in Chrome.
import type { SurfaceDialect } from '../../personas/persona.js';
import type { RuntimeState } from '../../runtime.js';
import type { WorkerBoot } from '../protocol.js';
import type { Bridge } from './bridge.js';
import { disconnectedPort, NO_CONNECTION } from './browser-surfaces.js';
import { deliverReply, toRealm, type HostCalls } from './host-calls.js';
import { SimpleEvent } from './simple-event.js';
import { localizedMessage, predefinedMessages, UI_LOCALE } from '../locale-messages.js';

type OnError = (error: unknown, where: string) => void;
type AnyFunction = (...args: never[]) => void;

/** Splits `args` into the call's own arguments and a trailing callback, throwing Chrome's TypeError when they do not fit. */
function splitCallback(signature: string, args: readonly unknown[], maxArgs: number): { args: unknown[]; callback: AnyFunction | undefined } {
  const list = [...args];
  while (list.length > 0 && list[list.length - 1] === undefined) list.pop();
  let callback: AnyFunction | undefined;
  if (list.length > 0 && typeof list[list.length - 1] === 'function') callback = list.pop() as AnyFunction;
  if (list.length > maxArgs || list.some((arg) => typeof arg === 'function')) {
    throw new TypeError(`Error in invocation of ${signature}: No matching signature.`);
  }
  return { args: list, callback };
}

type LocalAnswer = { ok: true; value: unknown } | { ok: false; error: string };
const answer = (value?: unknown): LocalAnswer => ({ ok: true, value });

/**
 * A call the realm answers itself, at once, as the browser would: to the callback (with
 * runtime.lastError set on failure), or as a Promise without one. `signature` is Chrome's
 * (`runtime.getContexts(object filter, optional function callback)`): its TypeError when the
 * arguments do not fit, and its name where a callback's throw is reported.
 */
function answeredHere(runtime: RuntimeState, onError: OnError, signature: string, maxArgs: number, reply: (args: unknown[]) => LocalAnswer) {
  const where = signature.slice(0, signature.indexOf('('));
  return (...input: unknown[]) => {
    const { args, callback } = splitCallback(signature, input, maxArgs);
    return deliverReply(runtime, Promise.resolve(reply(args)), callback, { onError, where });
  };
}

export function createRuntime(boot: WorkerBoot, runtime: RuntimeState, manifest: () => Record<string, unknown>, onError: OnError, bridge: Bridge, dialect: () => SurfaceDialect) {
  const events = {
    onInstalled: new SimpleEvent('runtime.onInstalled', onError),
    onStartup: new SimpleEvent('runtime.onStartup', onError),
    onMessage: new SimpleEvent('runtime.onMessage', onError),
    onMessageExternal: new SimpleEvent('runtime.onMessageExternal', onError),
    onConnect: new SimpleEvent('runtime.onConnect', onError),
    onSuspend: new SimpleEvent('runtime.onSuspend', onError),
  };
  // Events wrtui never has a reason to fire (no browser update, no suspension cancelled).
  const quiet = Object.fromEntries(['onConnectExternal', 'onSuspendCanceled', 'onUpdateAvailable', 'onRestartRequired', 'onUserScriptMessage', 'onUserScriptConnect'].map((name) => [name, new SimpleEvent(`runtime.${name}`, onError, { counted: false })]));
  const answered = (signature: string, maxArgs: number, reply: (args: unknown[]) => LocalAnswer) => answeredHere(runtime, onError, `runtime.${signature}`, maxArgs, reply);
  const namespace: Record<string, unknown> = {
    id: boot.extensionId,
    OnInstalledReason: { INSTALL: 'install', UPDATE: 'update', CHROME_UPDATE: 'chrome_update', SHARED_MODULE_UPDATE: 'shared_module_update' },
    PlatformOs: { MAC: 'mac', WIN: 'win', ANDROID: 'android', CROS: 'cros', LINUX: 'linux', OPENBSD: 'openbsd' },
    PlatformArch: { ARM: 'arm', ARM64: 'arm64', X86_32: 'x86-32', X86_64: 'x86-64', MIPS: 'mips', MIPS64: 'mips64', PPC64: 'ppc64', RISCV64: 'riscv64' },
    ContextType: { TAB: 'TAB', POPUP: 'POPUP', BACKGROUND: 'BACKGROUND', OFFSCREEN_DOCUMENT: 'OFFSCREEN_DOCUMENT', SIDE_PANEL: 'SIDE_PANEL', DEVELOPER_TOOLS: 'DEVELOPER_TOOLS' },
    getManifest: () => toRealm(manifest()),
    getURL: (path: unknown) => {
      if (typeof path !== 'string') throw new TypeError('Error in invocation of runtime.getURL(string path): No matching signature.');
      return new URL(path.replace(/^\/+/, ''), boot.baseUrl).href;
    },
    /** No page, popup or content script is there to answer, as when none is open in a browser. */
    sendMessage: answered('sendMessage(optional string extensionId, any message, optional object options, optional function callback)', 3, () => ({ ok: false, error: NO_CONNECTION })),
    /** A port with no other end: it disconnects at once, as in Chromium 156 with nothing listening. */
    connect: (...args: unknown[]) => {
      const info = args.find((arg) => typeof arg === 'object' && arg !== null) as { name?: unknown } | undefined;
      return disconnectedPort(typeof info?.name === 'string' ? info.name : '', runtime, onError, (run) => void bridge.setTimer(run, 0, false), dialect().portErrorOnPort);
    },
    getPlatformInfo: answered('getPlatformInfo(optional function callback)', 0, () => {
      const { os, arch, nacl_arch } = bridge.platform;
      return { ok: true, value: dialect().naclArch ? { os, arch, nacl_arch } : { os, arch } };
    }),
    setUninstallURL: answered('setUninstallURL(string url, optional function callback)', 1, ([url]) =>
      typeof url === 'string' && url !== '' && !/^https?:/i.test(url) ? { ok: false, error: 'Invalid URL: "' + url + '".' } : { ok: true, value: undefined },
    ),
    openOptionsPage: answered('openOptionsPage(optional function callback)', 0, () => ({ ok: false, error: 'wrtui has no tabs or windows: the options page cannot be opened' })),
    getContexts: answered('getContexts(object filter, optional function callback)', 1, () => ({ ok: true, value: [{ contextId: `${boot.extensionId}-background`, contextType: 'BACKGROUND', frameId: dialect().backgroundFrameId, incognito: false, tabId: -1, windowId: -1 }] })),
    /** Reloads the extension as a save in its folder does (onInstalled says "update"). */
    reload: () => void bridge.post(['reload']),
    ...events,
    ...quiet,
  };
  // Not among the namespace's keys, as in Chromium 156, where it exists only while a callback runs.
  Object.defineProperty(namespace, 'lastError', { get: () => runtime.lastError ?? dialect().noLastError, enumerable: false, configurable: true });
  const requestUpdateCheck = answered('requestUpdateCheck(optional function callback)', 0, () => ({ ok: true, value: { status: 'no_update', version: '' } }));
  const getBrowserInfo = answered('getBrowserInfo(optional function callback)', 0, () => ({ ok: true, value: { ...dialect().browserInfo } }));
  /** The members that only some browsers have, as the persona says (a rule learns its persona from its manifest). */
  const adapt = () => {
    if (dialect().hasRequestUpdateCheck) namespace.requestUpdateCheck = requestUpdateCheck;
    else delete namespace.requestUpdateCheck;
    if (dialect().browserInfo) namespace.getBrowserInfo = getBrowserInfo;
    else delete namespace.getBrowserInfo;
  };
  adapt();
  return { namespace, events, adapt };
}

/** chrome.i18n, from the extension's _locales (locale-messages.ts); wrtui's UI language is en-US. */
export function createI18n(boot: WorkerBoot, runtime: RuntimeState, onError: OnError, dialect: () => SurfaceDialect) {
  return {
    getMessage: (name: unknown, substitutions?: unknown) => {
      if (typeof name !== 'string') throw new TypeError('Error in invocation of i18n.getMessage(string messageName, optional any substitutions, optional object options): No matching signature.');
      const list = substitutions === undefined ? [] : (Array.isArray(substitutions) ? substitutions : [substitutions]).map(String);
      return localizedMessage(boot.messages ?? {}, predefinedMessages(new URL(boot.baseUrl).host, dialect().uiLocale), name, list);
    },
    getUILanguage: () => UI_LOCALE.replace('_', '-'),
    getAcceptLanguages: answeredHere(runtime, onError, 'i18n.getAcceptLanguages(optional function callback)', 0, () => answer(['en-US', 'en'])),
    detectLanguage: answeredHere(runtime, onError, 'i18n.detectLanguage(string text, optional function callback)', 1, () => answer({ isReliable: false, languages: [] })),
  };
}

/**
 * chrome.permissions: what the manifest granted (wrtui has no optional permissions to grant: a
 * request is refused, as when the user says no).
 */
export function createPermissions(runtime: RuntimeState, onError: OnError, granted: () => { permissions: readonly string[]; origins: readonly string[] }, dialect: () => SurfaceDialect) {
  const call = (signature: string, maxArgs: number, value: (args: unknown[]) => unknown) => answeredHere(runtime, onError, `permissions.${signature}`, maxArgs, (args) => answer(value(args)));
  const asked = (value: unknown) => {
    const request = (typeof value === 'object' && value !== null ? value : {}) as { permissions?: unknown; origins?: unknown };
    return { permissions: Array.isArray(request.permissions) ? request.permissions.map(String) : [], origins: Array.isArray(request.origins) ? request.origins.map(String) : [] };
  };
  return {
    getAll: call('getAll(optional function callback)', 0, () => dialect().permissionsAll(granted().permissions, granted().origins)),
    contains: call('contains(object permissions, optional function callback)', 1, ([value]) => {
      const { permissions, origins } = asked(value);
      const have = granted();
      return permissions.every((name) => have.permissions.includes(name)) && origins.every((origin) => have.origins.includes(origin) || have.origins.includes('<all_urls>'));
    }),
    request: call('request(object permissions, optional function callback)', 1, () => false),
    remove: call('remove(object permissions, optional function callback)', 1, () => false),
    addHostAccessRequest: call('addHostAccessRequest(object request, optional function callback)', 1, () => undefined),
    removeHostAccessRequest: call('removeHostAccessRequest(object request, optional function callback)', 1, () => undefined),
    onAdded: new SimpleEvent('permissions.onAdded', onError, { counted: false }),
    onRemoved: new SimpleEvent('permissions.onRemoved', onError, { counted: false }),
  };
}

/** chrome.extension: Chromium 156's members, and MV2's getURL and getBackgroundPage (the background page is this global scope). */
export function createExtension(runtime: RuntimeState, onError: OnError, getURL: (path: unknown) => string, manifestVersion: number, scope: object) {
  const namespace: Record<string, unknown> = {
    ViewType: { TAB: 'tab', POPUP: 'popup' },
    inIncognitoContext: false,
    isAllowedIncognitoAccess: answeredHere(runtime, onError, 'extension.isAllowedIncognitoAccess(optional function callback)', 0, () => answer(false)),
    isAllowedFileSchemeAccess: answeredHere(runtime, onError, 'extension.isAllowedFileSchemeAccess(optional function callback)', 0, () => answer(false)),
    setUpdateUrlData: answeredHere(runtime, onError, 'extension.setUpdateUrlData(string data)', 1, () => answer()),
  };
  if (manifestVersion === 2) {
    namespace.getURL = getURL;
    namespace.getBackgroundPage = () => scope;
    namespace.getViews = () => [scope];
  }
  return namespace;
}

export function createStorage(calls: HostCalls, runtime: RuntimeState, onError: OnError, dialect: () => SurfaceDialect) {
  const onChanged = new SimpleEvent('storage.onChanged', onError);
  const area = (name: 'local' | 'session' | 'sync', quotaBytes: number) => {
    const areaChanged = new SimpleEvent(`storage.${name}.onChanged`, onError);
    const call = (method: string, signature: string, maxArgs: number, map?: (value: unknown) => unknown) => (...input: unknown[]) => {
      const { args, callback } = splitCallback(`storage.${name}.${signature}`, input, maxArgs);
      const reply = calls.call(`storage.${method}`, [name, ...args]).then((outcome) => {
        // Changes come back with the reply: onChanged fires here, in this realm, before the callback.
        if (outcome.ok && method !== 'get' && method !== 'getBytesInUse') {
          const changes = (outcome.value as { changes: Record<string, unknown> }).changes;
          if (Object.keys(changes).length > 0) {
            onChanged.dispatch(toRealm(changes), name);
            areaChanged.dispatch(toRealm(changes));
          }
          return { ok: true as const, value: undefined };
        }
        return outcome;
      });
      return deliverReply(runtime, reply, callback, { onError, where: `storage.${name}.${method}`, ...(map && { map }) });
    };
    return {
      QUOTA_BYTES: quotaBytes,
      get: call('get', 'get(optional [string|array|object] keys, optional function callback)', 1),
      set: call('set', 'set(object items, optional function callback)', 1),
      remove: call('remove', 'remove([string|array] keys, optional function callback)', 1),
      clear: call('clear', 'clear(optional function callback)', 0),
      getBytesInUse: call('getBytesInUse', 'getBytesInUse(optional [string|array] keys, optional function callback)', 1),
      onChanged: areaChanged,
    };
  };
  const local = area('local', 10_485_760);
  // storage.managed: what an administrator's policy sets; wrtui has no policy, so it is empty and read-only.
  const managedAnswer = (signature: string, value: unknown) =>
    answeredHere(runtime, onError, `storage.managed.${signature}`, 1, () => {
      const error = dialect().managedStorageError;
      return error === undefined ? answer(value) : { ok: false, error };
    });
  const managed = {
    get: managedAnswer('get(optional [string|array|object] keys, optional function callback)', {}),
    getBytesInUse: managedAnswer('getBytesInUse(optional [string|array] keys, optional function callback)', 0),
    onChanged: new SimpleEvent('storage.managed.onChanged', onError, { counted: false }),
  };
  // storage.sync: kept on this machine (as in a browser not signed in), with sync's quotas.
  const { QUOTA_BYTES: _quota, ...syncCalls } = area('sync', 102_400);
  const syncConstants = { QUOTA_BYTES: 102_400, QUOTA_BYTES_PER_ITEM: 8_192, MAX_ITEMS: 512, MAX_WRITE_OPERATIONS_PER_HOUR: 1_800, MAX_WRITE_OPERATIONS_PER_MINUTE: 120 };
  const session = area('session', 10_485_760);
  return {
    /** The namespace as the persona has it (Firefox's storage.sync has no constants). */
    namespace: () => ({ local, session, sync: dialect().syncConstants ? { ...syncCalls, ...syncConstants } : syncCalls, managed, onChanged }),
    /** Changes made outside the extension (its storage file edited): heard as any other change. */
    changed(changes: Record<string, unknown>) {
      onChanged.dispatch(toRealm(changes), 'local');
      (local.onChanged as SimpleEvent).dispatch(toRealm(changes));
    },
  };
}

export function createAlarms(calls: HostCalls, runtime: RuntimeState, onError: OnError) {
  const onAlarm = new SimpleEvent('alarms.onAlarm', onError);
  const call = (method: string, signature: string, maxArgs: number) => (...input: unknown[]) => {
    const { args, callback } = splitCallback(`alarms.${signature}`, input, maxArgs);
    return deliverReply(runtime, calls.call(`alarms.${method}`, args), callback, { onError, where: `alarms.${method}` });
  };
  const namespace = {
    create: call('create', 'create(optional string name, object alarmInfo, optional function callback)', 2),
    get: call('get', 'get(optional string name, optional function callback)', 1),
    getAll: call('getAll', 'getAll(optional function callback)', 0),
    clear: call('clear', 'clear(optional string name, optional function callback)', 1),
    clearAll: call('clearAll', 'clearAll(optional function callback)', 0),
    onAlarm,
  };
  return { namespace, fire: (alarm: unknown) => onAlarm.dispatch(toRealm(alarm)) };
}

/** Chrome's constants on chrome.declarativeNetRequest (checked against Chromium 156). */
const DNR_CONSTANTS = {
  DYNAMIC_RULESET_ID: '_dynamic',
  SESSION_RULESET_ID: '_session',
  GUARANTEED_MINIMUM_STATIC_RULES: 30000,
  GETMATCHEDRULES_QUOTA_INTERVAL: 10,
  MAX_GETMATCHEDRULES_CALLS_PER_INTERVAL: 20,
  MAX_NUMBER_OF_DYNAMIC_AND_SESSION_RULES: 5000,
  MAX_NUMBER_OF_DYNAMIC_RULES: 30000,
  MAX_NUMBER_OF_ENABLED_STATIC_RULESETS: 50,
  MAX_NUMBER_OF_REGEX_RULES: 1000,
  MAX_NUMBER_OF_SESSION_RULES: 5000,
  MAX_NUMBER_OF_STATIC_RULESETS: 100,
  MAX_NUMBER_OF_UNSAFE_DYNAMIC_RULES: 5000,
  MAX_NUMBER_OF_UNSAFE_SESSION_RULES: 5000,
};

/**
 * chrome.declarativeNetRequest: the rules live on the host (the proxy thread evaluates them), so
 * every call is a message; onRuleMatchedDebug is dispatched from the host's matches.
 */
export function createDeclarativeNetRequest(calls: HostCalls, runtime: RuntimeState, onError: OnError, feedback: () => boolean) {
  const onRuleMatchedDebug = new SimpleEvent('declarativeNetRequest.onRuleMatchedDebug', onError);
  const call = (method: string, signature: string, maxArgs: number) => (...input: unknown[]) => {
    const { args, callback } = splitCallback(`declarativeNetRequest.${signature}`, input, maxArgs);
    return deliverReply(runtime, calls.call(`declarativeNetRequest.${method}`, args), callback, { onError, where: `declarativeNetRequest.${method}` });
  };
  const namespace: Record<string, unknown> = {
    ...DNR_CONSTANTS,
    updateDynamicRules: call('updateDynamicRules', 'updateDynamicRules(object options, optional function callback)', 1),
    getDynamicRules: call('getDynamicRules', 'getDynamicRules(optional object filter, optional function callback)', 1),
    updateSessionRules: call('updateSessionRules', 'updateSessionRules(object options, optional function callback)', 1),
    getSessionRules: call('getSessionRules', 'getSessionRules(optional object filter, optional function callback)', 1),
    updateEnabledRulesets: call('updateEnabledRulesets', 'updateEnabledRulesets(object options, optional function callback)', 1),
    getEnabledRulesets: call('getEnabledRulesets', 'getEnabledRulesets(optional function callback)', 0),
    getAvailableStaticRuleCount: call('getAvailableStaticRuleCount', 'getAvailableStaticRuleCount(optional function callback)', 0),
    isRegexSupported: call('isRegexSupported', 'isRegexSupported(object regexOptions, optional function callback)', 1),
    testMatchOutcome: call('testMatchOutcome', 'testMatchOutcome(object request, optional function callback)', 1),
    setExtensionActionOptions: call('setExtensionActionOptions', 'setExtensionActionOptions(object options, optional function callback)', 1),
  };
  if (feedback()) {
    namespace.getMatchedRules = call('getMatchedRules', 'getMatchedRules(optional object filter, optional function callback)', 1);
    namespace.onRuleMatchedDebug = onRuleMatchedDebug;
  }
  return { namespace, matched: (info: string) => onRuleMatchedDebug.dispatch(JSON.parse(info) as never) };
}

/**
 * chrome.management as every extension has it (no permission): getSelf (the manifest as Chromium
 * 156 reports an unpacked extension: installType "development"), uninstallSelf (which wrtui cannot
 * do: it answers an error), getPermissionWarningsByManifest (no warnings: wrtui shows none).
 */
export function createManagement(runtime: RuntimeState, onError: OnError, self: () => Record<string, unknown>) {
  const call = (signature: string, maxArgs: number, reply: () => LocalAnswer) => answeredHere(runtime, onError, `management.${signature}`, maxArgs, reply);
  return {
    ExtensionDisabledReason: { UNKNOWN: 'unknown', PERMISSIONS_INCREASE: 'permissions_increase' },
    ExtensionInstallType: { ADMIN: 'admin', DEVELOPMENT: 'development', NORMAL: 'normal', SIDELOAD: 'sideload', OTHER: 'other' },
    ExtensionType: { EXTENSION: 'extension', HOSTED_APP: 'hosted_app', PACKAGED_APP: 'packaged_app', LEGACY_PACKAGED_APP: 'legacy_packaged_app', THEME: 'theme', LOGIN_SCREEN_EXTENSION: 'login_screen_extension' },
    LaunchType: { OPEN_AS_REGULAR_TAB: 'OPEN_AS_REGULAR_TAB', OPEN_AS_PINNED_TAB: 'OPEN_AS_PINNED_TAB', OPEN_AS_WINDOW: 'OPEN_AS_WINDOW', OPEN_FULL_SCREEN: 'OPEN_FULL_SCREEN' },
    getSelf: call('getSelf(optional function callback)', 0, () => ({ ok: true, value: self() })),
    uninstallSelf: call('uninstallSelf(optional object options, optional function callback)', 1, () => ({ ok: false, error: 'wrtui cannot uninstall an extension: remove its folder, or its --extension' })),
    getPermissionWarningsByManifest: call('getPermissionWarningsByManifest(string manifestStr, optional function callback)', 1, () => ({ ok: true, value: [] })),
  };
}
