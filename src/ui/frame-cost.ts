// What one frame costs: React's render and commit plus Ink's drawing. Ink draws inside React's
// commit when its frame-rate throttle lets it (before the App's layout effect runs), and later
// otherwise; so a commit that already includes Ink's drawing is one frame, and a drawing that
// came on its own adds to whatever React time is still waiting to be counted.
export class FrameCost {
  #reactStartedAt: number | undefined;
  #inkInsideReact = false;
  #reactWaitingMs = 0;

  constructor(
    private readonly onFrame: (ms: number) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The root component started rendering. */
  reactStarted(): void {
    this.#reactStartedAt ??= this.now();
  }

  /** The root component's layout effect ran: React's commit is done. */
  reactCommitted(): void {
    if (this.#reactStartedAt === undefined) return;
    const ms = this.now() - this.#reactStartedAt;
    this.#reactStartedAt = undefined;
    if (this.#inkInsideReact) {
      this.#inkInsideReact = false;
      this.onFrame(ms);
    } else this.#reactWaitingMs += ms;
  }

  /** Ink finished drawing a frame, which took `renderMs`. */
  inkDrew(renderMs: number): void {
    if (this.#reactStartedAt !== undefined) {
      this.#inkInsideReact = true; // counted when the commit ends
      return;
    }
    this.onFrame(this.#reactWaitingMs + renderMs);
    this.#reactWaitingMs = 0;
  }
}
