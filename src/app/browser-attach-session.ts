// Where an attached browser's reports go in a capture session: its requests' context to the proxy
// (which matches each to the request it receives), its tabs to the lifecycle's tab list, which
// tabs.query/get answer from and whose changes extensions hear (tabs.onCreated/onUpdated/onRemoved).
import { BrowserToldRequests } from '../engine/capture/browser-told.js';
import type { CaptureProxy } from '../engine/capture/capture-proxy.js';
import type { Engine } from '../engine/engine.js';
import type { BrowserTabControl } from '../engine/web-request/lifecycle.js';
import type { BrowserAttachment, ChromiumAttachOptions } from './chromium-attach.js';

/** The attach options for a browser browsing through `proxy` (cookie store "0"); extensions may act on its tabs. */
export function attachOptions(proxy: CaptureProxy, engine: Engine): ChromiumAttachOptions {
  const told = (proxy.browserTold ??= new BrowserToldRequests());
  const { lifecycle } = engine;
  return {
    tell: (request) => told.told(request),
    newTabId: () => lifecycle.documents.newTab(),
    onNavigation: (event, details) => lifecycle.onNavigation?.(event, details),
    // Set before the first tab is told: an extension may act on it as soon as it hears of it.
    onAttachment: (attachment) => (lifecycle.tabControl = tabControlOf(attachment)),
    onTab: (event, tab) => {
      if (event === 'created') {
        const known = lifecycle.documents.opened(tab.id, tab.url === 'about:blank' ? '' : tab.url);
        if (known) lifecycle.onTabCreated?.(known);
      } else if (event === 'updated') {
        const known = lifecycle.documents.updated(tab.id, tab.url);
        if (known) lifecycle.onTabUpdated?.(known);
      } else if (lifecycle.documents.closed(tab.id)) {
        lifecycle.onTabRemoved?.(tab.id);
      }
    },
  };
}

/** Lets extensions act on the attached browser's tabs (tabs.create/update/remove/reload). */
export function tabControlOf(attachment: BrowserAttachment): BrowserTabControl {
  return {
    create: (url) => attachment.openTab(url ?? 'about:blank'),
    navigate: (tabId, url) => attachment.navigate(tabId, url),
    reload: (tabId) => attachment.reload(tabId),
    remove: (tabId) => attachment.closeTab(tabId),
  };
}
