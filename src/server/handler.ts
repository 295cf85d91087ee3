import { ProtocolError } from "../protocol/codes.js";
import type { METHODS, MethodName, ParamsOf, ResultOf } from "../protocol/methods.js";
import type { Wire } from "../protocol/raw-json.js";
import type { TurnEventParams } from "../protocol/schemas/turns.js";
import type { ServerState } from "./state.js";

/** What an asynchronous handler gets besides its parsed params. */
export interface RequestContext {
  /** The request's ID (for turn.start: the `request_id` every event of the turn carries). */
  id: string;
  /**
   * Aborted by `operation.cancel` (never for `turn` admission) or by shutdown and EOF; observe
   * it between units of work.
   */
  signal: AbortSignal;
  state: ServerState;
  /**
   * Makes the request's one visible effect (an attachment, a selection, a cache rename): runs
   * `effect` only if the signal has not fired, else throws `operation_cancelled`. The answer then
   * matches the effect: once committed the request answers its own result (or error), even if a
   * cancel arrives afterwards; without a commit a cancelled request answers `operation_cancelled`.
   */
  commit: Commit;
  /**
   * Writes one `turn.event` notification, ordered with every other frame. Resolves at once while
   * the output buffer is under its high-water mark and otherwise when stdout has drained, so a
   * producer that awaits it never buffers without bound. Rejects, writing nothing, when the
   * event is a bug of the caller: `turn` not negotiated, params outside the notification schema,
   * a `request_id` other than this request's, a frame over `frame_bytes`, or a request already
   * answered.
   */
  notify(params: TurnEventParams): Promise<void>;
}

/** What a `control` handler gets: it runs synchronously on the protocol loop. */
interface ControlContext {
  id: string;
  state: ServerState;
}

/** Check-then-commit, synchronously: no cancel can be observed between the check and `effect`. */
export type Commit = <T>(effect: () => T) => T;

export type Handler<M extends MethodName> = (
  params: ParamsOf<M>,
  ctx: RequestContext,
) => Promise<Wire<ResultOf<M>>> | Wire<ResultOf<M>>;

/** Answered at once (turn.interrupt, turn.approve): returns its result or throws ProtocolError. */
export type ControlHandler<M extends MethodName> = (
  params: ParamsOf<M>,
  ctx: ControlContext,
) => ResultOf<M>;

type HandlerOf<M extends MethodName> = (typeof METHODS)[M]["admission"] extends "control"
  ? ControlHandler<M>
  : Handler<M>;

/**
 * One handler per implemented method. initialize, status, shutdown and operation.cancel are the
 * dispatcher's own; a capability is implemented when each of its other methods has a handler.
 */
export type HandlerTable = { [M in MethodName]?: HandlerOf<M> };

/** Resolves after `ms`, or rejects with `operation_cancelled` as soon as the signal fires. */
export function cancellableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ProtocolError("operation_cancelled"));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ProtocolError("operation_cancelled"));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
