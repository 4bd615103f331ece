// The browser's own surfaces an extension touches at start-up: tabs and windows, its toolbar button
// (action, browserAction, pageAction), context menus, notifications, navigation events. wrtui is a
// proxy and has none of them, yet real extensions call them unconditionally (Redirector removes a
// webNavigation listener before it adds its webRequest one; ClearURLs listens to tabs.onUpdated at
// top level), so an `undefined` namespace stopped them from loading at all.
//
// So an extension granted one finds it, with the members Chromium 156 gives it: tabs and windows
// need no permission, the button comes with its manifest key, the rest with their permission; a
// namespace not granted stays undefined, as in a browser. Its events never fire, except the tabs and
// webNavigation events a browser wrtui started tells while attached (attached-events.ts); each call answers
// what a browser with no window or menu open would (tabs.get(5): "No tab with id: 5."), except
// that tabs.get and tabs.query know the tabs wrtui counted from traffic (known-tabs.ts), since a
// request's details.tabId names one. The button keeps what is set on it (getBadgeText gives back
// setBadgeText's text), and a notification is written to the journal. The journal says once per
// member what the extension used.
import type { SurfaceDialect } from '../../personas/persona.js';
import type { RuntimeState } from '../../runtime.js';
import type { Bridge } from './bridge.js';
import { deliverReply, type HostCalls } from './host-calls.js';
import { ChromeSetting, INVALID_INVOCATION, IP_HANDLING_POLICY, NO_INCOGNITO, PRIVACY_DEFAULTS, asksForIncognito, type SettingKind } from './chrome-settings.js';
import { CHROME_PROXY_CONFIG, CHROME_PROXY_DEFAULT, FIREFOX_NEEDS_PRIVATE_BROWSING, FIREFOX_PROXY_DEFAULT, PROXY_MODE, PROXY_SCHEME } from './proxy-settings.js';
import { ATTACHED_NAVIGATION_EVENTS, ATTACHED_TAB_EVENTS, ATTACHED_WINDOW_EVENTS, attachedEventNotes } from './attached-events.js';
import { SimpleEvent } from './simple-event.js';
import { toolbarButton, type ToolbarButton } from './toolbar-button.js';
import { answerWindows } from './attached-windows.js';

type OnError = (error: unknown, where: string) => void;
/** `note`: what the journal says of the call, when not the answer itself. */
type Answer = { ok: true; value: unknown; note?: string } | { ok: false; error: string };
type Method = (args: unknown[]) => Answer | Promise<Answer>;

const ok = (value?: unknown, note?: string): Answer => (note === undefined ? { ok: true, value } : { ok: true, value, note });
const fail = (error: string): Answer => ({ ok: false, error });

const NO_TABS = 'wrtui has no tabs or windows';
/** The host's answer when no browser is attached (known-tabs.ts says the same words). */
const NO_TAB_CONTROL = 'no browser attached';
/** What Chrome says when nothing answers a message or a port (runtime, tabs). */
export const NO_CONNECTION = 'Could not establish connection. Receiving end does not exist.';

/** Permissions that grant no namespace of their own (or one wrtui has for real). */
const NOT_A_SURFACE = new Set([
  'activeTab', 'background', 'clipboardRead', 'clipboardWrite', 'geolocation', 'unlimitedStorage', 'nativeMessaging',
  'webRequest', 'webRequestBlocking', 'webRequestFilterResponse', 'cookies', 'storage', 'alarms',
  'declarativeNetRequest', 'declarativeNetRequestWithHostAccess', 'declarativeNetRequestFeedback', 'tabs', 'menus', 'contextMenus',
]);

/** One namespace: what wrtui lacks (for the journal), its constants, events and calls. */
interface Surface {
  lacks: string;
  constants?: Record<string, unknown>;
  events: readonly string[];
  /** What the journal says of an event that does fire (otherwise: it never fires). */
  eventNotes?: Readonly<Record<string, string>>;
  methods: Record<string, Method>;
}

