// `wrtui browser` asks the Chromium it started what each request is, over the DevTools protocol
// (cdp-pipe.ts). Every page, frame (out-of-process iframes are targets of their own), worker and
// service worker is attached (Target.setAutoAttach, flat sessions, each held until its Network
// domain is on, so its first request is seen); Network.requestWillBeSent says a request's type,
// frame, document and initiator, the Page domain's frame events give the frame tree, and each
// page target is a tab. Each report goes to the proxy's BrowserToldRequests in webRequest's terms
// (frame ids as Chrome numbers them for extensions: 0 the top frame, a positive number a subframe).
//
// What is not exact, and why:
// - Frame and tab ids are wrtui's numbers (a tab from the session's counter, subframes from 1 in
//   the order they attach), not Chromium's internal ones: the protocol does not expose those. The
//   tree they describe is the browser's.
// - documentId is the protocol's loaderId of the document (a 32-hex token like Chrome's), not the
//   token Chrome gives extensions: equal for requests of one document, different across documents.
// - A request the protocol reports as "Other" (favicons, preflights, plugins) keeps the inferred type.
import type { ToldRequest } from '../engine/capture/browser-told.js';
import type { ResourceType } from '../engine/types.js';
import type { NavigationEvent } from '../engine/web-request/lifecycle.js';

/** webNavigation's events the attachment tells: lifecycle.ts's four, and those only an attached browser knows. */
export type BrowserNavigationEvent = NavigationEvent;
import type { CdpEvent, CdpPipe } from './cdp-pipe.js';

/** The events the attachment reads (cdp-pipe.ts leaves the others unparsed). */
export const ATTACH_EVENTS = [
  'Target.attachedToTarget',
  'Target.detachedFromTarget',
  'Target.targetInfoChanged',
  'Page.frameAttached',
  'Page.frameNavigated',
  'Page.frameStartedNavigating',
  'Page.domContentEventFired',
  'Page.frameStoppedLoading',
  'Page.navigatedWithinDocument',
  'Page.frameRequestedNavigation',
  'Network.requestWillBeSent',
  'Network.loadingFailed',
];

/** The kinds of target whose requests wrtui wants to know about. */
const ATTACHED_TYPES = new Set(['page', 'iframe', 'worker', 'shared_worker', 'service_worker']);

/** The protocol's Network.ResourceType → webRequest's type; undefined: wrtui's inference decides. */
const TYPE_BY_CDP: Readonly<Record<string, ResourceType | undefined>> = {
  Stylesheet: 'stylesheet',
  Image: 'image',
  Media: 'media',
  TextTrack: 'media',
  Font: 'font',
  Script: 'script',
  XHR: 'xmlhttprequest',
  Fetch: 'xmlhttprequest',
  EventSource: 'xmlhttprequest',
  Prefetch: 'other',
  WebSocket: 'websocket',
  Manifest: 'web_manifest',
  CSPViolationReport: 'csp_report',
};

interface Frame {
  /** webRequest's frame id: 0 for a tab's top frame. */
  id: number;
  parent: string | undefined;
  tabId: number;
  /** The current document's loader id and URL. */
  loaderId?: string;
  url?: string;
}

interface Session {
  type: string;
  targetId: string;
  tabId: number;
  /** For a dedicated worker: the frame that started it. */
  parentFrame?: string;
}

/** A tab as the browser shows it. */
export interface BrowserTab {
  id: number;
  targetId: string;
  url: string;
  title: string;
  openerTabId?: number;
}

/** What extensions' tabs calls act on: an attached browser, Chromium's (here) or Firefox's (firefox-attach.ts). */
export interface BrowserAttachment {
  tabs(): BrowserTab[];
  openTab(url: string): Promise<number>;
  closeTab(tabId: number): Promise<void>;
  navigate(tabId: number, url: string): Promise<void>;
  reload(tabId: number): Promise<void>;
}

