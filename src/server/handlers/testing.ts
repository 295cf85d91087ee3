import type { HandlerTable } from "../handler.js";
import { cancellableSleep } from "../handler.js";

/**
 * Test-only methods, reachable only when the child runs with MC_AGENT_TEST_METHODS=1. They give
 * the black-box tests a deliberately slow operation for admission, cancellation and shutdown.
 * They are not capabilities, not in the published schema and not in the docs' method list.
 */
export function testHandlers(): HandlerTable {
  return {
    "test.sleep": async (params, ctx) => {
      if (params.stubborn) {
        await new Promise((resolve) => setTimeout(resolve, params.ms));
      } else {
        await cancellableSleep(params.ms, ctx.signal);
      }
      return { slept_ms: params.ms };
    },
  };
}
