/**
 * The session's queue of `turn.start` requests sent with `queue: true` (capability
 * `turn.queue`, docs/turns.md "Steering and queueing"): instead of `busy` behind a running turn,
 * a request waits here, FIFO, at most QUEUED_TURNS of them, and starts when the running turn
 * ends, whatever its status. A waiting request is an admitted request (it holds its ID and
 * counts toward `active_requests`) whose handler has not run: its admission proper (model,
 * credentials, lock, history) happens when it starts. turn.interrupt, shutdown and EOF answer a
 * waiting one at once, `interrupted` with `turn_id: null`, and nothing is written.
 */
import type { ErrorCode } from "../protocol/codes.js";
import type { ParamsOf, ResultOf } from "../protocol/methods.js";
import { QUEUED_TURNS } from "../protocol/schemas/steering.js";
import type { ServerState } from "./state.js";

interface WaitingTurn {
  id: string;
  /** Runs its handler: it holds the worker from now on. */
  begin: () => void;
  /** Answers it without running it (removed, or the child stops). */
  remove: (answer: ResultOf<"turn.start"> | ErrorCode) => void;
}

/** How a turn.start is admitted, as far as its `queue` param decides. */
export type QueueAdmission = "run" | "wait" | ErrorCode;

export class TurnQueue {
  private readonly waiting: WaitingTurn[] = [];

  constructor(private readonly state: ServerState) {}

  /**
   * `queue` without `turn.queue` is `unsupported_capability`; with it, a start behind a running
   * turn waits (or is `busy` past the bound), and one behind anything else (model.refresh,
   * model.select) is `busy` as without it.
   */
  admission(params: ParamsOf<"turn.start">, workerMethod: string | null): QueueAdmission {
    if (params.queue === undefined) return "run";
    if (!this.state.negotiated.has("turn.queue")) return "unsupported_capability";
    if (!params.queue || workerMethod === null) return "run";
    if (workerMethod !== "turn.start" || this.waiting.length >= QUEUED_TURNS) return "busy";
    return "wait";
  }

  enqueue(turn: WaitingTurn): void {
    this.waiting.push(turn);
  }

  /** The worker was freed: the next waiting turn starts, if any. */
  startNext(): void {
    this.waiting.shift()?.begin();
  }

  /** turn.interrupt of a waiting request: removed and answered; false when none waits. */
  interrupt(requestId: string): boolean {
    const at = this.waiting.findIndex((turn) => turn.id === requestId);
    if (at < 0) return false;
    const [turn] = this.waiting.splice(at, 1);
    turn?.remove(this.removedAnswer());
    return true;
  }

  /** Shutdown or EOF: every waiting request answered, none started. */
  removeAll(): void {
    for (const turn of this.waiting.splice(0)) turn.remove(this.removedAnswer());
  }

  /** What a removed request answers: nothing ran, on the attached session. */
  private removedAnswer(): ResultOf<"turn.start"> | ErrorCode {
    const attachment = this.state.attachment;
    if (attachment === null) return "attachment_required";
    return {
      turn_id: null,
      session_id: attachment.session_id,
      status: "interrupted",
      stop_reason: "interrupted",
      error: null,
      usage: { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, reasoning_tokens: 0 },
      steps: 0,
      ...(this.state.negotiated.has("turn.steer") ? { undelivered_steers: [] } : {}),
    };
  }
}
