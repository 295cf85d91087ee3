import type { HandlerTable } from "../handler.js";
import type { ServerState } from "../state.js";
import { createModelServices } from "./model-services.js";
import { modelHandlers } from "./models.js";
import { sessionHandlers } from "./sessions.js";
import { settingsHandlers } from "./settings.js";
import { testHandlers } from "./testing.js";
import { turnHandlers } from "./turns.js";

/**
 * Every domain's handlers, merged. A method without a handler here is not implemented: its
 * capability is refused at initialize with `unsupported_capability`.
 */
export function buildHandlers(state: ServerState, options: { testMethods: boolean }): HandlerTable {
  const models = createModelServices(state);
  return {
    ...sessionHandlers(state),
    ...modelHandlers(state, models, options),
    ...settingsHandlers(state, models),
    ...turnHandlers(state, models, options),
    ...(options.testMethods ? testHandlers() : {}),
  };
}
