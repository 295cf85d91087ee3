/**
 * Following a server's `notifications/tools/list_changed` (docs/mcp.md, "Lifecycle"): each
 * notification asks for a re-list, and the re-lists run one at a time. Notifications that arrive
 * while one runs are folded into a single next one, so a server that sends thousands costs at
 * most the re-list in flight and one more, never a request per notification.
 */
export class ToolRelist {
  /** Notifications counted so far, and how many of them the last finished re-list covered. */
  private requested = 0;
  private covered = 0;
  private running: Promise<void> | null = null;
  private started = false;
  private stopped = false;
  private readonly waiters: Array<{ upTo: number; resolve: () => void }> = [];

  /** `run` re-lists once; it must settle (the caller bounds it) and may throw. */
  constructor(private readonly run: () => Promise<void>) {}

  /** How many notifications were counted: `reached(generation)` waits for those. */
  get generation(): number {
    return this.requested;
  }

  /** One notification. Before `start` it is only counted (the session is not ready yet). */
  request(): void {
    if (this.stopped) return;
    this.requested += 1;
    if (this.started) this.running ??= this.loop();
  }

  /** The session is ready: notifications from now on (and any counted before) re-list. */
  start(): void {
    if (this.stopped || this.started) return;
    this.started = true;
    if (this.covered < this.requested) this.running ??= this.loop();
  }

  /** No re-list starts any more (the session ended); waiters are released. */
  stop(): void {
    this.stopped = true;
    this.release(Number.POSITIVE_INFINITY);
  }

  /** Resolves once the notifications up to `upTo` are covered by a finished re-list (or stop). */
  reached(upTo: number): Promise<void> {
    if (this.covered >= upTo || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ upTo, resolve }));
  }

  private async loop(): Promise<void> {
    while (!this.stopped && this.covered < this.requested) {
      const upTo = this.requested;
      try {
        await this.run();
      } catch {
        // The caller logs why; the previous list stays and the next notification tries again.
      }
      this.covered = upTo;
      this.release(upTo);
    }
    this.running = null;
  }

  private release(upTo: number): void {
    for (let i = this.waiters.length - 1; i >= 0; i -= 1) {
      const waiter = this.waiters[i];
      if (waiter && waiter.upTo <= upTo) {
        this.waiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }
}