/** What an attachment tells the session; the same for Chromium and Firefox. */
export interface ChromiumAttachOptions {
  /** Where the reports go (the proxy's BrowserToldRequests). */
  tell: (told: ToldRequest) => void;
  /** A new tab id (the session's counter, shared with tabs wrtui infers). */
  newTabId: () => number;
  /** A tab opened, changed (URL, title) or closed. */
  onTab?: (event: 'created' | 'updated' | 'removed', tab: BrowserTab) => void;
  /** A navigation in a frame: webNavigation's event and details, as Chrome gives them. */
  onNavigation?: (event: BrowserNavigationEvent, details: Record<string, unknown>) => void;
  /** The attachment exists (before its first tab is told): whoever acts on its tabs may hold it from now on. */
  onAttachment?: (attachment: BrowserAttachment) => void;
}

export class ChromiumAttachment implements BrowserAttachment {
  readonly #cdp: CdpPipe;
  readonly #options: ChromiumAttachOptions;
  readonly #sessions = new Map<string, Session>();
  readonly #frames = new Map<string, Frame>();
  readonly #tabs = new Map<string, BrowserTab>();
  /** Navigations under way (Network's requestId → the frame navigating and its URL), for onErrorOccurred. */
  readonly #navigating = new Map<string, { frameKey: string; url: string }>();
  /** How a top frame's next document came (webNavigation's transitionType), by frame: typed or reload when wrtui asked, else what the page did. */
  readonly #transitions = new Map<string, string>();
  /** Targets whose domains are on: their requests are reported. */
  readonly #ready = new Set<string>();
  #nextFrameId = 1;
  /** Reports sent, for the benchmark and the status log. */
  reported = 0;

  constructor(cdp: CdpPipe, options: ChromiumAttachOptions) {
    this.#cdp = cdp;
    this.#options = options;
    options.onAttachment?.(this);
    cdp.on('event', (event) => {
      try {
        this.#event(event);
      } catch {
        // A report wrtui cannot read costs that request its exact context, nothing more.
      }
    });
  }

