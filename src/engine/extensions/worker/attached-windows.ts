// chrome.windows while a browser wrtui started is attached (`wrtui browser`): its tabs are in one
// window, id 1 (the windowId known-tabs.ts gives them; wrtui's number, not Chromium's), normal and
// focused, as a browser with one window answers. Without a browser there is no window at all
// (browser-surfaces.ts). Asked on each call: the window exists while the browser has a tab.
import type { HostCalls } from './host-calls.js';

type Answer = { ok: true; value: unknown; note?: string } | { ok: false; error: string };

/** The attached browser's window id: the windowId known-tabs.ts gives its tabs. */
export const ATTACHED_WINDOW_ID = 1;

/** The attached browser's window as Chrome's Window (no tabs). */
export function attachedWindowObject(): Record<string, unknown> {
  return { alwaysOnTop: false, focused: true, height: 600, id: ATTACHED_WINDOW_ID, incognito: false, left: 0, state: 'normal', top: 0, type: 'normal', width: 800 };
}

/** The attached browser's window, or undefined when it has no tab (yet, or any more). */
export async function attachedWindow(calls: HostCalls, options: unknown): Promise<Record<string, unknown> | undefined> {
  const reply = await calls.call('tabs.query', [{ windowId: ATTACHED_WINDOW_ID }]);
  if (!reply.ok || !Array.isArray(reply.value) || reply.value.length === 0) return undefined;
  const populate = typeof options === 'object' && options !== null && (options as { populate?: unknown }).populate === true;
  return { ...attachedWindowObject(), ...(populate && { tabs: reply.value }) };
}

/** windows.get/getAll/getCurrent/getLastFocused answered with the attached browser's window; `none`: the answer without one. */
export async function answerWindows(calls: HostCalls, method: string, args: unknown[], none: () => Answer): Promise<Answer> {
  const id = method === 'get' ? args[0] : undefined;
  const window = await attachedWindow(calls, method === 'get' ? args[1] : args[0]);
  if (method === 'getAll') return { ok: true, value: window ? [window] : [], note: "answered the attached browser's window" };
  if (!window || (method === 'get' && id !== 1 && id !== -2)) return none();
  return { ok: true, value: window, note: "answered the attached browser's window" };
}
