// chrome.tabs.get / tabs.query answered with the tabs wrtui counted from traffic (request-context.ts):
// a request's details.tabId names a tab an extension can look up, as in a browser. A tab is what
// Chromium 156 reports for a loaded page, as far as a proxy knows it: its URL is its latest
// top-level document's (with pendingUrl and status "loading" while a navigation in it has not
// answered yet), it is unmuted, unpinned, in window 1 (2 for the incognito port);
// the latest tab of each window is the active one. Its url and title are given only with the
// "tabs" permission or a host permission for its URL, as Chrome gives them. Under the firefox
// persona it also has Firefox's cookieStoreId.
import { MatchPatternSet } from '../match-pattern.js';
import type { Owner } from '../owner.js';
import type { DocumentTracker, KnownTab } from '../personas/request-context.js';
import type { SurfaceDialect } from '../personas/persona.js';
import type { BrowserTabControl } from '../web-request/lifecycle.js';

/** Where each tab stands in its window: its index, and the window's newest (active) tab. Made once per answer. */
export class TabWindows {
  readonly #index = new Map<number, number>();
  readonly #newest = new Map<string, KnownTab>();

  constructor(all: readonly KnownTab[]) {
    const counts = new Map<string, number>();
    for (const tab of all) {
      const index = counts.get(tab.storeId) ?? 0;
      counts.set(tab.storeId, index + 1);
      this.#index.set(tab.id, index);
      const newest = this.#newest.get(tab.storeId);
      if (!newest || tab.lastAccessed >= newest.lastAccessed) this.#newest.set(tab.storeId, tab);
    }
  }

  index(tab: KnownTab): number {
    return this.#index.get(tab.id) ?? 0;
  }

  isActive(tab: KnownTab): boolean {
    return this.#newest.get(tab.storeId)?.id === tab.id;
  }
}

export function tabObject(tab: KnownTab, windows: TabWindows, owner: Owner): Record<string, unknown> {
  const windowId = tab.storeId === '1' ? 2 : 1;
  const active = windows.isActive(tab);
  const mayRead = owner.permissions.has('tabs') || owner.hostPermissions.matches(tab.url);
  return {
    active,
    audible: false,
    autoDiscardable: true,
    discarded: false,
    frozen: false,
    groupId: -1,
    height: 600,
    highlighted: active,
    id: tab.id,
    incognito: tab.storeId === '1',
    index: windows.index(tab),
    lastAccessed: tab.lastAccessed,
    mutedInfo: { muted: false },
    pinned: false,
    selected: active,
    status: tab.pendingUrl === undefined ? 'complete' : 'loading',
    width: 800,
    windowId,
    ...(mayRead && { url: tab.url, title: tab.url, ...(tab.pendingUrl !== undefined && { pendingUrl: tab.pendingUrl }) }),
    // Firefox's Tab names its cookie store (no containers here), as its webRequest details do; Lightbeam checks it.
    ...(owner.persona.name === 'firefox' && { cookieStoreId: tab.storeId === '1' ? 'firefox-private' : 'firefox-default' }),
  };
}

/** The worker's word that no browser is attached: it answers as it did before (surfaces). */
export const NO_TAB_CONTROL = 'no browser attached';

/**
 * tabs.create/update/remove/reload on the attached browser (`wrtui browser`), answered as Chrome
 * answers them: the new or changed Tab, nothing for remove and reload.
 */
export async function actOnTabs(control: BrowserTabControl | undefined, documents: DocumentTracker, owner: Owner, dialect: SurfaceDialect, method: string, args: unknown[]): Promise<unknown> {
  if (!control) throw new Error(NO_TAB_CONTROL);
  const known = (id: unknown): number => {
    if (typeof id !== 'number' || !documents.tab(id)) throw new Error(dialect.noTab(id));
    return id;
  };
  const props = (value: unknown) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});
  const shown = (id: number) => {
    const tab = documents.tab(id);
    return tab ? tabObject(tab, new TabWindows(documents.tabs()), owner) : undefined;
  };
  switch (method) {
    case 'create': {
      const url = props(args[0]).url;
      return shown(await control.create(typeof url === 'string' ? url : undefined));
    }
    case 'update': {
      // update(tabId?, props): without an id, the active tab.
      const [id, properties] = typeof args[0] === 'number' ? [known(args[0]), props(args[1])] : [newestTab(documents), props(args[0])];
      if (typeof properties.url === 'string') await control.navigate(id, properties.url);
      return shown(id);
    }
    case 'reload':
      return void (await control.reload(typeof args[0] === 'number' ? known(args[0]) : newestTab(documents)));
    case 'remove':
      for (const id of Array.isArray(args[0]) ? args[0] : [args[0]]) await control.remove(known(id));
      return undefined;
  }
  throw new Error(`tabs.${method} is not supported`);
}

function newestTab(documents: DocumentTracker): number {
  const all = documents.tabs();
  const newest = all.reduce<KnownTab | undefined>((best, tab) => (best && best.lastAccessed >= tab.lastAccessed ? best : tab), undefined);
  if (!newest) throw new Error('No current tab');
  return newest.id;
}

/** tabs.get(id) and tabs.query(queryInfo) for `owner`; throws with the persona's words for a tab that is not there. */
export function answerTabs(documents: DocumentTracker, owner: Owner, dialect: SurfaceDialect, method: string, args: unknown[]): unknown {
  const all = documents.tabs();
  const windows = new TabWindows(all);
  if (method === 'get') {
    const tab = typeof args[0] === 'number' ? documents.tab(args[0]) : undefined;
    if (!tab) throw new Error(dialect.noTab(args[0]));
    return tabObject(tab, windows, owner);
  }
  if (method === 'query') {
    const query = (typeof args[0] === 'object' && args[0] !== null ? args[0] : {}) as Record<string, unknown>;
    const urls = query.url === undefined ? undefined : new MatchPatternSet((Array.isArray(query.url) ? query.url : [query.url]).map(String));
    return all
      .map((tab) => tabObject(tab, windows, owner))
      .filter((tab) => {
        for (const key of ['active', 'highlighted', 'pinned', 'audible', 'discarded', 'status', 'windowId', 'index', 'incognito'] as const) {
          if (query[key] !== undefined && query[key] !== tab[key] && !(key === 'windowId' && query[key] === -2)) return false;
        }
        if ((query.currentWindow === true || query.lastFocusedWindow === true) && tab.windowId !== 1) return false;
        // A URL pattern needs the right to read the URL, as in Chrome.
        if (urls && (tab.url === undefined || !urls.matches(tab.url as string))) return false;
        return true;
      });
  }
  throw new Error(`tabs.${method} is not supported`);
}
