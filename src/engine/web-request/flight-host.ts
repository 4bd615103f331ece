// What a request flight needs of the lifecycle it belongs to (RequestLifecycle satisfies it): the
// flight never imports the lifecycle, so the two files import one way only.
import type { Journal } from '../journal.js';
import type { DnrEngine } from '../dnr/dnr-engine.js';
import type { DocumentTracker, KnownTab } from '../personas/request-context.js';
import type { EventFiring } from './event-firing.js';
import type { ListenerRegistry } from './listener-registry.js';
import type { CookieBridge, CookieMode } from './request-init.js';

/** A resource of an extension wrtui hosts, as a redirect to it is answered (undefined: not web accessible, or no such file). */
export type ExtensionResourceLookup = (url: URL) => Promise<{ bytes: Uint8Array; type: string } | undefined>;

export interface FlightHost {
  readonly registry: ListenerRegistry;
  readonly journal: Journal;
  readonly cookies: CookieBridge | undefined;
  readonly cookieMode: CookieMode;
  readonly dnr: DnrEngine | undefined;
  readonly now: () => number;
  readonly maxAuthAttempts: number;
  readonly documents: DocumentTracker;
  readonly extensionResources: ExtensionResourceLookup | undefined;
  readonly onTabCreated: ((tab: KnownTab) => void) | undefined;
  /** Tells listeners of events and journals them (event-firing.ts). */
  readonly events: EventFiring;
  /** The flight ended: it is no longer findable by id. */
  ended(flight: { readonly requestId: string }): void;
}
