import { lazyBuilds } from "../../protocol/lazy.js";
import type { ParamsOf } from "../../protocol/methods.js";
import { builtSchemaNames } from "../../protocol/schema-modules.js";
import { cancellableSleep, type HandlerTable, type RequestContext } from "../handler.js";

/**
 * Test-only methods, reachable only when the child runs with MC_AGENT_TEST_METHODS=1. They give
 * the black-box tests a deliberately slow operation for admission, cancellation and shutdown,
 * and the schemas built so far (test/server/start-lazy.test.ts: a start builds only its own).
 * They are not capabilities, not in the published schema and not in the docs' method list.
 */
export function testHandlers(): HandlerTable {
  return {
    "test.sleep": sleep,
    "test.sleep_worker": sleep,
    "test.schemas": async () => ({ built: builtSchemaNames(), builds: lazyBuilds() }),
  };
}

/** Sleeps `ms`; honours cancellation unless `stubborn` (to exercise the cleanup bound). */
async function sleep(params: ParamsOf<"test.sleep">, ctx: RequestContext) {
  if (params.stubborn) {
    await new Promise((resolve) => setTimeout(resolve, params.ms));
  } else {
    await cancellableSleep(params.ms, ctx.signal);
  }
  return { slept_ms: params.ms };
}