  /** Attaches to every target there is and will be; resolves once the first page is attached and listening. */
  async start(): Promise<void> {
    const firstPage = new Promise<void>((resolve) => (this.#firstPage = resolve));
    await this.#cdp.send('Target.setDiscoverTargets', { discover: true });
    await this.#cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
    await firstPage;
  }

  #firstPage: (() => void) | undefined;

  /** The tabs the browser has open, oldest first. */
  tabs(): BrowserTab[] {
    return [...this.#tabs.values()].sort((a, b) => a.id - b.id);
  }

  /** Opens a new tab loading `url` (tabs.create); resolves with its tab id once it is attached. */
  async openTab(url: string): Promise<number> {
    // Blank first: a tab's first navigation starts in the browser at once, before wrtui could
    // listen to it; the page is loaded once the tab is watched.
    const { targetId } = (await this.#cdp.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    for (let waited = 0; waited < 10_000; waited += 20) {
      const tab = this.#tabs.get(targetId);
      if (tab && this.#ready.has(targetId)) {
        await this.navigate(tab.id, url);
        return tab.id;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`the browser opened ${url} in a tab wrtui never attached to`);
  }

  /** Closes the tab (tabs.remove). */
  async closeTab(tabId: number): Promise<void> {
    const tab = [...this.#tabs.values()].find((candidate) => candidate.id === tabId);
    if (!tab) throw new Error(`no tab ${tabId}`);
    await this.#cdp.send('Target.closeTarget', { targetId: tab.targetId });
    // As Chrome's tabs.remove: done once the tab is gone (onRemoved told), not when asked.
    for (let waited = 0; waited < 10_000 && this.#tabs.has(tab.targetId); waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Loads `url` in the tab (its top frame), as typing it would. */
  async navigate(tabId: number, url: string): Promise<void> {
    const session = this.#pageSession(tabId);
    // As typing it would: Chrome's transitionType "typed" (Page.navigate's default).
    this.#transitions.set(this.#sessions.get(session)!.targetId, 'typed');
    await this.#cdp.send('Page.navigate', { url }, session);
  }

  /** Reloads the tab's page. */
  async reload(tabId: number): Promise<void> {
    const session = this.#pageSession(tabId);
    this.#transitions.set(this.#sessions.get(session)!.targetId, 'reload');
    await this.#cdp.send('Page.reload', {}, session);
  }

  #pageSession(tabId: number): string {
    const session = [...this.#sessions.entries()].find(([, candidate]) => candidate.type === 'page' && candidate.tabId === tabId);
    if (!session) throw new Error(`no tab ${tabId}`);
    return session[0];
  }

  #event({ method, params, sessionId }: CdpEvent): void {
    switch (method) {
      case 'Target.attachedToTarget':
        return void this.#attached(params as unknown as AttachedToTarget, sessionId);
      case 'Target.detachedFromTarget':
        return this.#detached(String(params.sessionId));
      case 'Target.targetInfoChanged':
        return this.#infoChanged(params.targetInfo as TargetInfo);
      case 'Page.frameAttached':
        return this.#frameAttached(String(params.frameId), String(params.parentFrameId), sessionId);
      case 'Page.frameNavigated':
        return this.#frameNavigated(params.frame as { id: string; parentId?: string; loaderId: string; url: string }, sessionId);
      case 'Page.frameStartedNavigating':
        if (params.navigationType === 'differentDocument') this.#navigation('onBeforeNavigate', String(params.frameId), String(params.url));
        return;
      case 'Page.domContentEventFired':
        return this.#navigation('onDOMContentLoaded', this.#sessions.get(sessionId ?? '')?.targetId ?? '');
      case 'Page.frameStoppedLoading':
        return this.#navigation('onCompleted', String(params.frameId));
      case 'Page.frameRequestedNavigation':
        // The page itself asked (a link, a script, a form, a refresh): Chrome's transition for it.
        this.#transitions.set(String(params.frameId), TRANSITION_BY_REASON[String(params.reason)] ?? 'link');
        return;
      case 'Page.navigatedWithinDocument':
        return this.#withinDocument(String(params.frameId), String(params.url), params.navigationType as string | undefined);
      case 'Network.requestWillBeSent':
        return this.#requestWillBeSent(params as unknown as RequestWillBeSent, sessionId);
      case 'Network.loadingFailed':
        return this.#loadingFailed(params as unknown as LoadingFailed);
    }
  }

  async #attached({ sessionId, targetInfo }: AttachedToTarget, parentSession: string | undefined): Promise<void> {
    const cdp = this.#cdp;
    if (!ATTACHED_TYPES.has(targetInfo.type)) {
      cdp.post('Runtime.runIfWaitingForDebugger', {}, sessionId);
      cdp.post('Target.detachFromTarget', { sessionId });
      return;
    }
    const parent = parentSession !== undefined ? this.#sessions.get(parentSession) : undefined;
    let tabId = -1;
    if (targetInfo.type === 'page') {
      tabId = this.#options.newTabId();
      const opener = targetInfo.openerId !== undefined ? this.#tabs.get(targetInfo.openerId) : undefined;
      const tab: BrowserTab = { id: tabId, targetId: targetInfo.targetId, url: targetInfo.url, title: targetInfo.title, ...(opener && { openerTabId: opener.id }) };
      this.#tabs.set(targetInfo.targetId, tab);
      this.#frames.set(targetInfo.targetId, { id: 0, parent: undefined, tabId });
      this.#options.onTab?.('created', tab);
      // A page opened by another (window.open, a link's target): where it came from, as Chrome tells it.
      if (opener && targetInfo.openerFrameId !== undefined) {
        const source = this.#frames.get(targetInfo.openerFrameId);
        this.#options.onNavigation?.('onCreatedNavigationTarget', {
          sourceTabId: opener.id,
          sourceProcessId: -1,
          sourceFrameId: source?.id ?? 0,
          url: targetInfo.url,
          tabId,
          timeStamp: Date.now(),
        });
      }
    } else if (targetInfo.type === 'iframe' || targetInfo.type === 'worker') {
      // Frames and dedicated workers belong to the tab of the page (or frame) they are in.
      tabId = parent?.tabId ?? this.#frames.get(targetInfo.parentFrameId ?? '')?.tabId ?? -1;
      if (targetInfo.type === 'iframe' && !this.#frames.has(targetInfo.targetId)) {
        this.#frames.set(targetInfo.targetId, { id: this.#nextFrameId++, parent: targetInfo.parentFrameId, tabId });
      }
    }
    this.#sessions.set(sessionId, {
      type: targetInfo.type,
      targetId: targetInfo.targetId,
      tabId,
      ...(targetInfo.type === 'worker' && targetInfo.parentFrameId !== undefined && { parentFrame: targetInfo.parentFrameId }),
    });
    const isWorker = targetInfo.type.endsWith('worker');
    try {
      await Promise.all([
        // No bodies kept for DevTools: wrtui never asks for them.
        cdp.send('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0 }, sessionId),
        ...(isWorker ? [] : [cdp.send('Page.enable', {}, sessionId)]),
        cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, sessionId),
      ]);
    } finally {
      cdp.post('Runtime.runIfWaitingForDebugger', {}, sessionId);
    }
    this.#ready.add(targetInfo.targetId);
    if (targetInfo.type === 'page' && this.#firstPage) {
      this.#firstPage();
      this.#firstPage = undefined;
    }
  }

  #detached(sessionId: string): void {
    const session = this.#sessions.get(sessionId);
    this.#sessions.delete(sessionId);
    if (session) this.#ready.delete(session.targetId);
    if (session?.type !== 'page') return;
    const tab = this.#tabs.get(session.targetId);
    this.#tabs.delete(session.targetId);
    for (const [id, frame] of this.#frames) if (frame.tabId === session.tabId) this.#frames.delete(id);
    if (tab) this.#options.onTab?.('removed', tab);
  }

  #infoChanged(info: TargetInfo): void {
    const tab = this.#tabs.get(info.targetId);
    if (!tab || (tab.url === info.url && tab.title === info.title)) return;
    tab.url = info.url;
    tab.title = info.title;
    this.#options.onTab?.('updated', tab);
  }

