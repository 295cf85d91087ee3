import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { answer, held, text, toolCall } from "../fixtures/chat-completions-server.js";
import type { TestChild } from "../helpers/child.js";
import { interruptTurn, recordsOf, waitUntil } from "./turn-control-fixtures.js";
import {
  finishTurn,
  type StartedTurn,
  startTurn,
  TURN_CAPS,
  type TurnWorld,
  turnWorld,
  typesOf,
} from "./turn-harness.js";
import { gatedShell, steer, steerRecords } from "./turn-steer-fixtures.js";

const STEER_CAPS = [...TURN_CAPS, "turn.steer"];

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The roles and texts of a Chat Completions request after its system message. */
function conversation(body: { messages: { role: string; content: unknown }[] }): string[] {
  return body.messages
    .slice(1)
    .map((m) => `${m.role}:${typeof m.content === "string" ? m.content : ""}`);
}

/** The steer_applied events of a turn, as [steer_id, text]. */
function applied(turn: StartedTurn): [unknown, unknown][] {
  return turn
    .events()
    .flatMap((e) => (e.event.type === "steer_applied" ? [[e.event.steer_id, e.event.text]] : []));
}

async function accepted(child: TestChild, turn: StartedTurn, input: string): Promise<string> {
  const frame = await steer(child, turn.id, input);
  assert.ok(frame.result, `turn.steer answered ${JSON.stringify(frame.error)}`);
  assert.equal(frame.result.state, "accepted");
  return String(frame.result.steer_id);
}

