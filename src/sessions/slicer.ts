import { ProtocolError } from "../protocol/codes.js";

/**
 * Cooperative time slicing: long reads report their work to `due(bytes)` and, when it says so,
 * `await yieldNow()`: once a slice of a few milliseconds has been used, control goes back to
 * the event loop, so `status`, `shutdown` and `operation.cancel` are answered promptly while a
 * history is read. The clock is consulted only every 32 KiB of work (reading the clock per
 * small record costs more than parsing it); the largest record parsed on the loop is 256 KiB
 * with at most 10,000 openings (others go to a worker thread), about 2 ms at most. Cancellation is observed at every
 * yield.
 */
export const SLICE_MS = 2;
const CLOCK_EVERY_BYTES = 32 * 1024;

/** A monotonic clock in milliseconds. Injectable so that tests can drive time-based bounds. */
export type Clock = () => number;
export const realClock: Clock = () => performance.now();

export class Slicer {
  private sliceStart: number;
  private work = 0;
  /** The last clock reading, for callers' own deadlines. */
  now: number;

  constructor(
    /** Also for a wait on another thread (split-scan.ts), which no yield interrupts. */
    readonly signal: AbortSignal,
    private readonly clock: Clock = realClock,
  ) {
    this.now = this.sliceStart = clock();
  }

  /** Counts `bytes` of work; true when the slice is used up and the caller must yield. */
  due(bytes: number): boolean {
    this.work += bytes;
    if (this.work < CLOCK_EVERY_BYTES) return false;
    this.work = 0;
    this.now = this.clock();
    return this.now - this.sliceStart >= SLICE_MS;
  }

  async yieldNow(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.now = this.sliceStart = this.clock();
    if (this.signal.aborted) throw new ProtocolError("operation_cancelled");
  }

  /** Counts the work and yields if due. */
  async pause(bytes = CLOCK_EVERY_BYTES): Promise<void> {
    if (this.due(bytes)) await this.yieldNow();
  }
}
