import type { Capability } from "../protocol/capabilities.js";
import type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.js";
import type { CallOptions } from "./connection.js";

/**
 * What the client-flow helpers need of a client: typed calls and the negotiated set. Narrower
 * than AgentClient, so the helpers do not import the class that imports them.
 */
export interface Caller {
  call<M extends MethodName>(
    method: M,
    params: ParamsOf<M>,
    options?: CallOptions,
  ): Promise<ResultOf<M>>;
  has(capability: Capability): boolean;
}

/** A caller that can replace its child with a fresh one (discovery, on `child_exhausted`). */
export interface RestartableCaller extends Caller {
  restart(): Promise<void>;
}