describe("turns: turn.steer", () => {
  test("during streaming text that asks for a tool: delivered after the tool's result, in order, with its records", async () => {
    world = await turnWorld({ capabilities: STEER_CAPS });
    const { child, server, box } = world;
    const { session } = await child.call("session.create", {});
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.reply(
      held(
        { text: "Let me look.", calls: [{ name: "list_dir", input: { path: "." } }] },
        3,
        released,
      ),
      text("Done, with both notes."),
    );
    const turn = startTurn(child, "Tidy up", "full_access");
    await turn.event("message_delta");
    const first = await accepted(child, turn, "not that file, the other one");
    const second = await accepted(child, turn, "also update the tests");
    release();
    const { result, events } = await finishTurn(child, turn);
    assert.equal(result.status, "completed");
    assert.deepEqual(result.undelivered_steers, []);
    assert.equal(result.steps, 2);
    assert.deepEqual(applied(turn), [
      [first, "not that file, the other one"],
      [second, "also update the tests"],
    ]);
    // Both applied after the tool finished, before the second call's output.
    const types = typesOf(events);
    assert.ok(types.lastIndexOf("steer_applied") > types.indexOf("tool_done"));
    assert.ok(types.lastIndexOf("steer_applied") < types.lastIndexOf("message_done"));
    const next = conversation(server.requests[1]?.body);
    assert.deepEqual(
      next.slice(-3).map((m) => m.split(":")[0]),
      ["tool", "user", "user"],
    );
    assert.deepEqual(next.slice(-2), [
      "user:not that file, the other one",
      "user:also update the tests",
    ]);
    // The history holds them in place, inside the turn, as steers.
    const records = recordsOf(box, session.id);
    const order = records.map((r) =>
      r.type === "user_message" && r.steer === true ? `steer:${r.text}` : String(r.type),
    );
    assert.deepEqual(order.slice(order.indexOf("tool_result")), [
      "tool_result",
      "steer:not that file, the other one",
      "steer:also update the tests",
      "assistant_message",
      "turn_end",
    ]);
    assert.ok(steerRecords(records).every((r) => r.turn_id === result.turn_id));
    // A reopened session's next turn replays them in place.
    await child.call("session.open", { id: session.id });
    server.reply(text("Next."));
    await finishTurn(child, startTurn(child, "and now?"));
    const replay = conversation(server.requests[2]?.body);
    assert.deepEqual(
      replay.slice(0, 6).map((m) => m.replace(/^(tool|assistant):.*/, "$1")),
      [
        "user:Tidy up",
        "assistant",
        "tool",
        "user:not that file, the other one",
        "user:also update the tests",
        "assistant",
      ],
    );
    assert.equal(replay.at(-1), "user:and now?");
    // session.history shows the steer records where they happened.
    const history = await child.call("session.history", { id: session.id });
    assert.equal(history.events.filter((e) => e.steer === true).length, 2);
  });

  test("during a tool's run: the next model request carries it after the tool result", async () => {
    world = await turnWorld({ capabilities: STEER_CAPS });
    const { child, server, box } = world;
    await child.call("session.create", {});
    const gate = gatedShell(box.workspace);
    server.reply(toolCall("shell", { command: gate.command }), text("Understood."));
    const turn = startTurn(child, "Run it", "full_access");
    await turn.event("tool_call");
    await accepted(child, turn, "use the other branch");
    gate.open();
    const { result } = await finishTurn(child, turn);
    assert.deepEqual(result.undelivered_steers, []);
    const next = conversation(server.requests[1]?.body);
    assert.match(String(next.at(-2)), /^tool:.*gate open/s);
    assert.equal(next.at(-1), "user:use the other branch");
  });

  test("during an approval wait: delivered once the call was decided and run", async () => {
    world = await turnWorld({ capabilities: STEER_CAPS });
    const { child, server } = world;
    await child.call("session.create", {});
    server.reply(toolCall("write_file", { path: "a.txt", content: "x\n" }), text("Written."));
    const turn = startTurn(child, "Write it", "ask");
    const asked = await turn.event("approval_requested");
    await accepted(child, turn, "name it b.txt next time");
    await child.call("turn.approve", {
      approval_id: String(asked.event.approval_id),
      decision: "allow_once",
    });
    const { result } = await finishTurn(child, turn);
    assert.equal(result.status, "completed");
    const next = conversation(server.requests[1]?.body);
    assert.deepEqual(
      next.slice(-2).map((m) => m.split(":")[0]),
      ["tool", "user"],
    );
    assert.equal(next.at(-1), "user:name it b.txt next time");
  });

  test("during the final answer: the turn makes one more model call with the steer", async () => {
    world = await turnWorld({ capabilities: STEER_CAPS });
    const { child, server } = world;
    await child.call("session.create", {});
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.reply(held(text("Here is the answer."), 3, released), text("Redone in French."));
    const turn = startTurn(child, "Answer me");
    await turn.event("message_delta");
    await accepted(child, turn, "in French please");
    release();
    const { result } = await finishTurn(child, turn);
    assert.equal(result.status, "completed");
    assert.equal(result.steps, 2);
    assert.equal(server.requests.length, 2);
    const next = conversation(server.requests[1]?.body);
    assert.deepEqual(next.slice(-3), [
      "user:Answer me",
      "assistant:Here is the answer.",
      "user:in French please",
    ]);
  });

  test("interrupt with steers pending returns them all, in order, and records none", async () => {
    world = await turnWorld({ capabilities: STEER_CAPS });
    const { child, server, box } = world;
    const { session } = await child.call("session.create", {});
    server.reply(toolCall("write_file", { path: "a.txt", content: "x\n" }));
    const turn = startTurn(child, "Write it", "ask");
    await turn.event("approval_requested");
    const ids = [await accepted(child, turn, "one"), await accepted(child, turn, "two")];
    const { result } = await interruptTurn(child, turn);
    assert.equal(result.status, "interrupted");
    assert.deepEqual(result.undelivered_steers, [
      { steer_id: ids[0], input: "one" },
      { steer_id: ids[1], input: "two" },
    ]);
    assert.deepEqual(applied(turn), []);
    assert.deepEqual(steerRecords(recordsOf(box, session.id)), []);
    // The turn is over: a steer now is turn_missing.
    assert.equal((await steer(child, turn.id, "late")).error?.code, "turn_missing");
  });

  test("a steer counts toward max_steps: one past the bound is returned undelivered", async () => {
    world = await turnWorld({ capabilities: STEER_CAPS });
    const { child, server } = world;
    await child.call("session.create", {});
    const max = 64;
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const calls = Array.from({ length: max - 1 }, () => toolCall("list_dir", { path: "." }));
    server.reply(...calls, held(text("Final."), 3, released));
    const turn = startTurn(child, "Loop", "full_access");
    await waitUntil(() => server.requests.length === max, "the last allowed call");
    await turn.event("message_delta", (e) => e.seq > 0 && server.requests.length === max);
    const id = await accepted(child, turn, "one more thing");
    release();
    const { result } = await finishTurn(child, turn);
    assert.deepEqual(
      [result.status, result.stop_reason, result.steps],
      ["completed", "max_steps", max],
    );
    assert.deepEqual(result.undelivered_steers, [{ steer_id: id, input: "one more thing" }]);
    assert.equal(server.requests.length, max);
  });

  test("refusals: no such turn, a bad input, and without the capability", async () => {
    world = await turnWorld({ capabilities: STEER_CAPS });
    const { child, server } = world;
    await child.call("session.create", {});
    assert.equal((await steer(child, "nope", "hi")).error?.code, "turn_missing");
    server.reply(text("Plain."));
    const { result } = await finishTurn(child, startTurn(child, "hi"));
    assert.deepEqual(result.undelivered_steers, [], "an empty array when none");
    server.reply(answer({ text: "x" }));
    const turn = startTurn(child, "again");
    assert.equal((await steer(child, turn.id, "")).error?.code, "invalid_params");
    assert.equal((await steer(child, turn.id, "é".repeat(131_073))).error?.code, "invalid_params");
    await finishTurn(child, turn);
    await world.close();
    world = await turnWorld();
    await world.child.call("session.create", {});
    assert.equal((await steer(world.child, "x", "hi")).error?.code, "unsupported_capability");
    world.server.reply(text("Plain."));
    const plain = await finishTurn(world.child, startTurn(world.child, "hi"));
    assert.equal("undelivered_steers" in plain.result, false, "no field without the capability");
  });
});
