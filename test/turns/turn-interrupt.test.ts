import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { afterEach, describe, test } from "node:test";
import { groupRuns } from "../../src/agent/tools/process-group.js";
import { answerEvents, custom, fail, text, toolCall } from "../fixtures/chat-completions-server.js";
import {
  answersTo,
  assertInterrupted,
  interruptTurn,
  recordsOf,
  STALLED_TEXT,
  settled,
  stalledTurn,
  within,
} from "./turn-control-fixtures.js";
import {
  eventsOf,
  runTurn,
  type StartedTurn,
  startTurn,
  type TurnEvent,
  type TurnWorld,
  turnWorld,
  typesOf,
} from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The record types of a saved session after its `session_meta`, with key fields. */
function shapes(records: Record<string, unknown>[]): string[] {
  return records.slice(1).map((r) => {
    if (r.type === "turn_end") return `turn_end:${r.status}:${r.stop_reason}`;
    if (r.type === "tool_result") return `tool_result:${r.status}`;
    if (r.type === "assistant_message") return `assistant:${r.interrupted === true}`;
    return String(r.type);
  });
}

/**
 * Starts a full_access turn whose one shell call runs `command` (which prints `$$` first) and
 * resolves once that line is out, with the command's process group.
 */
async function runningCommand(
  world: TurnWorld,
  input: string,
  command: string,
): Promise<{ turn: StartedTurn; pgid: number }> {
  world.server.reply(toolCall("shell", { command }));
  const turn = startTurn(world.child, input, "full_access");
  const output = await turn.event("tool_output_delta", (e) => /\d+\n/.test(String(e.event.text)));
  return { turn, pgid: Number(String(output.event.text).trim()) };
}

/**
 * The events but a hurried checkpoint's timeout: on a loaded machine an interrupted turn's
 * checkpoint can outlast its bound (docs/checkpoints.md), and `checkpoint_failed` with reason
 * `timeout` then says so, wherever the turn was when it was interrupted.
 */
function shownOf(events: TurnEvent[]): TurnEvent[] {
  return events.filter(
    (e) => !(e.event.type === "checkpoint_failed" && e.event.reason === "timeout"),
  );
}

