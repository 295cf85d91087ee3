import assert from "node:assert/strict";
import type { ConformanceCase } from "../case.js";
import { call, type SeenRequest, text, toolCalls } from "../chat-server.js";
import { bodiesOf, historyOf, runTurn } from "../turn-driver.js";
import { TURN_CAPABILITIES, withTurnWorld } from "../turn-world.js";

/**
 * The `plans` capability (docs/turns.md, "Plans"): `update_plan` is offered only when it is
 * negotiated; each valid call is one `plan` event (between the call's tool_call and tool_done)
 * and one `plan` record; an invalid plan is a tool error and publishes nothing; the bounds are
 * 32 steps, 500 characters a step, one step in_progress.
 */
const PLAN_CAPABILITIES = [...TURN_CAPABILITIES, "plans"];

type Step = { step: string; status: "pending" | "in_progress" | "completed" };
type Plan = { explanation: string | null; plan: Step[] };

const PLANS: Plan[] = [
  {
    explanation: "Three steps",
    plan: [
      { step: "Map the code", status: "in_progress" },
      { step: "Edit the parser", status: "pending" },
      { step: "Run the tests", status: "pending" },
    ],
  },
  {
    explanation: null,
    plan: [
      { step: "Map the code", status: "completed" },
      { step: "Edit the parser", status: "in_progress" },
      { step: "Run the tests", status: "pending" },
    ],
  },
  {
    explanation: "All done",
    plan: [
      { step: "Map the code", status: "completed" },
      { step: "Edit the parser", status: "completed" },
      { step: "Run the tests", status: "completed" },
    ],
  },
];

/** The model's call of `update_plan` with `plan` (no explanation key when it is null). */
function planCall(plan: Plan, id: string) {
  const input = plan.explanation === null ? { plan: plan.plan } : plan;
  return toolCalls([call("update_plan", input, id)]);
}

// biome-ignore lint/suspicious/noExplicitAny: the Chat Completions wire body, read freely.
type Loose = any;

function offered(request: SeenRequest | undefined): string[] {
  return (request?.body?.tools ?? []).map((t: Loose) => t.function?.name);
}

function toolResult(request: SeenRequest | undefined, id: string): Loose {
  return (request?.body?.messages ?? []).find(
    (m: Loose) => m.role === "tool" && m.tool_call_id === id,
  );
}

const steps = (n: number, chars: number, running = 0): Step[] =>
  Array.from({ length: n }, (_, i) => ({
    step: `${i}`.padEnd(chars, "s"),
    status: i < running ? "in_progress" : "pending",
  }));

export const TURN_PLAN_CASES: ConformanceCase[] = [
  {
    id: "turns.plans.published",
    tier: "MUST",
    clause:
      "docs/turns.md, Plans: with `plans` negotiated update_plan is offered at every level; each call emits `plan {explanation, plan}` between its tool_call and tool_done and appends a `plan` record with the same fields, so the history's last plan is the last call's.",
    title: "three update_plan calls: three plan events, three plan records, the last kept",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          const { session } = await child.call("session.create", {});
          server.reply(...PLANS.map((plan, i) => planCall(plan, `call_plan_${i}`)), text("Done."));
          const { result, events } = await runTurn(child, "Plan it", "read_only");
          assert.equal(result.status, "completed");
          assert.ok(offered(server.requests[0]).includes("update_plan"), "offered under read_only");
          const shown = bodiesOf(events, "plan").map(({ explanation, plan }) => ({
            explanation,
            plan,
          }));
          assert.deepEqual(shown, PLANS, "one plan event per call, the whole plan each time");
          for (const planEvent of events.filter((e) => e.event.type === "plan")) {
            const before = events.filter((e) => e.seq < planEvent.seq);
            const call = before.filter((e) => e.event.type === "tool_call").at(-1)?.event as Loose;
            assert.equal(call?.tool, "update_plan");
            const done = events.find((e) => e.seq > planEvent.seq && e.event.type === "tool_done");
            assert.equal(
              (done?.event as Loose)?.item_id,
              call.item_id,
              "plan before its tool_done",
            );
            assert.equal((done?.event as Loose)?.status, "completed");
          }
          assert.equal(typeof toolResult(server.requests[1], "call_plan_0")?.content, "string");
          const records = (await historyOf(child, session.id)).filter((r) => r.type === "plan");
          assert.deepEqual(
            records.map(({ explanation, plan }) => ({ explanation, plan })),
            PLANS,
            "one plan record per call, in order",
          );
        },
        { capabilities: PLAN_CAPABILITIES },
      );
    },
  },
  {
    id: "turns.plans.bounds",
    tier: "MUST",
    clause:
      "docs/turns.md, Plans: at most 32 steps, 500 characters a step, one step in_progress; a plan at the bounds is published, one past any of them is a tool error that emits no plan event and writes no plan record.",
    title: "update_plan at its bounds and one past: the past ones are tool errors, unpublished",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          const { session } = await child.call("session.create", {});
          const bad: Step[][] = [steps(33, 10), steps(3, 501), steps(3, 10, 2)];
          const good = steps(32, 500, 1);
          server.reply(
            ...bad.map((plan, i) => toolCalls([call("update_plan", { plan }, `call_bad_${i}`)])),
            toolCalls([call("update_plan", { plan: good }, "call_good")]),
            text("Done."),
          );
          const { result, events } = await runTurn(child, "Plan it", "ask");
          assert.equal(result.status, "completed");
          const plans = bodiesOf(events, "plan");
          assert.equal(plans.length, 1, "only the plan at the bounds is published");
          assert.deepEqual(plans[0]?.plan, good);
          const done = bodiesOf(events, "tool_done").map((d) => d.status);
          assert.deepEqual(done, ["failed", "failed", "failed", "completed"]);
          for (let i = 0; i < bad.length; i++) {
            const answer = toolResult(server.requests[i + 1], `call_bad_${i}`);
            assert.match(
              String(answer?.content),
              /invalid plan/,
              "the model is told what is wrong",
            );
          }
          const records = (await historyOf(child, session.id)).filter((r) => r.type === "plan");
          assert.equal(records.length, 1, "only the plan at the bounds is recorded");
        },
        { capabilities: PLAN_CAPABILITIES },
      );
    },
  },
  {
    id: "turns.plans.not_negotiated",
    tier: "MUST",
    clause:
      "brief: a new tool and event exist only when their capability is negotiated. Without `plans`, update_plan is not offered, a call of it is an unknown tool, and no plan event is sent.",
    title: "without plans: update_plan not offered, no plan event",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        await child.call("session.create", {});
        server.reply(planCall(PLANS[0] as Plan, "call_plan_x"), text("Done."));
        const { result, events } = await runTurn(child, "Plan it", "read_only");
        assert.equal(result.status, "completed");
        assert.ok(!offered(server.requests[0]).includes("update_plan"));
        assert.equal(bodiesOf(events, "plan").length, 0);
        assert.deepEqual(
          bodiesOf(events, "tool_done").map((d) => d.status),
          ["failed"],
        );
      });
    },
  },
];
