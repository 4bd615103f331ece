// `wrtui browser --firefox` asks the Firefox it started what each request is, over WebDriver BiDi
// (bidi-socket.ts). Every browsing context is a frame (a top-level one is a tab);
// network.beforeRequestSent names a request's context, its fetch destination and initiator type,
// and whether it is a navigation. Each report goes to the proxy's BrowserToldRequests in the terms
// Firefox's own webRequest uses (type, frameId 0 for a tab's top frame, originUrl, documentUrl,
// frameAncestors, thirdParty).
//
// What is not exact, and why:
// - Tab and subframe ids are wrtui's numbers (BiDi names contexts by opaque ids); the tree is Firefox's.
// - A navigation's originUrl is the document that was in the frame when its Referer says the page
//   navigated itself (BiDi does not name a navigation's triggering document); a navigation without
//   a Referer (typed, or from wrtui) has none, as Firefox reports a navigation the user started.
// - A request BiDi gives no destination and no initiator type for (a beacon, a plugin's) keeps the
//   inferred type unless its method and headers say it: a bodied POST with no initiator type is a beacon.
import type { ToldRequest } from '../engine/capture/browser-told.js';
import { siteOf } from '../engine/personas/request-context.js';
import type { ResourceType } from '../engine/types.js';
import type { NavigationEvent } from '../engine/web-request/lifecycle.js';
import type { BidiEvent, BidiSocket } from './bidi-socket.js';
import type { BrowserAttachment, BrowserTab, ChromiumAttachOptions } from './chromium-attach.js';

/** The BiDi events the attachment reads. */
export const FIREFOX_ATTACH_EVENTS = [
  'network.beforeRequestSent',
  'browsingContext.contextCreated',
  'browsingContext.contextDestroyed',
  'browsingContext.navigationStarted',
  'browsingContext.navigationCommitted',
  'browsingContext.domContentLoaded',
  'browsingContext.load',
];

/** Fetch's request destination → Firefox's webRequest type; '' (fetch, XHR, beacon) is decided by the initiator type. */
const TYPE_BY_DESTINATION: Readonly<Record<string, ResourceType | undefined>> = {
  script: 'script',
  worker: 'script',
  sharedworker: 'script',
  serviceworker: 'script',
  paintworklet: 'script',
  audioworklet: 'script',
  style: 'stylesheet',
  image: 'image',
  font: 'font',
  audio: 'media',
  video: 'media',
  track: 'media',
  object: 'object',
  embed: 'object',
  report: 'csp_report',
  manifest: 'web_manifest',
  xslt: 'xslt',
};

interface Frame {
  /** webRequest's frame id: 0 for a tab's top frame. */
  id: number;
  /** The parent context's id (undefined: a tab's top frame). */
  parent: string | undefined;
  tabId: number;
  /** The current document's URL (the latest navigation's, once it starts). */
  url: string;
  /** The scripts of the dedicated workers it started: their requests are theirs, not the document's. */
  workers?: Set<string>;
}

interface BeforeRequestSent {
  context: string | null;
  navigation: string | null;
  redirectCount: number;
  request: { url: string; method: string; headers?: { name: string; value: { type: string; value: string } }[]; destination?: string; initiatorType?: string | null; bodySize?: number | null };
}

export class FirefoxAttachment implements BrowserAttachment {
  readonly #bidi: BidiSocket;
  readonly #options: ChromiumAttachOptions;
  readonly #frames = new Map<string, Frame>();
  readonly #tabs = new Map<string, BrowserTab>();
  #nextFrameId = 1;
  /** Reports sent, for the benchmark and the status log. */
  reported = 0;

  constructor(bidi: BidiSocket, options: ChromiumAttachOptions) {
    this.#bidi = bidi;
    this.#options = options;
    options.onAttachment?.(this);
    bidi.on('event', (event) => {
      try {
        this.#event(event);
      } catch {
        // A report wrtui cannot read costs that request its exact context, nothing more.
      }
    });
  }

