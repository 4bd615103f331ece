// An extension's toolbar button (action, browserAction; pageAction's shared members): its title,
// popup, badge text and colours, kept as a browser keeps them, though wrtui shows no toolbar. A
// value set with a tabId is that tab's and wins over the button's own for it, as in Chromium 156,
// for any tab tabs.get knows (the attached browser's under `wrtui browser`, or one seen in
// traffic); a tab it does not know fails with the persona's "No tab with id". A tab's values are
// forgotten when its top frame loads a new document or it closes (Chromium's TabHelper clears them
// on every committed cross-document navigation of the tab). The badge text, the button's and each
// tab's, goes to the host (['badge', …]): the TUI shows an extension's badge for a request's tab
// (uBlock Origin's per-tab blocked count).
import type { SurfaceDialect } from '../../personas/persona.js';
import type { HostCalls } from './host-calls.js';

export type Answer = { ok: true; value: unknown; note?: string } | { ok: false; error: string };
export type Method = (args: unknown[]) => Answer | Promise<Answer>;

const ok = (value?: unknown, note?: string): Answer => (note === undefined ? { ok: true, value } : { ok: true, value, note });
const fail = (error: string): Answer => ({ ok: false, error });

interface ButtonValues {
  title: string;
  popup: string;
  text: string;
  background: unknown;
  textColor: unknown;
  enabled: boolean;
}

export interface ToolbarButtonOptions {
  /** action, browserAction or pageAction: the name its errors give. */
  name: string;
  declared: Record<string, unknown>;
  manifestName: string;
  baseUrl: string;
  dialect: SurfaceDialect;
  /** tabs.get on the host: whether a tab id names a tab. */
  calls: HostCalls;
  /** The badge's text changed: the button's own, and each tab's that has one. */
  onBadge: (text: string, byTab: Record<number, string>) => void;
  /** Firefox's and MV3's extra getters and setters (badge text colour, isEnabled, openPopup, getUserSettings). */
  extra: boolean;
  /** What openPopup answers (there is no window to open it in). */
  noPopup: string;
}

export interface ToolbarButton {
  lacks: string;
  events: readonly string[];
  methods: Record<string, Method>;
  /** The tab loaded a new document or closed: its own values are gone. */
  forgetTab(tabId: number): void;
}

export function toolbarButton(options: ToolbarButtonOptions): ToolbarButton {
  const { name, declared, dialect } = options;
  const button: ButtonValues = {
    title: typeof declared.default_title === 'string' ? declared.default_title : options.manifestName,
    popup: typeof declared.default_popup === 'string' ? new URL(declared.default_popup, options.baseUrl).href : '',
    text: '',
    background: [...dialect.badgeBackground],
    textColor: [0, 0, 0, 0],
    enabled: true,
  };
  const byTab = new Map<number, Partial<ButtonValues>>();
  const badgeChanged = () => {
    const texts: Record<number, string> = {};
    for (const [tabId, values] of byTab) if (values.text !== undefined) texts[tabId] = values.text;
    options.onBadge(button.text, texts);
  };
  const knownTab = async (tabId: number) => (await options.calls.call('tabs.get', [tabId])).ok;

  const set = <K extends keyof ButtonValues>(key: K, value: (details: Record<string, unknown>) => ButtonValues[K]): Method => async ([details]) => {
    if (!isObject(details)) return fail(`Error in invocation of ${name}: the details must be an object`);
    const tabId = details.tabId;
    if (tabId !== undefined && tabId !== null) {
      if (typeof tabId !== 'number' || !(await knownTab(tabId))) return fail(dialect.noTab(tabId));
      byTab.set(tabId, { ...byTab.get(tabId), [key]: value(details) });
    } else {
      button[key] = value(details);
    }
    if (key === 'text') badgeChanged();
    return ok(undefined, 'kept (its getter gives it back), not shown');
  };
  const get = <K extends keyof ButtonValues>(key: K): Method => async ([details]) => {
    const tabId = isObject(details) ? details.tabId : undefined;
    if (tabId === undefined || tabId === null) return ok(button[key]);
    if (typeof tabId !== 'number' || !(await knownTab(tabId))) return fail(dialect.noTab(tabId));
    return ok(byTab.get(tabId)?.[key] ?? button[key]);
  };
  const enabled = (on: boolean): Method => async ([tabId]) => {
    if (typeof tabId !== 'number') return (button.enabled = on), ok();
    if (!(await knownTab(tabId))) return fail(dialect.noTab(tabId));
    byTab.set(tabId, { ...byTab.get(tabId), enabled: on });
    return ok();
  };
  const popupUrl = (details: Record<string, unknown>) => (details.popup ? new URL(String(details.popup), options.baseUrl).href : '');
  const methods: Record<string, Method> = {
    setTitle: set('title', (details) => String(details.title ?? '')),
    getTitle: get('title'),
    setIcon: async ([details]) => {
      if (!isObject(details)) return fail(`Error in invocation of ${name}: the details must be an object`);
      if (typeof details.tabId === 'number' && !(await knownTab(details.tabId))) return fail(dialect.noTab(details.tabId));
      return ok(undefined, 'not shown');
    },
    setPopup: set('popup', popupUrl),
    getPopup: get('popup'),
    setBadgeText: set('text', (details) => String(details.text ?? '')),
    getBadgeText: get('text'),
    setBadgeBackgroundColor: set('background', (details) => colorArray(details.color)),
    getBadgeBackgroundColor: get('background'),
    enable: enabled(true),
    disable: enabled(false),
  };
  if (options.extra) {
    Object.assign(methods, {
      setBadgeTextColor: set('textColor', (details) => colorArray(details.color)),
      getBadgeTextColor: get('textColor'),
      isEnabled: (async ([tabId]: unknown[]) => {
        if (typeof tabId !== 'number') return ok(button.enabled);
        if (!(await knownTab(tabId))) return fail(dialect.noTab(tabId));
        return ok(byTab.get(tabId)?.enabled ?? button.enabled);
      }) satisfies Method,
      openPopup: () => fail(options.noPopup),
      getUserSettings: () => ok({ isOnToolbar: false }),
    });
  }
  return {
    lacks: 'wrtui has no toolbar',
    events: options.extra ? ['onClicked', 'onUserSettingsChanged'] : ['onClicked'],
    methods,
    forgetTab: (tabId) => {
      const had = byTab.get(tabId)?.text !== undefined;
      byTab.delete(tabId);
      if (had) badgeChanged();
    },
  };
}

/** A badge colour as Chrome reports it: [r, g, b, a]. */
export function colorArray(color: unknown): unknown {
  if (Array.isArray(color)) return [...color];
  const hex = typeof color === 'string' ? /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color)?.[1] : undefined;
  if (!hex) return [0, 0, 0, 255];
  const full = hex.length === 3 ? [...hex].map((digit) => digit + digit).join('') : hex;
  return [0, 2, 4].map((at) => parseInt(full.slice(at, at + 2), 16)).concat(255);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
