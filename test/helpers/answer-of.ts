import assert from "node:assert/strict";
import { Dispatcher } from "../../src/server/dispatcher.js";
import type { HandlerTable } from "../../src/server/handler.js";
import type { ServerState } from "../../src/server/state.js";

/**
 * The full child's one answer to `frame`, from a fresh dispatcher over `state` and `handlers`
 * (`prepare` adopts what came before it, such as an initialize), waited for in steps of 5 ms at
 * most `steps` times: the in-process side of the starter's fast-path tests.
 */
export async function fullChildAnswer(
  state: ServerState,
  handlers: HandlerTable,
  frame: string,
  options: { prepare?: (dispatcher: Dispatcher) => void; steps?: number } = {},
): Promise<string> {
  const lines: string[] = [];
  const dispatcher = new Dispatcher({
    state,
    handlers,
    write: async (line) => void lines.push(line),
    onStopped: () => {},
  });
  options.prepare?.(dispatcher);
  dispatcher.handle({ kind: "frame", bytes: Buffer.from(frame) });
  const steps = options.steps ?? 400;
  for (let i = 0; lines.length === 0 && i < steps; i++)
    await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(lines.length, 1, "the full child answered once");
  return lines[0] as string;
}