  /** Listens to every context's network and navigations; the contexts already open become tabs and frames. */
  async start(): Promise<void> {
    await this.#bidi.send('session.subscribe', { events: FIREFOX_ATTACH_EVENTS });
    const { contexts } = (await this.#bidi.send('browsingContext.getTree', {})) as { contexts: ContextInfo[] };
    const walk = (context: ContextInfo, parent: string | null) => {
      this.#contextCreated({ ...context, parent });
      for (const child of context.children ?? []) walk(child, context.context);
    };
    for (const context of contexts) walk(context, null);
  }

  /** The tabs the browser has open, oldest first. */
  tabs(): BrowserTab[] {
    return [...this.#tabs.values()].sort((a, b) => a.id - b.id);
  }

  async openTab(url: string): Promise<number> {
    const { context } = (await this.#bidi.send('browsingContext.create', { type: 'tab', background: false })) as { context: string };
    // The event may come after the answer: the tab is told from whichever comes first.
    this.#contextCreated({ context, parent: null, url: 'about:blank' });
    const tab = this.#tabs.get(context)!;
    await this.navigate(tab.id, url);
    return tab.id;
  }

  async closeTab(tabId: number): Promise<void> {
    await this.#bidi.send('browsingContext.close', { context: this.#contextOf(tabId) });
    // As tabs.remove: done once the tab is gone (onRemoved told), not when asked.
    const context = this.#contextOf(tabId, false);
    for (let waited = 0; waited < 10_000 && context !== undefined && this.#tabs.has(context); waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  async navigate(tabId: number, url: string): Promise<void> {
    await this.#bidi.send('browsingContext.navigate', { context: this.#contextOf(tabId), url, wait: 'none' });
  }

  async reload(tabId: number): Promise<void> {
    await this.#bidi.send('browsingContext.reload', { context: this.#contextOf(tabId), wait: 'none' });
  }

  #contextOf(tabId: number, required = true): string {
    const found = [...this.#tabs.values()].find((tab) => tab.id === tabId);
    if (!found && required) throw new Error(`no tab ${tabId}`);
    return found?.targetId ?? '';
  }

  #event({ method, params }: BidiEvent): void {
    switch (method) {
      case 'browsingContext.contextCreated':
        return this.#contextCreated(params as unknown as ContextInfo);
      case 'browsingContext.contextDestroyed':
        return this.#contextDestroyed(params as unknown as ContextInfo);
      case 'browsingContext.navigationStarted':
        return this.#navigation('onBeforeNavigate', String(params.context), String(params.url));
      case 'browsingContext.navigationCommitted':
        return this.#committed(String(params.context), String(params.url));
      case 'browsingContext.domContentLoaded':
        return this.#navigation('onDOMContentLoaded', String(params.context), String(params.url));
      case 'browsingContext.load':
        return this.#navigation('onCompleted', String(params.context), String(params.url));
      case 'network.beforeRequestSent':
        return this.#beforeRequestSent(params as unknown as BeforeRequestSent);
    }
  }

  #contextCreated(info: ContextInfo): void {
    if (this.#frames.has(info.context)) return;
    if (info.parent === null || info.parent === undefined) {
      const tabId = this.#options.newTabId();
      const tab: BrowserTab = { id: tabId, targetId: info.context, url: info.url, title: '' };
      this.#frames.set(info.context, { id: 0, parent: undefined, tabId, url: info.url });
      this.#tabs.set(info.context, tab);
      this.#options.onTab?.('created', tab);
      return;
    }
    const parent = this.#frames.get(info.parent);
    this.#frames.set(info.context, { id: this.#nextFrameId++, parent: info.parent, tabId: parent?.tabId ?? -1, url: info.url });
  }

  #contextDestroyed(info: ContextInfo): void {
    const forget = (context: string) => {
      this.#frames.delete(context);
      for (const [id, frame] of this.#frames) if (frame.parent === context) forget(id);
    };
    forget(info.context);
    const tab = this.#tabs.get(info.context);
    if (!tab) return;
    this.#tabs.delete(info.context);
    this.#options.onTab?.('removed', tab);
  }

  #committed(context: string, url: string): void {
    const frame = this.#frames.get(context);
    if (!frame) return;
    frame.url = url;
    const tab = this.#tabs.get(context);
    if (tab && tab.url !== url) {
      tab.url = url;
      this.#options.onTab?.('updated', tab);
    }
    this.#navigation('onCommitted', context, url);
  }

  /** webNavigation's event for a frame wrtui knows, with Firefox's details. */
  #navigation(event: NavigationEvent, context: string, url: string): void {
    const frame = this.#frames.get(context);
    if (!frame || !this.#options.onNavigation || frame.tabId === -1 || !/^(https?|about|data|file):/i.test(url)) return;
    const parent = frame.parent !== undefined ? this.#frames.get(frame.parent) : undefined;
    this.#options.onNavigation(event, {
      tabId: frame.tabId,
      frameId: frame.id,
      parentFrameId: parent?.id ?? -1,
      url,
      timeStamp: Date.now(),
      ...(event === 'onCommitted' && { transitionType: frame.parent === undefined ? 'link' : 'auto_subframe', transitionQualifiers: [] }),
    });
  }

