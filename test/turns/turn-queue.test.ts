import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { held, text } from "../fixtures/chat-completions-server.js";
import { type Frame, nextId, type TestChild } from "../helpers/child.js";
import { recordsOf } from "./turn-control-fixtures.js";
import { finishTurn, startTurn, TURN_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";
import { steer } from "./turn-steer-fixtures.js";

const QUEUE_CAPS = [...TURN_CAPS, "turn.queue", "turn.steer"];

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Sends a `queue: true` turn.start; its ID and its answer. */
function queued(child: TestChild, input: string): { id: string; response: Promise<Frame> } {
  const id = nextId("q");
  const response = child.waitFor((f) => f.id === id, 60_000);
  child.send({ id, method: "turn.start", params: { input, queue: true } });
  return { id, response };
}

/** A running first turn whose reply waits for `release()`. */
async function runningTurn(w: TurnWorld) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  w.server.reply(held(text("First done."), 3, released));
  const turn = startTurn(w.child, "first");
  await turn.event("message_delta");
  return { turn, release };
}

/** What a waiting request removed before it started answers. */
function assertRemoved(frame: Frame, sessionId: string): void {
  assert.deepEqual(frame.result, {
    turn_id: null,
    session_id: sessionId,
    status: "interrupted",
    stop_reason: "interrupted",
    error: null,
    usage: { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, reasoning_tokens: 0 },
    steps: 0,
    undelivered_steers: [],
  });
}

describe("turns: queue: true", () => {
  test("three queued turns run in order after the first; one removed while waiting writes nothing", async () => {
    world = await turnWorld({ capabilities: QUEUE_CAPS });
    const { child, server, box } = world;
    const { session } = await child.call("session.create", {});
    const { turn, release } = await runningTurn(world);
    const waiting = ["second", "third", "fourth", "fifth"].map((input) => queued(child, input));
    // A waiting request is not running: it cannot be steered, and status counts it.
    assert.equal((await steer(child, waiting[0]?.id ?? "", "x")).error?.code, "turn_missing");
    const status = await child.call("status", {});
    assert.equal(status.active_requests.filter((r) => r.method === "turn.start").length, 5);
    // Removing the fourth answers it at once, and nothing of it is ever written.
    const removal = await child.request("turn.interrupt", { request_id: waiting[2]?.id });
    assert.deepEqual(removal.result, { state: "interrupting", request_id: waiting[2]?.id });
    assertRemoved(await (waiting[2] as { response: Promise<Frame> }).response, session.id);
    server.reply(text("Second done."), text("Third done."), text("Fifth done."));
    release();
    const first = await finishTurn(child, turn);
    assert.equal(first.result.status, "completed");
    const results = [];
    for (const at of [0, 1, 3]) {
      const frame = await (waiting[at] as { response: Promise<Frame> }).response;
      assert.ok(frame.result, JSON.stringify(frame.error));
      results.push(frame.result as Record<string, unknown>);
    }
    assert.deepEqual(
      results.map((r) => r.status),
      ["completed", "completed", "completed"],
    );
    // In order: each model request saw the previous turns, and the last input is its own.
    const lastInputs = server.requests.map((r) => r.body.messages.at(-1).content);
    assert.deepEqual(lastInputs, ["first", "second", "third", "fifth"]);
    const inputs = recordsOf(box, session.id)
      .filter((r) => r.type === "user_message")
      .map((r) => r.text);
    assert.deepEqual(inputs, ["first", "second", "third", "fifth"]);
  });

  test("the ninth waiting request is busy; shutdown answers every waiting one", async () => {
    world = await turnWorld({ capabilities: QUEUE_CAPS });
    const { child } = world;
    const { session } = await child.call("session.create", {});
    await runningTurn(world);
    const waiting = Array.from({ length: 8 }, (_, i) => queued(child, `queued ${i}`));
    const ninth = queued(child, "one too many");
    assert.equal((await ninth.response).error?.code, "busy");
    // Without queue a second start is busy as ever.
    assert.equal(await child.errorCode("turn.start", { input: "plain" }), "busy");
    const shutdown = child.request("shutdown", {});
    for (const entry of waiting) assertRemoved(await entry.response, session.id);
    assert.equal((await shutdown).result?.state, "stopped");
  });

  test("EOF answers every waiting request before the child exits", async () => {
    world = await turnWorld({ capabilities: QUEUE_CAPS });
    const { child } = world;
    const { session } = await child.call("session.create", {});
    await runningTurn(world);
    const waiting = [queued(child, "a"), queued(child, "b")];
    child.closeStdin();
    for (const entry of waiting) assertRemoved(await entry.response, session.id);
    await child.exited;
  });

  test("queue needs turn.queue, and is busy behind a worker that is not a turn (model.select, model.refresh)", async () => {
    world = await turnWorld({ capabilities: QUEUE_CAPS });
    const { child } = world;
    await child.call("session.create", {});
    // Behind a worker that is not a turn (test.sleep_worker holds it as model.refresh does).
    const sleeping = child.request("test.sleep_worker", { ms: 3000 });
    const behindWorker = queued(child, "waits?");
    assert.equal((await behindWorker.response).error?.code, "busy");
    await sleeping;
    await world.close();
    world = await turnWorld();
    await world.child.call("session.create", {});
    const refused = queued(world.child, "no capability");
    assert.equal((await refused.response).error?.code, "unsupported_capability");
  });
});
