// The tabs, windows and navigation events extensions hear: tabs counted from traffic
// (tabs.onCreated), and, while a browser wrtui started is attached (`wrtui browser`,
// lifecycle.tabControl set), that browser's tabs changing and closing, its navigations, which tab is
// active, and its one window appearing and closing (windows.onCreated, onFocusChanged, onRemoved),
// in Chrome's order: the window before its first tab, the tab before its activation, the last tab's
// onRemoved (isWindowClosing) before the window's.
import type { Engine } from '../engine.js';
import type { Owner } from '../owner.js';
import { TabWindows, tabObject } from './known-tabs.js';
import { ATTACHED_WINDOW_ID, attachedWindowObject } from './worker/attached-windows.js';

/** A live extension's worker, as the events need it. */
export interface TabEventListener {
  worker: { tabCreated(tab: Record<string, unknown>): void; surfaceEvent(event: string, args: unknown[]): void };
  owner: Owner;
}

export class BrowserTabEvents {
  readonly #engine: Engine;
  readonly #listeners: () => Iterable<TabEventListener>;
  /** The attached browser's active tab, as extensions last heard it (tabs.onActivated). */
  #activeTab: number | undefined;
  /** Extensions heard windows.onCreated and not yet onRemoved. */
  #windowOpen = false;

  constructor(engine: Engine, listeners: () => Iterable<TabEventListener>) {
    this.#engine = engine;
    this.#listeners = listeners;
  }

  /** Sets the lifecycle's tab and navigation hooks. */
  wire(): void {
    const { lifecycle } = this.#engine;
    lifecycle.onTabCreated = (tab) => {
      const attached = lifecycle.tabControl !== undefined;
      if (attached && !this.#windowOpen) {
        this.#windowOpen = true;
        this.#tell('windows.onCreated', [attachedWindowObject()]);
      }
      // Every live extension hears of a tab (one counted from traffic too), as its permissions let it see the tab.
      const windows = new TabWindows(lifecycle.documents.tabs());
      for (const { worker, owner } of this.#listeners()) worker.tabCreated(tabObject(tab, windows, owner));
      // An attached browser's new tab comes to the front (known-tabs.ts: the newest tab is the active one), as Chrome's do.
      if (attached) this.#activated(true);
    };
    lifecycle.onTabUpdated = (tab) => {
      const windows = new TabWindows(lifecycle.documents.tabs());
      for (const { worker, owner } of this.#listeners()) {
        const shown = tabObject(tab, windows, owner);
        worker.surfaceEvent('tabs.onUpdated', [tab.id, { status: shown.status, ...(shown.url !== undefined && { url: shown.url }) }, shown]);
      }
    };
    // The attached browser's navigations, to extensions with the webNavigation permission.
    lifecycle.onNavigation = (event, details) => {
      for (const { worker, owner } of this.#listeners()) if (owner.permissions.has('webNavigation')) worker.surfaceEvent(`webNavigation.${event}`, [details]);
    };
    lifecycle.onTabRemoved = (tabId) => {
      const closing = lifecycle.tabControl !== undefined && this.#windowOpen && this.#browserTabs().length === 0;
      this.#tell('tabs.onRemoved', [tabId, { windowId: ATTACHED_WINDOW_ID, isWindowClosing: closing }]);
      if (closing) {
        this.#windowOpen = false;
        this.#activeTab = undefined;
        this.#tell('windows.onRemoved', [ATTACHED_WINDOW_ID]);
        this.#tell('windows.onFocusChanged', [-1]);
      } else if (lifecycle.tabControl) {
        this.#activated(false);
      }
    };
  }

  #browserTabs() {
    return this.#engine.lifecycle.documents.tabs().filter((tab) => tab.storeId === '0');
  }

  /** tabs.onActivated when the active tab is another than extensions last heard; the window's focus with a new window's first tab. */
  #activated(created: boolean): void {
    const all = this.#browserTabs();
    const windows = new TabWindows(all);
    const active = all.find((tab) => windows.isActive(tab));
    if (!active || active.id === this.#activeTab) return;
    const first = this.#activeTab === undefined;
    this.#activeTab = active.id;
    this.#tell('tabs.onActivated', [{ tabId: active.id, windowId: ATTACHED_WINDOW_ID }]);
    if (created && first) this.#tell('windows.onFocusChanged', [ATTACHED_WINDOW_ID]);
  }

  #tell(event: string, args: unknown[]): void {
    for (const { worker } of this.#listeners()) worker.surfaceEvent(event, args);
  }
}
