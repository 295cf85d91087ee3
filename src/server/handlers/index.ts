import type { HandlerTable } from "../handler.js";
import type { ServerState } from "../state.js";
import { modelHandlers } from "./models.js";
import { sessionHandlers } from "./sessions.js";
import { testHandlers } from "./testing.js";

/**
 * Every domain's handlers, merged. A method without a handler here is not implemented: its
 * capability is refused at initialize with `unsupported_capability`.
 */
export function buildHandlers(state: ServerState, options: { testMethods: boolean }): HandlerTable {
  return {
    ...sessionHandlers(state),
    ...modelHandlers(state, options),
    ...(options.testMethods ? testHandlers() : {}),
  };
}
