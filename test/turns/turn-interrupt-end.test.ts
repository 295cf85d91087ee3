import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { afterEach, describe, test } from "node:test";
import { text } from "../fixtures/chat-completions-server.js";
import { answersTo, lockPath, recordsOf, settled, waitUntil } from "./turn-control-fixtures.js";
import { startTurn, type TurnWorld, turnWorld } from "./turn-harness.js";

/**
 * An interrupt in the window between a turn's last record and its result (issue 17, defect 6):
 * the turn is still running until its result is written, so the interrupt answers
 * `interrupting`, and the result says what the history says (the turn had already completed).
 *
 * The window is a few microtasks wide in a normal build. MC_AGENT_TEST_HOLD_TURN_END holds it
 * open after the history was closed (server/test-seam.ts), and the test aims at it by the one
 * thing a client can see there: the session's lock is gone. A child that drops the turn before
 * it closes the history (as main did) has forgotten the turn by then, and answers turn_missing.
 */

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("turns: an interrupt as the turn ends", () => {
  test("after the last record, before the result: interrupting, then the completed result", async () => {
    world = await turnWorld({ env: { MC_AGENT_TEST_HOLD_TURN_END: "1" } });
    const { child, server, box } = world;
    const { session } = await child.call("session.create", {});
    server.reply(text("All done."));
    const turn = startTurn(child, "Finish quickly");
    await turn.event("message_done");
    // The lock exists from admission on; once it is gone the history is closed for good.
    await waitUntil(() => !existsSync(lockPath(box, session.id)), "the history to be closed");
    const ack = await child.request("turn.interrupt", { request_id: turn.id });
    assert.deepEqual(
      ack.result,
      { state: "interrupting", request_id: turn.id },
      `answered ${JSON.stringify(ack.error)} once the history was closed`,
    );
    const { result } = await settled(child, turn);
    assert.ok(
      child.frames.indexOf(ack) < child.frames.findIndex((f) => f.id === turn.id),
      "the interrupt was answered before the turn's result",
    );
    // The turn had ended before the interrupt: its result and its history both say completed.
    assert.equal(result.status, "completed");
    assert.equal(result.stop_reason, "end_turn");
    assert.equal(result.steps, 1);
    const ends = recordsOf(box, session.id).filter((r) => r.type === "turn_end");
    assert.deepEqual(
      ends.map((r) => [r.status, r.stop_reason]),
      [["completed", "end_turn"]],
    );
    // Now the result is written, the turn is gone.
    const late = await child.request("turn.interrupt", { request_id: turn.id });
    assert.equal(late.error?.code, "turn_missing");
    assert.equal(answersTo(child, turn.id).length, 1);
  });

  test("shutdown while the end is held: the turn answers its one result first, and the child exits", async () => {
    world = await turnWorld({ env: { MC_AGENT_TEST_HOLD_TURN_END: "1" } });
    const { child, server, box } = world;
    const { session } = await child.call("session.create", {});
    server.reply(text("All done."));
    const turn = startTurn(child, "Finish quickly");
    await turn.event("message_done");
    await waitUntil(() => !existsSync(lockPath(box, session.id)), "the history to be closed");
    const shutdown = await child.request("shutdown", {});
    assert.deepEqual(shutdown.result, { state: "stopped" });
    const { result } = await settled(child, turn);
    assert.equal(result.status, "completed");
    assert.equal((await child.exited).code, 0);
  });
});