  #frameAttached(frameId: string, parentFrameId: string, sessionId: string | undefined): void {
    if (this.#frames.has(frameId)) return;
    const tabId = this.#frames.get(parentFrameId)?.tabId ?? this.#sessions.get(sessionId ?? '')?.tabId ?? -1;
    this.#frames.set(frameId, { id: this.#nextFrameId++, parent: parentFrameId, tabId });
  }

  #frameNavigated(navigated: { id: string; parentId?: string; loaderId: string; url: string }, sessionId: string | undefined): void {
    let frame = this.#frames.get(navigated.id);
    if (!frame) {
      this.#frameAttached(navigated.id, navigated.parentId ?? '', sessionId);
      frame = this.#frames.get(navigated.id)!;
    }
    frame.loaderId = navigated.loaderId;
    frame.url = navigated.url;
    for (const [requestId, navigation] of this.#navigating) if (navigation.frameKey === navigated.id) this.#navigating.delete(requestId);
    this.#navigation('onCommitted', navigated.id);
  }

  /** webNavigation's event for a frame wrtui knows (about: and data: documents are told too, as Chrome does). */
  #navigation(event: BrowserNavigationEvent, frameKey: string, url?: string, error?: string): void {
    const frame = this.#frames.get(frameKey);
    if (!frame || !this.#options.onNavigation || frame.tabId === -1) return;
    const parent = frame.parent !== undefined ? this.#frames.get(frame.parent) : undefined;
    // Before a navigation commits it has no document of its own.
    const committed = event !== 'onBeforeNavigate' && event !== 'onErrorOccurred';
    const withinDocument = event === 'onHistoryStateUpdated' || event === 'onReferenceFragmentUpdated';
    const pageUrl = url ?? frame.url;
    if (pageUrl === undefined || (event === 'onCompleted' && frame.loaderId === undefined)) return;
    this.#options.onNavigation(event, {
      tabId: frame.tabId,
      frameId: frame.id,
      parentFrameId: parent?.id ?? -1,
      url: pageUrl,
      processId: -1,
      timeStamp: Date.now(),
      frameType: frame.parent === undefined ? 'outermost_frame' : 'sub_frame',
      documentLifecycle: 'active',
      ...(committed && frame.loaderId !== undefined && { documentId: frame.loaderId }),
      // A failed navigation is told with the document the frame keeps (Chromium 156); a frame that
      // never committed one has its initial empty document, which the protocol gives no loader id:
      // its frame id (32 hex digits, as loader ids are) stands for it.
      ...(event === 'onErrorOccurred' && { documentId: frame.loaderId ?? frameKey }),
      ...(parent?.loaderId !== undefined && { parentDocumentId: parent.loaderId }),
      ...(event === 'onCommitted' && { transitionType: frame.parent === undefined ? this.#transitionOf(frameKey) : 'auto_subframe', transitionQualifiers: [] }),
      ...(withinDocument && { transitionType: frame.parent === undefined ? 'link' : 'auto_subframe', transitionQualifiers: [] }),
      ...(error !== undefined && { error }),
    });
  }

