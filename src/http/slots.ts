import { ProtocolError } from "../protocol/codes.js";

/**
 * A counting semaphore. Catalog HTTP holds one of at most 32 process-wide slots per request, so
 * however refreshes and enrichment overlap, no more than 32 provider requests are in flight.
 */
export class Slots {
  private used = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly capacity: number) {}

  /** Waits for a slot; rejects with `operation_cancelled` if the signal fires first. */
  async acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) throw new ProtocolError("operation_cancelled");
    if (this.used < this.capacity) {
      this.used += 1;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(wake), 1);
        reject(new ProtocolError("operation_cancelled"));
      };
      const wake = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      this.waiting.push(wake);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // Hand the slot straight to the next waiter; otherwise free it.
      if (next) next();
      else this.used -= 1;
    };
  }
}

export const CATALOG_HTTP_WORKERS = 32;
export const catalogHttpSlots = new Slots(CATALOG_HTTP_WORKERS);
