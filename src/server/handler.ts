import { ProtocolError } from "../protocol/codes.js";
import type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.js";
import type { ServerState } from "./state.js";

/** What a handler gets besides its parsed params. */
export interface RequestContext {
  id: string;
  /** Aborted by `operation.cancel` or shutdown; observe it between units of work. */
  signal: AbortSignal;
  state: ServerState;
  /**
   * Makes the request's one visible effect (an attachment, a selection, a cache rename): runs
   * `effect` only if the signal has not fired, else throws `operation_cancelled`. The answer then
   * matches the effect: once committed the request answers its own result (or error), even if a
   * cancel arrives afterwards; without a commit a cancelled request answers `operation_cancelled`.
   */
  commit: Commit;
}

/** Check-then-commit, synchronously: no cancel can be observed between the check and `effect`. */
export type Commit = <T>(effect: () => T) => T;

export type Handler<M extends MethodName> = (
  params: ParamsOf<M>,
  ctx: RequestContext,
) => Promise<ResultOf<M>> | ResultOf<M>;

export type HandlerTable = { [M in MethodName]?: Handler<M> };

/** Throws the wire error for a cancelled request if the signal has fired. */
export function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw new ProtocolError("operation_cancelled");
}

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
