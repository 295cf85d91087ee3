import { log } from "../process/log.js";
import { LIMITS } from "../protocol/constants.js";
import type { OperationRegistry } from "./operations.js";
import type { Outbound } from "./outbound.js";
import type { ServerState } from "./state.js";
import type { TurnQueue } from "./turn-queue.js";

/**
 * The part of `cleanup_ms` left after the drain: for the overdue answers, the flush and the exit
 * itself (stdio.ts, exit.ts), so that the child is gone within the bound.
 */
const DRAIN_MARGIN_MS = 150;

interface ShutdownParts {
  state: ServerState;
  ops: OperationRegistry;
  queue: TurnQueue;
  out: Outbound;
  /** As DispatcherOptions.onStopped: once, after the shutdown answers were written. */
  onStopped: (deadline: number, finished: boolean) => void;
}

/**
 * The child's one shutdown (`shutdown` or EOF): stops admitting, aborts in-flight work, waits
 * at most `cleanup_ms` for it and the closers, gives whatever overran its one terminal
 * response, answers every `shutdown` request, then stops.
 */
export class Shutdown {
  private stopping: Promise<void> | null = null;
  /** IDs of shutdown requests not yet answered: held while the shutdown drains. */
  private readonly pending = new Set<string>();

  constructor(private readonly parts: ShutdownParts) {}

  /** Whether `id` is a shutdown request still waiting for its answer. */
  holds(id: string): boolean {
    return this.pending.has(id);
  }

  /** Begins the shutdown (once); `id`, a shutdown request, is answered when it is done. */
  request(id: string | null): Promise<void> {
    const { state, ops, queue, out, onStopped } = this.parts;
    if (!this.stopping) {
      const deadline = Date.now() + LIMITS.cleanup_ms;
      state.phase = "shutting_down";
      queue.removeAll();
      ops.cancelAll();
      const closing = state.closers.map((close) => close().catch(() => {}));
      let finished = false;
      this.stopping = this.drain(closing).then((drained) => {
        finished = drained;
        this.answerOverdue();
      });
      // Deferred past the microtasks that write the shutdown answers below.
      void this.stopping.then(() => setImmediate(() => onStopped(deadline, finished)));
    }
    if (id !== null) {
      this.pending.add(id);
      return this.stopping.then(() => {
        this.pending.delete(id);
        out.result(id, "shutdown", { state: "stopped" });
      });
    }
    return this.stopping;
  }

  /** Whatever did not drain in time still gets its one terminal response. */
  private answerOverdue(): void {
    const { ops, out } = this.parts;
    for (const op of ops.list()) {
      if (op.cancellable) {
        out.error(op.id, "operation_cancelled");
      } else {
        // A turn never answers operation_cancelled; one that overran the bound is a bug.
        log("error", `${op.method} did not end within the cleanup bound`);
        out.error(op.id, "internal_error");
      }
      ops.remove(op.id);
    }
  }

  /** Waits for every request and closer, within the bound; whether all of them ended. */
  private async drain(closing: Promise<void>[]): Promise<boolean> {
    const pending = [...this.parts.ops.list().map((op) => op.done), ...closing];
    if (pending.length === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), LIMITS.cleanup_ms - DRAIN_MARGIN_MS);
    });
    const drained = await Promise.race([Promise.all(pending).then(() => true), bound]);
    clearTimeout(timer);
    return drained;
  }
}
