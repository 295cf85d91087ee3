import { ProtocolError } from "../protocol/codes.js";
import type { Commit } from "./handler.js";

/**
 * The registry of admitted, active requests: one AbortController each, registered on admission,
 * aborted by `operation.cancel` or shutdown, removed when the terminal response is written.
 */
export interface ActiveOperation {
  id: string;
  method: string;
  controller: AbortController;
  /** Settles when the operation's terminal response has been written. */
  done: Promise<void>;
  cancellable: boolean;
  /** Set when the request made its visible effect through `commit`; it then answers its result. */
  committed: boolean;
}

/** The request's `commit`: refused once cancelled, and remembered once made. */
export function commitFor(op: ActiveOperation): Commit {
  return (effect) => {
    if (op.controller.signal.aborted) throw new ProtocolError("operation_cancelled");
    op.committed = true;
    return effect();
  };
}

/** Whether the request must answer `operation_cancelled`: cancelled before any commit. */
export function endsCancelled(op: ActiveOperation): boolean {
  return op.controller.signal.aborted && !op.committed;
}

/**
 * Milliseconds on a monotonic clock (the one `performance.now()` reads), through `process.hrtime`: the
 * global `performance`'s first use loads perf_hooks (eleven internal modules, 2-3 ms of CPU),
 * which every start's first request paid here before its answer (docs/benchmarks.md).
 */
function monotonicMs(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1000 + nanoseconds / 1e6;
}

export class OperationRegistry {
  private readonly active = new Map<string, ActiveOperation>();
  /** monotonicMs() when the last request ended (or began, while one runs). */
  private lastActive = 0;

  add(op: ActiveOperation): void {
    this.active.set(op.id, op);
    this.lastActive = monotonicMs();
  }

  remove(id: string): void {
    if (this.active.delete(id)) this.lastActive = monotonicMs();
  }

  /**
   * Whether no request has run for `ms`: a listing's steps follow each other within a few
   * milliseconds, so a gap this long is the frontend's pause, not the middle of its work.
   */
  quietFor(ms: number): boolean {
    return this.active.size === 0 && monotonicMs() - this.lastActive >= ms;
  }

  get(id: string): ActiveOperation | undefined {
    return this.active.get(id);
  }

  has(id: string): boolean {
    return this.active.has(id);
  }

  get size(): number {
    return this.active.size;
  }

  list(): ActiveOperation[] {
    return [...this.active.values()];
  }

  /** The active requests as `status` lists them; a status flood mostly finds none. */
  summaries(): { id: string; method: string }[] {
    if (this.active.size === 0) return [];
    return Array.from(this.active.values(), (op) => ({ id: op.id, method: op.method }));
  }

  /** Aborts the request if it is active and cancellable; false otherwise. */
  cancel(id: string): boolean {
    const op = this.active.get(id);
    if (!op?.cancellable) return false;
    op.controller.abort();
    return true;
  }

  cancelAll(): void {
    for (const op of this.active.values()) op.controller.abort();
  }
}
