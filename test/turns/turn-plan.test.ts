/**
 * Plans through the real child (docs/turns.md, "Plans"): the last plan survives a reopen by a
 * new child; plan records leave the model's context as it was (the call and its result replay);
 * the bounds besides the kit's (turns.plans.*): the explanation, empty steps, and the event size.
 */
import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { call, text, toolCall, toolCalls } from "../fixtures/chat-completions-server.js";
import { startReady } from "../helpers/child.js";
import { bodiesOf, type Loose, recordsOf, resultText } from "./tool-turns.js";
import { runTurn, TURN_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";

const PLAN_CAPS = [...TURN_CAPS, "plans"];

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const plan = (steps: string[], running = -1) =>
  steps.map((step, i) => ({ step, status: i === running ? "in_progress" : "pending" }));

describe("plans", () => {
  test("a reopen by a new child shows the last plan; the next turn's context is unchanged", async () => {
    world = await turnWorld({ capabilities: PLAN_CAPS });
    const w = world;
    const { session } = await w.child.call("session.create", {});
    const last = plan(["one", "two"], 1);
    w.server.reply(
      toolCalls([call("update_plan", { plan: plan(["one", "two"], 0) }, "call_p1")]),
      toolCalls([call("update_plan", { explanation: "on to two", plan: last }, "call_p2")]),
      text("Planned."),
    );
    assert.equal((await runTurn(w.child, "Plan it")).result.status, "completed");
    await w.child.close();
    w.child = await startReady(w.box, PLAN_CAPS, {
      testMethods: true,
      env: { DEMO_KEY: "sk-test-secret-key" },
    });
    await w.child.call("session.open", { id: session.id });
    const plans = (await recordsOf(w.child, session.id)).filter((r: Loose) => r.type === "plan");
    assert.equal(plans.length, 2);
    assert.deepEqual(
      { explanation: plans[1].explanation, plan: plans[1].plan },
      { explanation: "on to two", plan: last },
    );
    assert.equal(typeof plans[1].turn_id, "string");
    w.server.reply(text("Again."));
    assert.equal((await runTurn(w.child, "And now?")).result.status, "completed");
    const request = w.server.requests.at(-1);
    const messages = request?.body.messages as Loose[];
    const calls = messages.filter((m) => m.role === "assistant" && m.tool_calls);
    assert.equal(calls.length, 2, "both update_plan calls replay, each in its own step");
    assert.equal(calls[1].tool_calls[0].id, "call_p2");
    assert.equal(resultText(request, "call_p2"), "Plan updated.");
    assert.deepEqual(messages.at(-1), { role: "user", content: "And now?" });
  });

  test("the explanation at 1000 characters and one past; an empty step; a plan too large to show", async () => {
    world = await turnWorld({ capabilities: PLAN_CAPS });
    const w = world;
    await w.child.call("session.create", {});
    const steps = plan(["a"]);
    // 32 steps of 500 control characters: within every count, but 96 KB as JSON.
    const escaped = Array.from({ length: 32 }, () => ({
      step: "\u0001".repeat(500),
      status: "pending",
    }));
    w.server.reply(
      toolCall("update_plan", { explanation: "é".repeat(1000), plan: steps }),
      toolCall("update_plan", { explanation: "é".repeat(1001), plan: steps }),
      toolCall("update_plan", { plan: [{ step: "  ", status: "pending" }] }),
      toolCall("update_plan", { plan: escaped }),
      toolCall("update_plan", { plan: [] }),
      text("Done."),
    );
    const { result, events } = await runTurn(w.child, "Plan it", "read_only");
    assert.equal(result.status, "completed");
    assert.deepEqual(
      bodiesOf(events, "tool_done").map((d) => d.status),
      ["completed", "failed", "failed", "failed", "completed"],
    );
    const published = bodiesOf(events, "plan");
    assert.deepEqual(
      published.map((p) => [p.explanation?.length ?? null, p.plan.length]),
      [
        [1000, 1],
        [null, 0],
      ],
      "the explanation at its bound and an empty plan are published; nothing else",
    );
    const told = (i: number) => {
      const request = w.server.requests[i + 1];
      const messages = request?.body.messages as Loose[];
      return messages.filter((m) => m.role === "tool").at(-1)?.content;
    };
    assert.match(told(1), /invalid plan: the explanation is over 1000 characters/);
    assert.match(told(2), /invalid plan: step 1 is empty/);
    assert.match(told(3), /invalid plan: the plan is too long to show/);
  });
});