  #beforeRequestSent(event: BeforeRequestSent): void {
    const { request } = event;
    if (!/^(https?|wss?):/i.test(request.url)) return; // only what goes through the proxy
    const frame = event.context !== null ? this.#frames.get(event.context) : undefined;
    if (!frame) return; // a context wrtui never saw (a service worker's, the browser's own): inference decides
    this.reported++;
    const ancestors = this.#ancestors(frame);
    const tell = (told: Omit<ToldRequest, 'method' | 'url' | 'tabId'>) => this.#options.tell({ method: request.method, url: request.url, tabId: frame.tabId, ...told });
    const destination = request.destination ?? '';

    if (event.navigation !== null || destination === 'document' || destination === 'iframe' || destination === 'frame') {
      if (frame.parent === undefined) {
        // The document that navigated itself, when its Referer says it did (a typed URL sends none).
        const referer = headerOf(request, 'referer');
        const originUrl = event.redirectCount === 0 && referer !== undefined ? (sameOrigin(referer, frame.url) ? frame.url : referer) : undefined;
        if (event.redirectCount === 0) frame.url = request.url;
        return tell({ type: 'main_frame', frameId: 0, parentFrameId: -1, frameType: 'outermost_frame', documentLifecycle: 'active', thirdParty: false, frameAncestors: [], ...(originUrl !== undefined && { originUrl, initiator: originOf(originUrl) }) });
      }
      frame.url = request.url;
      const parent = ancestors[0];
      return tell({
        type: 'sub_frame',
        frameId: frame.id,
        parentFrameId: parent?.frameId ?? 0,
        frameType: 'sub_frame',
        documentLifecycle: 'active',
        ...(parent && { documentUrl: parent.url, originUrl: parent.url, initiator: originOf(parent.url) }),
        frameAncestors: ancestors,
        thirdParty: ancestors.some((ancestor) => siteOf(ancestor.url) !== siteOf(request.url)),
      });
    }
    const parent = ancestors[0];
    const type = TYPE_BY_DESTINATION[destination] ?? typeOfUndestined(request);
    if (destination === 'worker') (frame.workers ??= new Set()).add(request.url);
    // A dedicated worker's requests come in its page's context; Firefox reports them with the
    // worker's script as their document and origin. BiDi does not say which: the Referer does
    // (a worker's is its script's URL, whole when same-origin).
    const referer = headerOf(request, 'referer');
    const documentUrl = referer !== undefined && frame.workers?.has(referer) ? referer : frame.url;
    tell({
      ...(type && { type }),
      frameId: frame.id,
      parentFrameId: parent?.frameId ?? -1,
      frameType: frame.parent === undefined ? 'outermost_frame' : 'sub_frame',
      documentLifecycle: 'active',
      documentUrl,
      originUrl: documentUrl,
      initiator: originOf(documentUrl),
      frameAncestors: ancestors,
      thirdParty: [frame.url, ...ancestors.map((ancestor) => ancestor.url)].some((url) => siteOf(url) !== siteOf(request.url)),
    });
  }

  /** The frame's ancestors, parent first, as Firefox's frameAncestors. */
  #ancestors(frame: Frame): { url: string; frameId: number }[] {
    const list: { url: string; frameId: number }[] = [];
    for (let parent = frame.parent !== undefined ? this.#frames.get(frame.parent) : undefined; parent; parent = parent.parent !== undefined ? this.#frames.get(parent.parent) : undefined) {
      list.push({ url: parent.url, frameId: parent.id });
    }
    return list;
  }
}

interface ContextInfo {
  context: string;
  parent?: string | null;
  url: string;
  children?: ContextInfo[] | null;
}

/** A request with no destination: fetch and XHR say so by their initiator type; a beacon by its method. */
function typeOfUndestined(request: BeforeRequestSent['request']): ResourceType | undefined {
  const initiator = request.initiatorType ?? null;
  if (initiator === 'fetch' || initiator === 'xmlhttprequest' || initiator === 'eventsource') return 'xmlhttprequest';
  if (initiator === 'beacon') return 'beacon';
  if (initiator === null && request.method === 'POST') return headerOf(request, 'content-type') === 'text/ping' ? 'ping' : 'beacon';
  return undefined;
}

function headerOf(request: BeforeRequestSent['request'], name: string): string | undefined {
  for (const header of request.headers ?? []) if (header.name.toLowerCase() === name && header.value.type === 'string') return header.value.value;
  return undefined;
}

function sameOrigin(a: string, b: string): boolean {
  return originOf(a) === originOf(b);
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}
