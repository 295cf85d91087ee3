import { ProtocolError } from "../protocol/codes.js";
import type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.js";
import type { Wire } from "../protocol/raw-json.js";
import type { ServerState } from "./state.js";

/** What a handler gets besides its parsed params. */
export interface RequestContext {
  id: string;
  /** Aborted by `operation.cancel` or shutdown; observe it between units of work. */
  signal: AbortSignal;
  state: ServerState;
}

export type Handler<M extends MethodName> = (
  params: ParamsOf<M>,
  ctx: RequestContext,
) => Promise<Wire<ResultOf<M>>> | Wire<ResultOf<M>>;

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
