/**
 * Issue 17, defect 1: nothing a tool does outlives interrupt, shutdown or EOF. A FIFO in the
 * workspace is a tool error, never a blocking open; and whatever a tool is stuck in (here a
 * thread blocked in the kernel on purpose, by the test build's MC_AGENT_TEST_BLOCKING_OPEN),
 * interrupt, shutdown and EOF end the turn and the child within `cleanup_ms`, the lock is
 * released, and a new child takes the session over.
 */
import assert from "node:assert/strict";
import { lstatSync, writeFileSync } from "node:fs";
import { afterEach, describe, test } from "node:test";
import { answer, call, text, toolCall } from "../fixtures/chat-completions-server.js";
import {
  alive,
  assertWithinCleanup,
  mkfifo,
  sessionTakenOver,
  shapes,
  stuckInFifoOpen,
  timed,
  workspaceFile,
} from "./lifecycle-fixtures.js";
import { bodiesOf, runApproving } from "./tool-turns.js";
import { assertInterrupted, recordsOf, settled, within } from "./turn-control-fixtures.js";
import { type StartedTurn, startTurn, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("turns: a FIFO in the workspace", () => {
  test("read_file, write_file and edit_file refuse it as a tool error; search skips it", async () => {
    world = await turnWorld();
    const { child, server } = world;
    mkfifo(workspaceFile(world, "pipe"));
    mkfifo(workspaceFile(world, ".gitignore"));
    writeFileSync(workspaceFile(world, "notes.txt"), "a needle here\n");
    await child.call("session.create", {});
    server.reply(
      answer({
        calls: [
          call("read_file", { path: "pipe" }, "c_read"),
          call("write_file", { path: "pipe", content: "replaced\n" }, "c_write"),
          call("edit_file", { path: "pipe", old_text: "a", new_text: "b" }, "c_edit"),
          call("search", { pattern: "needle" }, "c_search"),
        ],
      }),
      text("Done."),
    );
    // The old code never came back from the first call: bounded, so that it fails instead.
    const run = await within(
      runApproving(child, "look at the pipe", "full_access", []),
      "the turn with FIFO reads to end",
    );
    assert.equal(run.result.status, "completed");
    const done = bodiesOf(run.events, "tool_done");
    assert.deepEqual(
      done.map((d) => d.status),
      ["failed", "failed", "failed", "completed"],
    );
    assert.equal(done[0].summary, "pipe is not a regular file (use list_dir for folders)");
    assert.equal(done[1].summary, "pipe is not a regular file");
    assert.equal(done[2].summary, "pipe is not a regular file");
    assert.match(done[3].summary, /1 match/);
    assert.ok(lstatSync(workspaceFile(world, "pipe")).isFIFO(), "the FIFO was not replaced");
  });
});

/**
 * A session, and a turn whose read_file is stuck in the kernel for good: the test build opens
 * the FIFO blocking, and nobody ever writes to it.
 */
async function stuckTurn(): Promise<{ world: TurnWorld; turn: StartedTurn; sessionId: string }> {
  const stuck = await turnWorld({ env: { MC_AGENT_TEST_BLOCKING_OPEN: "1" } });
  mkfifo(workspaceFile(stuck, "pipe"));
  const { session } = await stuck.child.call("session.create", {});
  stuck.server.reply(toolCall("read_file", { path: "pipe" }));
  const turn = startTurn(stuck.child, "read the pipe", "full_access");
  await turn.event("tool_call");
  await stuckInFifoOpen(stuck.child.pid as number);
  return { world: stuck, turn, sessionId: session.id };
}

/** The stuck call ended `interrupted`, in the events and in the history. */
function assertStuckCallInterrupted(
  events: { event: Record<string, unknown> }[],
  records: Record<string, unknown>[],
) {
  const done = events.filter((e) => e.event.type === "tool_done").map((e) => e.event.status);
  assert.deepEqual(done, ["interrupted"]);
  assert.deepEqual(shapes(records), [
    "turn_start",
    "user_message",
    "assistant_message",
    "tool_call",
    "tool_result:interrupted",
    "turn_end:interrupted",
  ]);
}

describe("turns: a tool stuck in the kernel does not outlive the turn or the child", () => {
  test("interrupt: the turn ends within cleanup_ms, the worker is free, and shutdown still exits", async () => {
    const stuck = await stuckTurn();
    world = stuck.world;
    const { child, server } = world;
    const ended = timed(
      (async () => {
        const ack = await child.request("turn.interrupt", { request_id: stuck.turn.id });
        assert.equal((ack.result as { state: string }).state, "interrupting");
        return settled(child, stuck.turn);
      })(),
      "the interrupted turn's result",
    );
    const { value, ms } = await ended;
    assertInterrupted(value.result);
    assertWithinCleanup(ms, "the interrupt");
    assertStuckCallInterrupted(value.events, recordsOf(world.box, stuck.sessionId));
    // The worker is free again: the next turn runs (the old code answered every one `busy`).
    server.reply(text("Fine."));
    const next = await within(
      runApproving(child, "and now?", "full_access", []),
      "the next turn to end",
    );
    assert.equal(next.result.status, "completed");
    // The thread is still stuck; shutdown still ends the child within the bound.
    const pid = child.pid as number;
    const exited = timed(
      (async () => {
        const answer = await child.request("shutdown", {});
        assert.deepEqual(answer.result, { state: "stopped" });
        return child.exited;
      })(),
      "the child to exit",
    );
    const exit = await exited;
    assertWithinCleanup(exit.ms, "the exit after shutdown");
    // No exit path of Node can finish while a threadpool thread is stuck: it kills itself.
    assert.deepEqual(exit.value, { code: null, signal: "SIGKILL" });
    assert.equal(alive(pid), false);
    await sessionTakenOver(world, stuck.sessionId);
  });

  test("shutdown: the turn answers interrupted, then stopped, and the child is gone within cleanup_ms", async () => {
    const stuck = await stuckTurn();
    world = stuck.world;
    const { child } = world;
    const stopped = timed(
      (async () => {
        const answer = await child.request("shutdown", {});
        await child.exited;
        return answer;
      })(),
      "the shutdown answer and the exit",
    );
    const { value: answer, ms } = await stopped;
    assert.deepEqual(answer.result, { state: "stopped" });
    assertWithinCleanup(ms, "shutdown");
    const { result, events } = await settled(child, stuck.turn);
    assertInterrupted(result);
    const ids = child.frames.filter((f) => f.id !== null).map((f) => f.id);
    assert.ok(ids.indexOf(stuck.turn.id) < ids.indexOf(answer.id), "the turn answered first");
    assertStuckCallInterrupted(events, recordsOf(world.box, stuck.sessionId));
    assert.equal(alive(child.pid as number), false);
    await sessionTakenOver(world, stuck.sessionId);
  });

  test("EOF: the turn still answers interrupted, and the child is gone within cleanup_ms", async () => {
    const stuck = await stuckTurn();
    world = stuck.world;
    const { child } = world;
    const gone = timed(
      (async () => {
        child.closeStdin();
        return child.exited;
      })(),
      "the exit after EOF",
    );
    assertWithinCleanup((await gone).ms, "EOF");
    const { result, events } = await settled(child, stuck.turn);
    assertInterrupted(result);
    assertStuckCallInterrupted(events, recordsOf(world.box, stuck.sessionId));
    assert.equal(alive(child.pid as number), false);
    await sessionTakenOver(world, stuck.sessionId);
  });
});
