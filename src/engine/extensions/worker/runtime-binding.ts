// chrome.runtime, chrome.storage and chrome.alarms: what extensions commonly touch at start-up, so
// that loading them does not throw. runtime answers locally (id, manifest, URLs, lastError); the
// storage areas and alarms live on the host, so they outlive a restarted worker as they outlive a
// restarted service worker in Chrome.
import type { RuntimeState } from '../../runtime.js';
import type { WorkerBoot } from '../protocol.js';
import { deliverReply, toRealm, type HostCalls } from './host-calls.js';
import { SimpleEvent } from './simple-event.js';

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

export function createRuntime(boot: WorkerBoot, runtime: RuntimeState, manifest: () => Record<string, unknown>, onError: OnError) {
  const events = {
    onInstalled: new SimpleEvent('runtime.onInstalled', onError),
    onStartup: new SimpleEvent('runtime.onStartup', onError),
    onMessage: new SimpleEvent('runtime.onMessage', onError),
    onMessageExternal: new SimpleEvent('runtime.onMessageExternal', onError),
    onConnect: new SimpleEvent('runtime.onConnect', onError),
    onSuspend: new SimpleEvent('runtime.onSuspend', onError),
  };
  const namespace = {
    id: boot.extensionId,
    get lastError() {
      return runtime.lastError;
    },
    getManifest: () => toRealm(manifest()),
    getURL: (path: unknown) => {
      if (typeof path !== 'string') throw new TypeError('Error in invocation of runtime.getURL(string path): No matching signature.');
      return new URL(path.replace(/^\/+/, ''), boot.baseUrl).href;
    },
    /** No page, popup or content script is there to answer, as when none is open in a browser. */
    sendMessage: (...args: unknown[]) => {
      const { callback } = splitCallback('runtime.sendMessage(optional string extensionId, any message, optional object options, optional function callback)', args, 3);
      const reply = Promise.resolve({ ok: false as const, error: 'Could not establish connection. Receiving end does not exist.' });
      return deliverReply(runtime, reply, callback, { onError, where: 'runtime.sendMessage' });
    },
    ...Object.fromEntries(Object.entries(events).map(([name, event]) => [name, event])),
  };
  return { namespace, events };
}

export function createStorage(calls: HostCalls, runtime: RuntimeState, onError: OnError) {
  const onChanged = new SimpleEvent('storage.onChanged', onError);
  const area = (name: 'local' | 'session', quotaBytes: number) => {
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
  return { local: area('local', 10_485_760), session: area('session', 10_485_760), onChanged };
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
