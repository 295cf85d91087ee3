import { turnMemoryMode } from "../../boot/heap-flags.js";

/**
 * When a turn's memory mode (heap-flags.ts `turnMemoryMode`, `--optimize-for-size`) goes on:
 * once the turn's first event after its admission, `turn_started`, has been written. Set
 * earlier, right after the admission, V8 began the memory-reducing full collection the flag
 * starts at the next allocations, and it ran in `turn_started`'s own path: 14-20 ms of CPU of a
 * fresh child's first turn on a small history (issue 44, docs/benchmarks.md). What the mode
 * is for, the garbage of the model's stream, comes only after that event.
 */
export class TurnMemoryMode {
  private due = false;

  constructor(private readonly set: (on: boolean) => void = turnMemoryMode) {}

  /** The turn is admitted: the mode goes on once its next event is written. */
  arm(): void {
    this.due = true;
  }

  /** `written`, an event's write; the mode goes on after it when it is the first one due. */
  after(written: Promise<void>): Promise<void> {
    if (!this.due) return written;
    this.due = false;
    return written.then(() => this.set(true));
  }

  /** The turn ended (whatever its end): the mode is off. */
  end(): void {
    this.due = false;
    this.set(false);
  }
}