describe("turns: interrupt", () => {
  test("while streaming: the partial text is recorded interrupted, and the next turn sees it", async () => {
    world = await turnWorld();
    const { child, server } = world;
    const { session } = await child.call("session.create", {});
    const turn = await stalledTurn(world, "Tell me a story");
    const interrupted = await interruptTurn(child, turn);
    const { result } = interrupted;
    const events = shownOf(interrupted.events);
    assertInterrupted(result);
    assert.equal(result.steps, 1);
    const done = events.filter((e) => e.event.type === "message_done");
    assert.deepEqual(
      done.map((e) => e.event.text),
      [STALLED_TEXT],
    );
    assert.equal(events.at(-1)?.event.type, "message_done", "no usage: the call never finished");
    const history = await child.call("session.history", { id: session.id });
    const assistant = history.events.find((e) => e.type === "assistant_message");
    assert.equal(assistant?.text, STALLED_TEXT);
    assert.equal(assistant?.interrupted, true);
    const end = history.events.at(-1) as Record<string, unknown>;
    assert.deepEqual(
      [end.type, end.status, end.stop_reason],
      ["turn_end", "interrupted", "interrupted"],
    );
    // The next turn works, and the model is shown the interrupted exchange as it was.
    server.reply(text("Where was I?"));
    const next = await runTurn(child, "Go on");
    assert.equal(next.result.status, "completed");
    assert.deepEqual(server.requests[1]?.body.messages.slice(1), [
      { role: "user", content: "Tell me a story" },
      { role: "assistant", content: STALLED_TEXT },
      { role: "user", content: "Go on" },
    ]);
  });

  test("the interrupt aborts the model's stream: its connection is closed", async () => {
    world = await turnWorld();
    const { child, server } = world;
    await child.call("session.create", {});
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    server.reply(
      custom(({ request, res, socket }) => {
        socket.on("close", () => closed());
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (const line of answerEvents({ text: "Some words" }, request.body.model).slice(0, 3))
          res.write(line);
      }),
    );
    const turn = startTurn(child, "Talk");
    await turn.event("message_delta");
    assertInterrupted((await interruptTurn(child, turn)).result);
    await within(connectionClosed, "the connection to close");
  });

  test("right behind turn.start, in the same read: acknowledged, the model is never called", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    const { session } = await child.call("session.create", {});
    server.reply(text("An answer nobody should see"));
    const id = "t-behind";
    const turn = { id, response: child.waitFor((f) => f.id === id, 30_000) };
    const ack = child.waitFor((f) => f.id === "int-behind");
    child.send(
      `${JSON.stringify({ id, method: "turn.start", params: { input: "Never mind" } })}\n` +
        `${JSON.stringify({ id: "int-behind", method: "turn.interrupt", params: { request_id: id } })}\n`,
    );
    assert.deepEqual((await ack).result, { state: "interrupting", request_id: id });
    const { result, events } = await settled(child, {
      ...turn,
      events: () => eventsOf(child, id),
      event: () => Promise.reject(new Error("unused")),
    });
    assertInterrupted(result);
    assert.equal(result.steps, 0);
    assert.deepEqual(typesOf(shownOf(events)), ["turn_started"]);
    assert.equal(server.requests.length, 0);
    assert.deepEqual(shapes(recordsOf(box, session.id)), [
      "turn_start",
      "user_message",
      "turn_end:interrupted:interrupted",
    ]);
  });

  test("asking twice while it drains acknowledges again; one result", async () => {
    world = await turnWorld();
    const { child } = world;
    await child.call("session.create", {});
    const turn = await stalledTurn(world);
    // Both in one write: the second arrives while the first is still draining the turn.
    const first = child.waitFor((f) => f.id === "int-1");
    const second = child.waitFor((f) => f.id === "int-2");
    child.send(
      `${JSON.stringify({ id: "int-1", method: "turn.interrupt", params: { request_id: turn.id } })}\n` +
        `${JSON.stringify({ id: "int-2", method: "turn.interrupt", params: { request_id: turn.id } })}\n`,
    );
    for (const ack of [await first, await second])
      assert.deepEqual(ack.result, { state: "interrupting", request_id: turn.id });
    assertInterrupted((await settled(child, turn)).result);
  });

  test("during a shell command: the process group is gone, the result is recorded interrupted", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    const { session } = await child.call("session.create", {});
    const { turn, pgid } = await runningCommand(world, "Run the long job", "echo $$; sleep 30");
    assert.ok(pgid > 1 && groupRuns(pgid), "the command runs in its own group");
    const { result, events } = await interruptTurn(child, turn);
    assertInterrupted(result);
    assert.equal(groupRuns(pgid), false, "no process of the group runs after the result");
    const toolDone = events.find((e) => e.event.type === "tool_done");
    assert.equal(toolDone?.event.status, "interrupted");
    assert.equal(toolDone?.event.exit_code, null);
    assert.deepEqual(shapes(recordsOf(box, session.id)), [
      "turn_start",
      "user_message",
      "assistant:false",
      "tool_call",
      "tool_result:interrupted",
      "turn_end:interrupted:interrupted",
    ]);
    // The next turn: the call is shown answered by its interrupted result.
    server.reply(text("It was interrupted."));
    assert.equal((await runTurn(child, "What happened?")).result.status, "completed");
    const messages = server.requests[1]?.body.messages.slice(1);
    assert.equal(messages[1].tool_calls[0].function.name, "shell");
    assert.equal(messages[2].role, "tool");
    assert.equal(messages[2].tool_call_id, messages[1].tool_calls[0].id);
    assert.match(messages[2].content, /interrupted/);
    assert.deepEqual(messages[3], { role: "user", content: "What happened?" });
  });

  test("before the reply's first byte: nothing but the turn's bounds is recorded", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    const { session } = await child.call("session.create", {});
    let asked!: () => void;
    const seen = new Promise<void>((resolve) => {
      asked = resolve;
    });
    // The request is read and never answered: the call waits on the model.
    server.reply(custom(() => asked()));
    const turn = startTurn(child, "Are you there?");
    await within(seen, "the model call");
    const { result, events } = await interruptTurn(child, turn);
    assertInterrupted(result);
    assert.deepEqual(typesOf(shownOf(events)), ["turn_started"]);
    assert.deepEqual(shapes(recordsOf(box, session.id)), [
      "turn_start",
      "user_message",
      "turn_end:interrupted:interrupted",
    ]);
    server.reply(text("Yes."));
    assert.equal((await runTurn(child, "Hello?")).result.status, "completed");
    assert.deepEqual(server.requests[1]?.body.messages.slice(1), [
      { role: "user", content: "Are you there?" },
      { role: "user", content: "Hello?" },
    ]);
  });

  test("a command that ignores SIGTERM: its group is killed after the grace", async () => {
    world = await turnWorld();
    const { child } = world;
    await child.call("session.create", {});
    const { turn, pgid } = await runningCommand(
      world,
      "Run it",
      "trap '' TERM; echo $$; sleep 30; echo late",
    );
    const { result, events } = await interruptTurn(child, turn);
    assertInterrupted(result);
    assert.equal(groupRuns(pgid), false, "no process of the group runs after the result");
    assert.ok(!events.some((e) => String(e.event.text ?? "").includes("late")));
  });

  test("during a retry's wait: the turn ends interrupted without waiting it out", async () => {
    world = await turnWorld();
    const { child, server } = world;
    await child.call("session.create", {});
    server.reply(fail(429, { retryAfter: 50 }));
    const turn = startTurn(child, "Try hard");
    const retry = await turn.event("retry");
    assert.equal(retry.event.delay_ms, 50_000);
    const { result, events } = await interruptTurn(child, turn);
    assertInterrupted(result);
    assert.deepEqual(typesOf(shownOf(events)), ["turn_started", "retry"]);
    assert.equal(server.requests.length, 1, "no second attempt");
  });

  test("while an approval waits: cancelled, the tool interrupted, the turn interrupted", async () => {
    world = await turnWorld();
    const { child, server } = world;
    await child.call("session.create", {});
    server.reply(toolCall("write_file", { path: "a.txt", content: "hello\n" }));
    const turn = startTurn(child, "Write a file", "ask");
    const asked = await turn.event("approval_requested");
    const approvalId = asked.event.approval_id as string;
    const interrupted = await interruptTurn(child, turn);
    const { result } = interrupted;
    const events = shownOf(interrupted.events);
    assertInterrupted(result);
    const tail = typesOf(events).slice(-3);
    assert.deepEqual(tail, ["approval_requested", "approval_resolved", "tool_done"]);
    assert.deepEqual(events.at(-2)?.event, {
      type: "approval_resolved",
      approval_id: approvalId,
      decision: "cancelled",
    });
    assert.equal(events.at(-1)?.event.status, "interrupted");
    assert.equal(
      await child.errorCode("turn.approve", { approval_id: approvalId, decision: "allow_once" }),
      "approval_missing",
    );
    assert.deepEqual(readdirSync(world.box.workspace), [], "nothing was written");
    // The next turn shows the model its call answered as interrupted, and asks for nothing else.
    server.reply(text("Understood, I will not write it."));
    assert.equal((await runTurn(child, "Never mind the file")).result.status, "completed");
    const messages = server.requests[1]?.body.messages.slice(1);
    assert.equal(messages.length, 4);
    assert.equal(messages[1].tool_calls[0].function.name, "write_file");
    assert.equal(messages[2].tool_call_id, messages[1].tool_calls[0].id);
    assert.match(messages[2].content, /interrupted/);
    assert.deepEqual(messages[3], { role: "user", content: "Never mind the file" });
  });
});

