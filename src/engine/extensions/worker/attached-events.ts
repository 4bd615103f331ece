// Which of the browser's events fire while a browser wrtui started is attached (`wrtui browser`,
// src/app/chromium-attach.ts): the notes an extension's listeners get say so, instead of "this
// event never fires", which is true only without a browser. The others (tabs.onMoved,
// webNavigation.onTabReplaced, …) still never fire: the attachment does not report them.

/** tabs events the attached browser tells (browser-attach-session.ts, extension-host.ts). */
export const ATTACHED_TAB_EVENTS = ['onCreated', 'onUpdated', 'onRemoved', 'onActivated'] as const;

/** webNavigation events the attached browser tells (chromium-attach.ts). */
export const ATTACHED_NAVIGATION_EVENTS = [
  'onBeforeNavigate',
  'onCommitted',
  'onDOMContentLoaded',
  'onCompleted',
  'onErrorOccurred',
  'onHistoryStateUpdated',
  'onReferenceFragmentUpdated',
  'onCreatedNavigationTarget',
] as const;

/** windows events the attached browser tells (its one window: browser-tab-events.ts). */
export const ATTACHED_WINDOW_EVENTS = ['onCreated', 'onRemoved', 'onFocusChanged'] as const;

/** The surface's eventNotes for `events`: each fires from the attached browser's `what`. */
export function attachedEventNotes(events: readonly string[], what: string): Record<string, string> {
  return Object.fromEntries(events.map((event) => [event, `it fires from the attached browser's ${what}`]));
}