  /** A history.pushState/replaceState or a fragment change: the frame's document stays, its URL changes. */
  #withinDocument(frameKey: string, url: string, navigationType: string | undefined): void {
    const frame = this.#frames.get(frameKey);
    if (!frame) return;
    const before = frame.url;
    frame.url = url;
    // Older protocols say no type: a change of the fragment alone is a fragment navigation.
    const fragment = navigationType !== undefined ? navigationType === 'fragment' : before !== undefined && withoutFragment(before) === withoutFragment(url);
    this.#navigation(fragment ? 'onReferenceFragmentUpdated' : 'onHistoryStateUpdated', frameKey, url);
  }

  /** A navigation that failed (no answer, an error, cancelled): webNavigation.onErrorOccurred for its frame. */
  #loadingFailed(event: LoadingFailed): void {
    const navigation = this.#navigating.get(event.requestId);
    if (navigation === undefined) return;
    this.#navigating.delete(event.requestId);
    this.#navigation('onErrorOccurred', navigation.frameKey, navigation.url, event.errorText);
  }

  /** The committed document's transitionType, said once per navigation. */
  #transitionOf(frameKey: string): string {
    const transition = this.#transitions.get(frameKey) ?? 'link';
    this.#transitions.delete(frameKey);
    return transition;
  }

  #requestWillBeSent(event: RequestWillBeSent, sessionId: string | undefined): void {
    const { request } = event;
    if (!/^(https?|wss?):/i.test(request.url)) return; // only what goes through the proxy
    const session = this.#sessions.get(sessionId ?? '');
    if (!session) return;
    this.reported++;
    const tell = (told: Omit<ToldRequest, 'method' | 'url'>) => this.#options.tell({ method: request.method, url: request.url, ...told });

    // Service and shared workers belong to no tab and no frame (Chrome: tabId and frameId -1).
    if (session.type === 'service_worker' || session.type === 'shared_worker') {
      const type = TYPE_BY_CDP[event.type];
      return tell({ ...(type && { type }), tabId: -1, frameId: -1, parentFrameId: -1, initiator: originOf(event.documentURL) });
    }
    const frameKey = event.frameId ?? session.parentFrame;
    const frame = frameKey !== undefined ? this.#frames.get(frameKey) : undefined;
    if (!frame) return; // a frame wrtui never saw attach: inference decides
    const parent = frame.parent !== undefined ? this.#frames.get(frame.parent) : undefined;
    const top = frame.parent === undefined;

    if (event.type === 'Document') {
      if (frameKey !== undefined) {
        this.#navigating.set(event.requestId, { frameKey, url: request.url });
        // A navigation that neither failed nor committed (a download, a 204) is forgotten past a bound.
        if (this.#navigating.size > MAX_NAVIGATIONS) this.#navigating.delete(this.#navigating.keys().next().value!);
      }
      // A navigation: its own frame, the document it replaces is not its document.
      if (top) {
        const referer = headerOf(request.headers, 'referer');
        const initiator = event.initiator?.url !== undefined ? originOf(event.initiator.url) : referer !== undefined ? originOf(referer) : undefined;
        return tell({ type: 'main_frame', tabId: frame.tabId, frameId: 0, parentFrameId: -1, frameType: 'outermost_frame', documentLifecycle: 'active', ...(initiator !== undefined && { initiator }) });
      }
      const initiator = event.initiator?.url !== undefined ? originOf(event.initiator.url) : parent?.url !== undefined ? originOf(parent.url) : undefined;
      return tell({
        type: 'sub_frame',
        tabId: frame.tabId,
        frameId: frame.id,
        parentFrameId: parent?.id ?? 0,
        frameType: 'sub_frame',
        documentLifecycle: 'active',
        ...(parent?.loaderId !== undefined && { parentDocumentId: parent.loaderId }),
        ...(parent?.url !== undefined && { documentUrl: parent.url }),
        ...(initiator !== undefined && { initiator }),
      });
    }
    const type = TYPE_BY_CDP[event.type] ?? (event.type === 'Ping' ? (headerOf(request.headers, 'content-type') === 'text/ping' ? 'ping' : 'beacon') : undefined);
    const documentUrl = frame.url ?? event.documentURL;
    const documentId = (session.type === 'worker' ? undefined : event.loaderId) || frame.loaderId;
    tell({
      ...(type && { type }),
      tabId: frame.tabId,
      frameId: frame.id,
      parentFrameId: parent?.id ?? -1,
      frameType: top ? 'outermost_frame' : 'sub_frame',
      documentLifecycle: 'active',
      ...(documentId && { documentId }),
      ...(parent?.loaderId !== undefined && { parentDocumentId: parent.loaderId }),
      ...(documentUrl && { documentUrl }),
      initiator: originOf(session.type === 'worker' ? event.documentURL : documentUrl),
    });
  }
}

interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
  title: string;
  openerId?: string;
  openerFrameId?: string;
  parentFrameId?: string;
}

interface LoadingFailed {
  requestId: string;
  errorText: string;
}

/** Page.frameRequestedNavigation's reason → Chrome's transitionType for the document it brings. */
const TRANSITION_BY_REASON: Readonly<Record<string, string>> = {
  formSubmissionGet: 'form_submit',
  formSubmissionPost: 'form_submit',
  reload: 'reload',
};

/** How many navigations under way are remembered for onErrorOccurred. */
const MAX_NAVIGATIONS = 200;

interface AttachedToTarget {
  sessionId: string;
  targetInfo: TargetInfo;
}

interface RequestWillBeSent {
  requestId: string;
  loaderId: string;
  documentURL: string;
  request: { url: string; urlFragment?: string; method: string; headers: Record<string, string> };
  type: string;
  frameId?: string;
  initiator?: { type: string; url?: string };
  redirectResponse?: unknown;
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}

function headerOf(headers: Record<string, string>, name: string): string | undefined {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}

function originOf(url: string): string {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? 'null' : origin;
  } catch {
    return 'null';
  }
}