describe("turns: shutdown and EOF during a turn", () => {
  test("shutdown: the turn's interrupted result comes before stopped, the child exits 0", async () => {
    world = await turnWorld();
    const { child, box } = world;
    const { session } = await child.call("session.create", {});
    const turn = await stalledTurn(world);
    const stopped = await child.request("shutdown", {}, "bye");
    assert.deepEqual(stopped.result, { state: "stopped" });
    const { result } = await settled(child, turn);
    assertInterrupted(result);
    const at = (id: string) => child.frames.findIndex((f) => f.id === id);
    assert.ok(at(turn.id) < at("bye"), "the turn's result comes before the shutdown's answer");
    assert.equal((await within(child.exited, "the exit")).code, 0);
    assert.deepEqual(shapes(recordsOf(box, session.id)).slice(-2), [
      "assistant:true",
      "turn_end:interrupted:interrupted",
    ]);
  });

  test("shutdown during a command that ignores SIGTERM still drains within the bound", async () => {
    world = await turnWorld();
    const { child } = world;
    await child.call("session.create", {});
    const { turn, pgid } = await runningCommand(world, "Run it", "trap '' TERM; echo $$; sleep 30");
    const stopped = await child.request("shutdown", {}, "bye-term");
    assert.deepEqual(stopped.result, { state: "stopped" });
    const { result, events } = await settled(child, turn);
    assertInterrupted(result);
    assert.equal(events.find((e) => e.event.type === "tool_done")?.event.status, "interrupted");
    assert.equal(groupRuns(pgid), false);
    assert.equal((await within(child.exited, "the exit")).code, 0);
  });

  test("shutdown while an approval waits: cancelled, interrupted, then stopped", async () => {
    world = await turnWorld();
    const { child, server } = world;
    await child.call("session.create", {});
    server.reply(toolCall("shell", { command: "echo never" }));
    const turn = startTurn(child, "Run it", "ask");
    const asked = await turn.event("approval_requested");
    const stopped = await child.request("shutdown", {}, "bye-approval");
    assert.deepEqual(stopped.result, { state: "stopped" });
    const { result, events } = await settled(child, turn);
    assertInterrupted(result);
    const resolved = events.find((e) => e.event.type === "approval_resolved");
    assert.deepEqual(resolved?.event, {
      type: "approval_resolved",
      approval_id: asked.event.approval_id,
      decision: "cancelled",
    });
    assert.ok(!events.some((e) => e.event.type === "tool_output_delta"), "nothing ran");
    assert.equal((await within(child.exited, "the exit")).code, 0);
  });

  test("EOF during a shell command: the group is gone and the child exits 0", async () => {
    world = await turnWorld();
    const { child, box } = world;
    const { session } = await child.call("session.create", {});
    const { pgid } = await runningCommand(world, "Run the long job", "echo $$; sleep 30");
    child.closeStdin();
    assert.deepEqual(await within(child.exited, "the exit"), { code: 0, signal: null });
    assert.equal(groupRuns(pgid), false, "the command did not outlive the child");
    assert.deepEqual(shapes(recordsOf(box, session.id)).slice(-2), [
      "tool_result:interrupted",
      "turn_end:interrupted:interrupted",
    ]);
  });

  test("EOF: the child exits 0 and the history ends with the turn interrupted", async () => {
    world = await turnWorld();
    const { child, box } = world;
    const { session } = await child.call("session.create", {});
    const turn = await stalledTurn(world);
    child.closeStdin();
    assert.deepEqual(await within(child.exited, "the exit"), { code: 0, signal: null });
    // Stdout stays open while the turn drains: if it answered, the answer is its result.
    for (const frame of answersTo(child, turn.id)) assertInterrupted(frame.result as never);
    const records = recordsOf(box, session.id);
    assert.deepEqual(shapes(records).slice(-2), [
      "assistant:true",
      "turn_end:interrupted:interrupted",
    ]);
    assert.equal(records.at(-2)?.text, STALLED_TEXT);
  });
});
