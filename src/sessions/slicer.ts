import { ProtocolError } from "../protocol/codes.js";

/**
 * Cooperative time slicing: long reads call `pause()` between units of work, and it yields to
 * the event loop once a slice of a few milliseconds has been used, so `status`, `shutdown` and
 * `operation.cancel` are answered promptly while a history is read. Cancellation is observed at
 * every yield.
 */
export const SLICE_MS = 4;

export class Slicer {
  private sliceStart = performance.now();

  constructor(private readonly signal: AbortSignal) {}

  async pause(): Promise<void> {
    if (performance.now() - this.sliceStart < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
    if (this.signal.aborted) throw new ProtocolError("operation_cancelled");
  }
}