export interface SurfaceContext {
  bridge: Bridge;
  lastError: RuntimeState;
  onError: OnError;
  manifest: Record<string, unknown>;
  permissions: ReadonlySet<string>;
  /** How the persona's browser words and shapes its answers. */
  dialect: SurfaceDialect;
  baseUrl: string;
  /** Runs `run` on a later turn of the event loop. */
  later: (run: () => void) => void;
  /** Calls answered on the host (tabs.get and tabs.query: the tabs seen in traffic). */
  calls: HostCalls;
  /** A manifest text with its `__MSG_name__` resolved (chrome.i18n's messages). */
  messages: (text: string) => string;
  /** A browser wrtui started is attached (`wrtui browser`): its tabs and navigations are told (attached-events.ts). */
  attachedBrowser?: boolean;
}

/** The surfaces of one extension: their state is shared by `chrome` and `browser`. */
export class BrowserSurfaces {
  readonly #context: SurfaceContext;
  readonly #reported: Set<string>;
  readonly #surfaces = new Map<string, Surface>();
  readonly #menuIds = new Set<string | number>();
  /** The toolbar buttons (action, browserAction): their per-tab values end with the tab's document. */
  readonly #buttons: ToolbarButton[] = [];
  /** The events made, by name without the root (tabs.onCreated): chrome's and browser's. */
  readonly #events = new Map<string, SimpleEvent[]>();
  #nextMenuId = 1;
  #nextNotification = 1;
  /** chrome.privacy's settings, by group.name: their state is shared by `chrome` and `browser`. */
  readonly #settings = new Map<string, ChromeSetting>();
  readonly #privacy: boolean;
  readonly #proxy: boolean;

