/**
 * A started turn world on the sandboxed-level tests' box (sandbox-box.ts: real folders under
 * /var/tmp, a user home of its own), for tests that need the real bubblewrap.
 */
import assert from "node:assert/strict";
import { type Box, userEnv, varTmpBox } from "./sandbox-box.js";
import { type TurnWorld, turnWorld } from "./turn-harness.js";

export { skipReason as sandboxSkipReason } from "./sandbox-box.js";
export type UserBox = Box;

/** A started world on a fresh user box, its session created; close both when done. */
export async function userBoxWorld(): Promise<{ world: TurnWorld; box: UserBox }> {
  const box = varTmpBox();
  const world = await turnWorld({ box, child: { env: userEnv(box) } });
  const init = world.child.frames[0]?.result as { extensions: { turn: { sandbox: unknown } } };
  assert.equal(init.extensions.turn.sandbox, "bubblewrap", "the child found bubblewrap");
  await world.child.call("session.create", {});
  return { world, box };
}
