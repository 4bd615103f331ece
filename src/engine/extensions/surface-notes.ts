// What an extension's calls to the browser's own surfaces did here (tabs.onUpdated never fires,
// the badge is kept but not shown, a Firefox-only API is undefined under the chrome persona): worth
// knowing once, not an event of its run. uBlock Origin reaches for about forty such APIs at start-up,
// and every restart and reload would say them all again. So each is said once per extension (across
// its workers: restarts, reloads), and those that come together are one `debug` entry, a line each.
// Runs on the proxy thread; the extension's services keep it (extension-services.ts).

/** How long notes are gathered before they are said together (ms): an extension's start-up says most of them. */
export const SURFACE_NOTES_GATHER_MS = 1000;

export class SurfaceNotes {
  /** How the entry reaches the journal: the latest worker's debug log (it names the extension as it is named now). */
  #write: (message: string) => void = () => {};
  readonly #gatherMs: number;
  readonly #said = new Set<string>();
  readonly #pending = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(gatherMs = SURFACE_NOTES_GATHER_MS) {
    this.#gatherMs = gatherMs;
  }

  /**
   * A note on `api` (chrome.tabs.onUpdated): said with the others that come within the gathering
   * time, unless said before; `write` puts the entry in the journal (a debug log entry of the extension's).
   */
  add(api: string, note: string, write: (message: string) => void): void {
    this.#write = write;
    if (this.#said.has(api) || this.#pending.has(api)) return;
    this.#pending.set(api, note);
    if (!this.#timer) {
      this.#timer = setTimeout(() => this.flush(), this.#gatherMs);
      this.#timer.unref();
    }
  }

  /** Says what is gathered now (the extension is closing, or the gathering time is up). */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.size === 0) return;
    const lines = [...this.#pending].map(([api, note]) => `  ${api}: ${note}`);
    for (const api of this.#pending.keys()) this.#said.add(api);
    this.#pending.clear();
    this.#write(`what ${lines.length === 1 ? 'one browser API' : `${lines.length} browser APIs`} it used ${lines.length === 1 ? 'does' : 'do'} here (wrtui is a proxy, not a browser; each said once):\n${lines.join('\n')}`);
  }
}