  constructor(context: SurfaceContext, reported: Set<string>) {
    this.#context = context;
    this.#reported = reported;
    const { manifest, permissions, dialect } = context;
    const attached = context.attachedBrowser === true;
    this.#surfaces.set('tabs', tabsSurface(dialect, context.calls, manifest.manifest_version, attached));
    this.#surfaces.set('windows', windowsSurface(dialect, attached ? context.calls : undefined));
    // Chromium 156 gives chrome.commands to an extension whose manifest declares commands.
    if (isObject(manifest.commands)) this.#surfaces.set('commands', commandsSurface(manifest, context.messages, dialect));
    const version = manifest.manifest_version;
    if (version === 3 && isObject(manifest.action)) this.#surfaces.set('action', this.#button('action', manifest.action, true));
    if (version === 2 && isObject(manifest.browser_action)) this.#surfaces.set('browserAction', this.#button('browserAction', manifest.browser_action, dialect.fullBrowserAction));
    if (version === 2 && isObject(manifest.page_action)) this.#surfaces.set('pageAction', this.#pageAction(manifest.page_action));
    if (permissions.has('contextMenus') || permissions.has('menus')) this.#surfaces.set('contextMenus', this.#menus());
    if (dialect.menus && permissions.has('menus')) this.#surfaces.set('menus', this.#menus(true));
    if (permissions.has('notifications')) this.#surfaces.set('notifications', this.#notifications());
    if (permissions.has('webNavigation')) this.#surfaces.set('webNavigation', webNavigationSurface(dialect, attached));
    for (const permission of permissions) {
      if (permission === 'privacy' || permission === 'proxy') continue;
      if (!NOT_A_SURFACE.has(permission) && /^[a-z][A-Za-z]*$/.test(permission) && !this.#surfaces.has(permission)) this.#surfaces.set(permission, genericSurface(permission));
    }
    this.#privacy = permissions.has('privacy');
    this.#proxy = permissions.has('proxy');
  }

  /** The namespaces, by name, for `chrome` (callbacks, or Promises without one) or `browser`. */
  namespaces(root: 'chrome' | 'browser'): Record<string, object> {
    const out: Record<string, Record<string, unknown>> = {};
    for (const [name, surface] of this.#surfaces) out[name] = this.#namespace(`${root}.${name}`, surface) as Record<string, unknown>;
    if (this.#privacy) out.privacy = this.#privacyNamespace(root);
    if (this.#proxy) out.proxy = this.#proxyNamespace(root);
    // The calls that answer at once rather than through a callback.
    for (const name of ['contextMenus', 'menus']) if (out[name]) out[name].create = this.#createMenu(`${root}.${name}.create`);
    if (out.menus) {
      // Firefox's menus calls for a content page's own context menu: wrtui shows no page, so there
      // is never a "contextmenu" event to override and no element a menu was opened on.
      out.menus.overrideContext = () => {
        throw new Error('overrideContext must be called during a "contextmenu" event');
      };
      out.menus.getTargetElement = () => null;
    }
    out.tabs!.connect = (_tabId: unknown, info?: { name?: unknown }) => {
      this.#report(`${root}.tabs.connect`, 'wrtui runs no content scripts; the port disconnects at once');
      return disconnectedPort(typeof info?.name === 'string' ? info.name : '', this.#context.lastError, this.#context.onError, this.#context.later, this.#context.dialect.portErrorOnPort);
    };
    return out;
  }

  #namespace(path: string, surface: Surface): object {
    const namespace: Record<string, unknown> = { ...surface.constants };
    for (const event of surface.events) namespace[event] = this.#event(`${path}.${event}`, surface.lacks, surface.eventNotes?.[event]);
    for (const [name, method] of Object.entries(surface.methods)) namespace[name] = this.#call(`${path}.${name}`, surface.lacks, method);
    if (surface.events.length === 0 && Object.keys(surface.methods).length === 0) return this.#anyMember(path, surface.lacks);
    return namespace;
  }

  /**
   * A namespace wrtui knows no members of: every `onX` an event; anything else a call answering
   * nothing that is also a namespace of its own, since such APIs nest (privacy.network.
   * networkPredictionEnabled.set(…)).
   */
  #anyMember(path: string, lacks: string, target: object = {}): object {
    const made = new Map<string, unknown>();
    const member = (property: string | symbol): property is string => typeof property === 'string' && property !== 'then' && /^[a-z]/.test(property);
    return new Proxy(target, {
      has: (_, property) => member(property),
      get: (_, property) => {
        // A namespace of which wrtui knows some members (privacy.websites) answers those as they are.
        if (typeof target === 'object' && Object.hasOwn(target, property)) return Reflect.get(target, property);
        if (!member(property)) return undefined;
        if (!made.has(property)) {
          const name = `${path}.${property}`;
          made.set(property, /^on[A-Z]/.test(property) ? this.#event(name, lacks) : this.#anyMember(name, lacks, this.#call(name, lacks, () => ok())));
        }
        return made.get(property);
      },
    });
  }

  #event(path: string, lacks: string, note?: string): SimpleEvent {
    const name = path.replace(/^(chrome|browser)\./, '');
    const event = new SimpleEvent(name, this.#context.onError, { counted: false });
    const add = event.addListener;
    event.addListener = (listener: unknown) => {
      this.#report(path, `${lacks}; ${note ?? 'this event never fires'}`);
      add(listener);
    };
    this.#events.set(name, [...(this.#events.get(name) ?? []), event]);
    return event;
  }

  /** Fires one of the surfaces' events (tabs.onCreated) for chrome's and browser's listeners. */
  dispatch(name: string, ...args: unknown[]): void {
    // A tab's own button values end with its document (a new page loads: its URL changes) or the tab.
    if (name === 'tabs.onRemoved' || (name === 'tabs.onUpdated' && isObject(args[1]) && typeof args[1].url === 'string')) {
      for (const button of this.#buttons) button.forgetTab(args[0] as number);
    }
    for (const event of this.#events.get(name) ?? []) event.dispatch(...args);
  }

  #call(path: string, lacks: string, method: Method): (...input: unknown[]) => unknown {
    return (...input: unknown[]) => {
      const args = [...input];
      while (args.length > 0 && args[args.length - 1] === undefined) args.pop();
      const callback = typeof args[args.length - 1] === 'function' ? (args.pop() as (...values: never[]) => void) : undefined;
      const reply = Promise.resolve(method(args)).then((answer) => {
        this.#report(path, `${lacks}; ${answer.ok ? (answer.note ?? (answer.value === undefined ? 'the call did nothing' : `answered ${JSON.stringify(answer.value)}`)) : `answered "${answer.error}"`}`);
        return answer.ok ? { ok: true as const, value: answer.value } : answer;
      });
      return deliverReply(this.#context.lastError, reply, callback, { onError: this.#context.onError, where: path.replace(/^(chrome|browser)\./, '') });
    };
  }

  /** chrome.privacy: its groups of settings (chrome-settings.ts), any other member answering nothing. */
  #privacyNamespace(root: string): Record<string, unknown> {
    const out: Record<string, unknown> = { IPHandlingPolicy: { ...IP_HANDLING_POLICY } };
    for (const [group, settings] of Object.entries(PRIVACY_DEFAULTS)) {
      const members: Record<string, unknown> = {};
      for (const [name, fallback] of Object.entries(settings)) members[name] = this.#setting(`${root}.privacy.${group}.${name}`, fallback);
      out[group] = this.#anyMember(`${root}.privacy.${group}`, 'wrtui has no privacy', members);
    }
    return out;
  }

  /** chrome.proxy (proxy-settings.ts): its settings, and its events, which never fire here. */
  #proxyNamespace(root: string): Record<string, unknown> {
    const lacks = 'wrtui keeps the setting, but its traffic does not follow it';
    if (this.#context.dialect.proxySettings === 'chrome') {
      return {
        Mode: { ...PROXY_MODE },
        Scheme: { ...PROXY_SCHEME },
        settings: this.#setting(`${root}.proxy.settings`, CHROME_PROXY_DEFAULT, CHROME_PROXY_CONFIG),
        onProxyError: this.#event(`${root}.proxy.onProxyError`, 'wrtui connects upstream itself'),
      };
    }
    const path = `${root}.proxy.settings`;
    return {
      settings: {
        get: this.#call(`${path}.get`, lacks, () => ok({ levelOfControl: 'controllable_by_this_extension', value: structuredClone(FIREFOX_PROXY_DEFAULT) })),
        set: this.#call(`${path}.set`, lacks, () => fail(FIREFOX_NEEDS_PRIVATE_BROWSING)),
        clear: this.#call(`${path}.clear`, lacks, () => ok(false)),
        onChange: this.#event(`${path}.onChange`, lacks, 'fires when this extension sets or clears it'),
      },
      onRequest: this.#event(`${root}.proxy.onRequest`, 'wrtui connects upstream itself', 'no request asks an extension how to proxy it'),
      onError: this.#event(`${root}.proxy.onError`, 'wrtui connects upstream itself'),
    };
  }

  /** One types.ChromeSetting: get, set, clear, onChange. */
  #setting(path: string, fallback: unknown, kind?: SettingKind): Record<string, unknown> {
    const key = path.replace(/^(chrome|browser)\./, '');
    let setting = this.#settings.get(key);
    if (!setting) this.#settings.set(key, (setting = new ChromeSetting(fallback, kind)));
    const state = setting;
    const lacks = 'wrtui keeps the setting, but its traffic does not follow it';
    // onChange says what the setting became then, even when it changes again before the event is told.
    const changed = () => {
      const details = state.read();
      this.#context.later(() => this.dispatch(`${key}.onChange`, details));
    };
    const set = this.#call(`${path}.set`, lacks, ([details]) => {
      if (asksForIncognito(details)) return fail(NO_INCOGNITO);
      if (state.set((details as { value: unknown }).value)) changed();
      return ok(undefined, 'kept (get gives it back)');
    });
    return {
      get: this.#call(`${path}.get`, lacks, ([details]) => (asksForIncognito(details) ? fail(NO_INCOGNITO) : ok(state.read()))),
      // Details without a value of the setting's kind throw at the call, as Chromium's schema check does.
      set: (details: unknown, ...rest: unknown[]) => {
        if (!isObject(details) || !('value' in details) || !state.accepts(details.value)) throw new TypeError(INVALID_INVOCATION);
        return set(details, ...rest);
      },
      clear: this.#call(`${path}.clear`, lacks, ([details]) => {
        if (asksForIncognito(details)) return fail(NO_INCOGNITO);
        if (state.clear()) changed();
        return ok(undefined, "back to Chromium's default");
      }),
      onChange: this.#event(`${path}.onChange`, lacks, 'fires when this extension sets or clears it'),
    };
  }

  #report(path: string, text: string): void {
    if (this.#reported.has(path)) return;
    this.#reported.add(path);
    this.#context.bridge.post(['surfaceNote', path, text]);
  }

  /** action (MV3), browserAction (MV2): the button's state, kept (toolbar-button.ts); `extra`: Firefox's and MV3's getters and setters. */
  #button(name: string, declared: Record<string, unknown>, extra: boolean): Surface {
    const button = toolbarButton({
      name,
      declared,
      manifestName: String(this.#context.manifest.name ?? ''),
      baseUrl: this.#context.baseUrl,
      dialect: this.#context.dialect,
      calls: this.#context.calls,
      extra,
      noPopup: `${NO_TABS}: there is no popup to open`,
      // Only the last button's badge is told (an MV2 extension has a browserAction or a pageAction's none).
      onBadge: name === 'pageAction' ? () => {} : (text, byTab) => this.#context.bridge.post(['badge', text, byTab]),
    });
    if (name !== 'pageAction') this.#buttons.push(button);
    return button;
  }

  #pageAction(declared: Record<string, unknown>): Surface {
    const button = this.#button('pageAction', declared, false);
    const onTab: Method = ([tabId]) => fail(this.#context.dialect.noTab(tabId));
    const { setTitle, getTitle, setIcon, setPopup, getPopup } = button.methods;
    return { lacks: button.lacks, events: ['onClicked'], methods: { show: onTab, hide: onTab, setTitle: setTitle!, getTitle: getTitle!, setIcon: setIcon!, setPopup: setPopup!, getPopup: getPopup! } };
  }

  /** contextMenus, and Firefox's `menus` (`firefoxMenus`: with its onShown/onHidden, refresh, overrideContext). */
  #menus(firefoxMenus = false): Surface {
    const missing = (id: unknown) => fail(`Cannot find menu item with id ${String(id)}`);
    const firefox: Partial<Surface> = firefoxMenus ? { events: ['onClicked', 'onShown', 'onHidden'] } : {};
    const firefoxMethods: Record<string, Method> = firefoxMenus ? { refresh: () => ok(undefined, 'no menu is shown') } : {};
    return {
      lacks: 'wrtui has no context menus',
      constants: {
        ACTION_MENU_TOP_LEVEL_LIMIT: 6,
        ContextType: Object.fromEntries(['all', 'page', 'frame', 'selection', 'link', 'editable', 'image', 'video', 'audio', 'launcher', 'browser_action', 'page_action', 'action', 'tab'].map((value) => [value.toUpperCase(), value])),
        ItemType: { NORMAL: 'normal', CHECKBOX: 'checkbox', RADIO: 'radio', SEPARATOR: 'separator' },
      },
      events: ['onClicked'],
      ...firefox,
      methods: {
        ...firefoxMethods,
        update: ([id]) => (this.#menuIds.has(id as string) ? ok() : missing(id)),
        remove: ([id]) => (this.#menuIds.delete(id as string) ? ok() : missing(id)),
        removeAll: () => (this.#menuIds.clear(), ok()),
      },
    };
  }

  /** contextMenus.create answers with the item's id at once (callback aside), so it is no plain call. */
  #createMenu(path: string): (...input: unknown[]) => unknown {
    return (properties: unknown, callback?: unknown) => {
      const given = isObject(properties) ? properties.id : undefined;
      const id = typeof given === 'string' ? given : this.#nextMenuId++;
      const duplicate = typeof given === 'string' && this.#menuIds.has(given);
      this.#menuIds.add(id);
      this.#report(path, 'wrtui has no context menus; the item is kept but never shown');
      const answer = duplicate ? fail(this.#context.dialect.duplicateMenu(given)) : ok();
      void deliverReply(this.#context.lastError, Promise.resolve(answer), typeof callback === 'function' ? (callback as () => void) : () => {}, { onError: this.#context.onError, where: 'contextMenus.create' });
      return id;
    };
  }

  #notifications(): Surface {
    const shown = new Set<string>();
    return {
      lacks: 'wrtui has no notification centre',
      events: ['onButtonClicked', 'onClicked', 'onClosed', 'onPermissionLevelChanged', 'onShowSettings'],
      methods: {
        create: (args) => {
          const id = typeof args[0] === 'string' && args[0] !== '' ? args[0] : `wrtui-notification-${this.#nextNotification++}`;
          const options = (typeof args[0] === 'string' ? args[1] : args[0]) as { title?: unknown; message?: unknown } | undefined;
          shown.add(id);
          // The one surface whose output a user wants to see: it goes to the journal, every time.
          this.#context.bridge.post(['log', 'info', `notification ${JSON.stringify(String(options?.title ?? ''))}: ${String(options?.message ?? '')}`]);
          return ok(id);
        },
        update: ([id]) => ok(shown.has(String(id))),
        clear: ([id]) => ok(shown.delete(String(id))),
        getAll: () => ok(Object.fromEntries([...shown].map((id) => [id, true]))),
        getPermissionLevel: () => ok('granted'),
      },
    };
  }
}

const WINDOW_TYPE = { NORMAL: 'normal', POPUP: 'popup', PANEL: 'panel', APP: 'app', DEVTOOLS: 'devtools', CUSTOM_TAB: 'custom-tab' };

function tabsSurface(dialect: SurfaceDialect, calls: HostCalls, manifestVersion: unknown, attached: boolean): Surface {
  const seen = attached ? "the attached browser's" : 'seen in traffic';
  const host = async (method: string, args: unknown[]): Promise<Answer> => {
    const reply = await calls.call(`tabs.${method}`, args);
    return reply.ok ? ok(reply.value, method === 'query' ? `answered the ${(reply.value as unknown[]).length} tabs ${attached ? "the attached browser has (and any seen only in traffic)" : 'seen in traffic so far'}` : `answered with the tab ${seen}`) : fail(reply.error);
  };
  // Under `wrtui browser` the attached browser's tabs are acted on; without one, the answer below.
  const actOn = (method: string, otherwise: Method): Method => async (args) => {
    const reply = await calls.call(`tabs.${method}`, args);
    if (reply.ok) return ok(reply.value, `the attached browser's tabs: ${method} done`);
    return reply.error === NO_TAB_CONTROL ? otherwise(args) : fail(reply.error);
  };
  // A tab wrtui saw in traffic cannot be acted on; one it did not see does not exist.
  const noTab: Method = async ([tabId]) => {
    const id = Array.isArray(tabId) ? tabId[0] : tabId;
    if (typeof id !== 'number') return fail(`${NO_TABS}: there is no current tab`);
    return (await calls.call('tabs.get', [id])).ok ? fail(`wrtui sees tab ${id} only in its traffic: it cannot act on it`) : fail(dialect.noTab(id));
  };
  return {
    lacks: attached ? 'wrtui knows the tabs of the browser it started (attached), and tabs other clients\' traffic shows' : 'wrtui knows tabs only from the traffic it sees',
    eventNotes: attached ? attachedEventNotes(ATTACHED_TAB_EVENTS, "tabs") : { onCreated: 'it fires when a request opens a tab wrtui had not seen, before that request\'s onBeforeRequest' },
    constants: {
      TAB_ID_NONE: -1,
      TAB_INDEX_NONE: -1,
      MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND: 2,
      SPLIT_VIEW_ID_NONE: -1,
      TabStatus: { UNLOADED: 'unloaded', LOADING: 'loading', COMPLETE: 'complete' },
      WindowType: WINDOW_TYPE,
      MutedInfoReason: { USER: 'user', CAPTURE: 'capture', EXTENSION: 'extension' },
      ZoomSettingsMode: { AUTOMATIC: 'automatic', MANUAL: 'manual', DISABLED: 'disabled' },
      ZoomSettingsScope: { PER_ORIGIN: 'per-origin', PER_TAB: 'per-tab' },
    },
    events: ['onActivated', 'onAttached', 'onCreated', 'onDetached', 'onHighlighted', 'onMoved', 'onRemoved', 'onReplaced', 'onUpdated', 'onZoomChange'],
    methods: {
      query: (args) => host('query', args),
      get: ([tabId]) => (typeof tabId === 'number' ? host('get', [tabId]) : fail(`Error in invocation of tabs.get(integer tabId, optional function callback): No matching signature.`)),
      getCurrent: () => ok(undefined),
      create: actOn('create', () => fail(`${NO_TABS}: nothing was opened`)),
      duplicate: noTab,
      // MV2's way into a page, in Chrome and Firefox (MV3 moved it to chrome.scripting): no content script runs in wrtui.
      ...(manifestVersion === 2 && { executeScript: noTab, insertCSS: noTab, removeCSS: noTab }),
      update: actOn('update', noTab),
      reload: actOn('reload', noTab),
      remove: actOn('remove', noTab),
      discard: noTab,
      goBack: noTab,
      goForward: noTab,
      move: noTab,
      detectLanguage: noTab,
      getZoom: noTab,
      setZoom: noTab,
      getZoomSettings: noTab,
      setZoomSettings: noTab,
      captureVisibleTab: () => fail(`${NO_TABS}: there is nothing to capture`),
      highlight: () => fail(`${NO_TABS}: there is nothing to highlight`),
      group: noTab,
      ungroup: noTab,
      createSplit: noTab,
      unsplit: noTab,
      sendMessage: () => fail(NO_CONNECTION),
    },
  };
}

function windowsSurface(dialect: SurfaceDialect, attached: HostCalls | undefined): Surface {
  const noWindow: Method = ([windowId]) => fail(dialect.noWindow(windowId));
  // Under `wrtui browser`, the attached browser's one window (attached-windows.ts).
  const orAttached = (method: string, none: Method): Method => (attached ? (args) => answerWindows(attached, method, args, () => none(args) as Answer) : none);
  return {
    lacks: attached ? "wrtui knows the attached browser's window, as one window of its tabs; nothing else opens windows" : 'wrtui has no windows',
    ...(attached && { eventNotes: attachedEventNotes(ATTACHED_WINDOW_EVENTS, 'window') }),
    constants: {
      WINDOW_ID_NONE: -1,
      WINDOW_ID_CURRENT: -2,
      WindowType: WINDOW_TYPE,
      WindowState: { NORMAL: 'normal', MINIMIZED: 'minimized', MAXIMIZED: 'maximized', FULLSCREEN: 'fullscreen', LOCKED_FULLSCREEN: 'locked-fullscreen' },
      CreateType: { NORMAL: 'normal', POPUP: 'popup', PANEL: 'panel' },
    },
    events: dialect.windowEvents,
    methods: {
      get: orAttached('get', noWindow),
      getAll: orAttached('getAll', () => ok([])),
      getCurrent: orAttached('getCurrent', () => fail('No current window')),
      getLastFocused: orAttached('getLastFocused', () => fail('No last-focused window')),
      create: () => fail(`${NO_TABS}: nothing was opened`),
      update: noWindow,
      remove: noWindow,
    },
  };
}

/** chrome.commands: the manifest's commands, with no shortcut a proxy could press. */
function commandsSurface(manifest: Record<string, unknown>, localize: (text: string) => string, dialect: SurfaceDialect): Surface {
  const declared = isObject(manifest.commands) ? manifest.commands : {};
  // Chrome lists the toolbar button's own command first (checked on Chromium 156).
  const button = isObject(manifest.action) ? '_execute_action' : isObject(manifest.browser_action) ? '_execute_browser_action' : isObject(manifest.page_action) ? '_execute_page_action' : undefined;
  const commands = [
    ...(dialect.listsActionCommand && button !== undefined && !(button in declared) ? [{ name: button, description: '', shortcut: '' }] : []),
    ...Object.entries(declared).map(([name, command]) => ({
      name,
      description: localize(isObject(command) && typeof command.description === 'string' ? command.description : ''),
      shortcut: '',
    })),
  ];
  return {
    lacks: 'wrtui has no keyboard shortcuts',
    events: ['onCommand'],
    methods: { getAll: () => ok(commands.map((command) => ({ ...command }))) },
  };
}

function webNavigationSurface(dialect: SurfaceDialect, attached: boolean): Surface {
  const frames: Method = ([details]) => (dialect.framesOfMissingTabFail ? fail(dialect.noTab((details as { tabId?: unknown } | undefined)?.tabId)) : ok(null));
  return {
    lacks: attached ? 'wrtui hears the navigations of the browser it started (attached), not those of other clients' : 'wrtui sees requests, not navigations in tabs',
    ...(attached && { eventNotes: attachedEventNotes(ATTACHED_NAVIGATION_EVENTS, 'navigations') }),
    constants: {
      TransitionType: Object.fromEntries(['link', 'typed', 'auto_bookmark', 'auto_subframe', 'manual_subframe', 'generated', 'start_page', 'form_submit', 'reload', 'keyword', 'keyword_generated'].map((value) => [value.toUpperCase(), value])),
      TransitionQualifier: Object.fromEntries(['client_redirect', 'server_redirect', 'forward_back', 'from_address_bar'].map((value) => [value.toUpperCase(), value])),
    },
    events: ['onBeforeNavigate', 'onCommitted', 'onCompleted', 'onCreatedNavigationTarget', 'onDOMContentLoaded', 'onErrorOccurred', 'onHistoryStateUpdated', 'onReferenceFragmentUpdated', 'onTabReplaced'],
    methods: { getFrame: frames, getAllFrames: frames },
  };
}

/** A granted namespace wrtui knows nothing of (downloads, history, idle, …). */
function genericSurface(name: string): Surface {
  return { lacks: `wrtui has no ${name}`, events: [], methods: {} };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A Port with no other end (runtime.connect, tabs.connect): it disconnects on the next turn saying
 * "Could not establish connection. Receiving end does not exist." in runtime.lastError (Chromium
 * 156) or on `port.error` (Firefox, `errorOnPort`); posting to it does nothing.
 */
export function disconnectedPort(name: string, lastError: RuntimeState, onError: OnError, later: (run: () => void) => void, errorOnPort: boolean): object {
  const onDisconnect = new SimpleEvent('Port.onDisconnect', onError, { counted: false });
  const onMessage = new SimpleEvent('Port.onMessage', onError, { counted: false });
  let connected = true;
  const port: Record<string, unknown> = {
    name,
    sender: undefined,
    onDisconnect,
    onMessage,
    postMessage: () => {},
    disconnect: () => {
      connected = false;
    },
  };
  if (errorOnPort) port.error = null;
  later(() => {
    if (!connected) return;
    if (!errorOnPort) return lastError.deliver(NO_CONNECTION, () => void onDisconnect.dispatch(port));
    port.error = new Error(NO_CONNECTION);
    onDisconnect.dispatch(port);
  });
  return port;
}
