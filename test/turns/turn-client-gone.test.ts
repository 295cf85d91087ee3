/**
 * Issue 17, defects 8 and 9 and the interrupt's bound: a client that closed its end of stdout
 * is gone (a streaming command stops as an interrupt, the turn ends, the child exits), a client
 * that stopped reading does not keep the child alive after shutdown, and an interrupt ends a
 * turn within `cleanup_ms` even when the command ignores SIGTERM.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { afterEach, describe, test } from "node:test";
import { groupRuns } from "../../src/agent/tools/process-group.js";
import { endlessReply } from "../../src/conformance/cases/turns-audit-lifecycle.js";
import { toolCall } from "../fixtures/chat-completions-server.js";
import { alive, assertWithinCleanup, shapes, timed } from "./lifecycle-fixtures.js";
import { bodiesOf } from "./tool-turns.js";
import { assertInterrupted, lockPath, recordsOf, settled } from "./turn-control-fixtures.js";
import { type StartedTurn, startTurn, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A full_access turn whose one shell call runs `command` (printing `$$` first), once it runs. */
async function runningCommand(
  w: TurnWorld,
  command: string,
): Promise<{ turn: StartedTurn; pgid: number }> {
  w.server.reply(toolCall("shell", { command }));
  const turn = startTurn(w.child, "run it", "full_access");
  const output = await turn.event("tool_output_delta", (e) => /\d+\n/.test(String(e.event.text)));
  return { turn, pgid: Number.parseInt(String(output.event.text), 10) };
}

describe("turns: a client that is gone or stopped reading", () => {
  test("a client that closed stdout stops a streaming command as an interrupt, and the child exits", async () => {
    world = await turnWorld();
    const { child, box } = world;
    const { session } = await child.call("session.create", {});
    const { pgid } = await runningCommand(world, "echo $$; while :; do echo tick; sleep 0.1; done");
    const pid = child.pid as number;
    child.closeOutput();
    const { value: exit, ms } = await timed(child.exited, "the child to exit");
    // A tick every 100 ms finds the client gone; from there the bound is cleanup_ms.
    assertWithinCleanup(ms, "the exit after the client went away");
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.equal(alive(pid), false);
    assert.equal(groupRuns(pgid), false, "the command's group is gone");
    assert.deepEqual(shapes(recordsOf(box, session.id)).slice(-2), [
      "tool_result:interrupted",
      "turn_end:interrupted",
    ]);
    assert.ok(!existsSync(lockPath(box, session.id)), "the lock was removed");
  });

  test("after shutdown, a client that does not read stdout does not keep the child alive", async () => {
    world = await turnWorld();
    const { child, box, server } = world;
    const { session } = await child.call("session.create", {});
    const endless = endlessReply();
    server.reply(endless.script);
    child.pauseOutput();
    startTurn(child, "say a lot");
    await endless.blocked;
    const pid = child.pid as number;
    child.send({ id: "stop", method: "shutdown", params: {} });
    const { value: exit, ms } = await timed(child.exited, "the child to exit");
    assertWithinCleanup(ms, "the exit after shutdown");
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.equal(alive(pid), false);
    // The turn was not held by the full output either: it ended and saved its end.
    assert.deepEqual(shapes(recordsOf(box, session.id)).slice(-2), [
      "assistant_message",
      "turn_end:interrupted",
    ]);
    assert.ok(!existsSync(lockPath(box, session.id)), "the lock was removed");
  });

  test("an interrupt ends the turn within cleanup_ms, even when the command ignores SIGTERM", async () => {
    world = await turnWorld();
    const { child } = world;
    await child.call("session.create", {});
    const { turn, pgid } = await runningCommand(world, `trap "" TERM; echo $$; sleep 30`);
    const { value, ms } = await timed(
      (async () => {
        await child.request("turn.interrupt", { request_id: turn.id });
        return settled(child, turn);
      })(),
      "the interrupted turn's result",
    );
    assertInterrupted(value.result);
    assertWithinCleanup(ms, "the interrupt");
    assert.deepEqual(
      bodiesOf(value.events, "tool_done").map((d) => d.status),
      ["interrupted"],
    );
    assert.equal(groupRuns(pgid), false, "SIGKILL ended the group that ignored SIGTERM");
  });
});
