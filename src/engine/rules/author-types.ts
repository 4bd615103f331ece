// What a rule author imports: `import type { RuleManifest, RuleContext } from 'wrtui/rules'`,
// resolved through the package's exports (dist/types, emitted by the build) once wrtui is installed
// in or beside the rules folder. Types only: nothing here exists at run time, so a rule never
// depends on wrtui's code, only on the shape of what its background receives.
//
//   export const manifest = {
//     name: 'block-trackers',
//     permissions: ['webRequest', 'webRequestBlocking'],
//     host_permissions: ['<all_urls>'],
//   } as const satisfies RuleManifest;
//
//   export default function background({ chrome }: RuleContext<typeof manifest>) { … }
//
// With `as const`, RuleContext knows which namespaces the manifest grants: `chrome.cookies` is
// typed as missing without the "cookies" permission, exactly as it is missing at run time.
import type {
  Alarm,
  AlarmsNamespace,
  BrowserCookiesNamespace,
  ChromeCookiesNamespace,
  CookiesOnChangedEvent,
  ExtensionEvent,
  ExtensionRuntime,
  LastError,
  Runtime,
  StorageArea,
  StorageChanges,
  StorageNamespace,
  WebRequestEvent,
  WebRequestNamespace,
} from '../extension-api-types.js';

export type {
  Alarm,
  AlarmsNamespace,
  BrowserCookiesNamespace,
  ChromeCookiesNamespace,
  CookiesOnChangedEvent,
  ExtensionEvent,
  ExtensionRuntime,
  LastError,
  Runtime,
  StorageArea,
  StorageChanges,
  StorageNamespace,
  WebRequestEvent,
  WebRequestNamespace,
};
export type {
  AuthChallenger,
  AuthCredentials,
  BlockingResponse,
  Cookie,
  CookieChangeInfo,
  CookieStore,
  HttpHeader,
  HttpHeaders,
  OnAuthRequiredDetails,
  OnBeforeRedirectDetails,
  OnBeforeRequestDetails,
  OnBeforeSendHeadersDetails,
  OnChangedCause,
  OnCompletedDetails,
  OnErrorOccurredDetails,
  OnHeadersReceivedDetails,
  OnResponseStartedDetails,
  OnSendHeadersDetails,
  RequestFilter,
  ResourceType,
  UploadData,
  WebRequestBody,
  WebRequestEventName,
} from '../types.js';

/** The permissions wrtui implements; others are accepted with a warning and grant nothing. */
export type RulePermission = 'webRequest' | 'webRequestBlocking' | 'cookies' | 'storage' | 'alarms';

/** The `manifest` a rule file exports: a browser extension's manifest, reduced to what matters here. */
export interface RuleManifest {
  /** Unique among the rules: the rule's id in the journal, the UI and the handlerBehaviorChanged quota. */
  name: string;
  /** "webRequest" for chrome.webRequest, "webRequestBlocking" to block, "cookies" for chrome.cookies. */
  permissions?: readonly RulePermission[];
  /** Match patterns: the requests the listeners see and the cookies the rule may read and write. */
  host_permissions?: readonly string[];
  /** Which browser's interface the rule sees: "spec" (default), "chrome" or "firefox". Overrides --persona. */
  persona?: 'spec' | 'chrome' | 'firefox';
  /** Compute and journal verdicts ("would cancel") without applying them. Default false. */
  dryRun?: boolean;
  /** An integer; when rules' verdicts conflict, the higher precedence wins. Default 0, then file name order. */
  precedence?: number;
  /**
   * Give the rule Node's globals (process, Buffer, require) and built-in modules (node:fs, …).
   * Without it a rule sees a browser's globals only, as an extension does. Default false.
   */
  node?: boolean;
  /**
   * Run the rule in a worker thread of its own. By default rule files share a few workers, each
   * rule in a realm of its own; a rule stuck in a loop takes its worker-mates into its restart.
   * Default false.
   */
  ownWorker?: boolean;
}

/**
 * A namespace the manifest grants: present when the permission is declared, typed as missing when
 * it is not, and possibly there when the manifest's permissions are not known statically.
 */
type Granted<M, P extends RulePermission, T> = RuleManifest extends M
  ? Partial<T>
  : M extends { permissions: readonly (infer Declared)[] }
    ? P extends Declared
      ? T
      : { [K in keyof T]?: never }
    : { [K in keyof T]?: never };

/** `chrome.*`: callback style, failures through `chrome.runtime.lastError` while the callback runs. */
export type ChromeApi<M extends RuleManifest = RuleManifest> = { runtime: ExtensionRuntime } & Granted<M, 'webRequest', { webRequest: WebRequestNamespace }> &
  Granted<M, 'cookies', { cookies: ChromeCookiesNamespace }> &
  Granted<M, 'storage', { storage: StorageNamespace }> &
  Granted<M, 'alarms', { alarms: AlarmsNamespace }>;

/** `browser.*`: Promise style, failures as rejected Promises. */
export type BrowserApi<M extends RuleManifest = RuleManifest> = { runtime: ExtensionRuntime } & Granted<M, 'webRequest', { webRequest: WebRequestNamespace }> &
  Granted<M, 'cookies', { cookies: BrowserCookiesNamespace }> &
  Granted<M, 'storage', { storage: StorageNamespace }> &
  Granted<M, 'alarms', { alarms: AlarmsNamespace }>;

/** Every namespace wrtui has, as an extension whose manifest grants them all sees them (`wrtui/extension`). */
export interface FullChromeApi {
  runtime: ExtensionRuntime;
  webRequest: WebRequestNamespace;
  cookies: ChromeCookiesNamespace;
  storage: StorageNamespace;
  alarms: AlarmsNamespace;
}
export interface FullBrowserApi extends Omit<FullChromeApi, 'cookies'> {
  cookies: BrowserCookiesNamespace;
}

/** What a rule's default export (its background) receives. It may be async. */
export interface RuleContext<M extends RuleManifest = RuleManifest> {
  chrome: ChromeApi<M>;
  browser: BrowserApi<M>;
}

/** The shape of a rule's default export. */
export type RuleBackground<M extends RuleManifest = RuleManifest> = (context: RuleContext<M>) => void | Promise<void>;
