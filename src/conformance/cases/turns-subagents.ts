import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import { call, type SeenRequest, text, toolCalls } from "../chat-server.js";
import { bodiesOf, finishTurn, runTurn, startTurn, type TurnEvent } from "../turn-driver.js";
import { TURN_CAPABILITIES, withTurnWorld } from "../turn-world.js";

/**
 * The `subagents` capability (docs/turns.md, "Subagents"): the `agent` tool runs a nested turn
 * with a fresh context whose final message is the call's result; each of its events reaches the
 * parent's stream whole inside `subagent_event`; its approvals come unwrapped on the parent's
 * stream naming it by `subagent_id`; without the capability there is no `agent` tool.
 */
const SUBAGENT_CAPABILITIES = [...TURN_CAPABILITIES, "subagents"];

// biome-ignore lint/suspicious/noExplicitAny: the Chat Completions wire body, read freely.
type Loose = any;

function offered(request: SeenRequest | undefined): string[] {
  return (request?.body?.tools ?? []).map((t: Loose) => t.function?.name);
}

function userTexts(request: SeenRequest | undefined): unknown[] {
  return (request?.body?.messages ?? [])
    .filter((m: Loose) => m.role === "user")
    .map((m: Loose) => m.content);
}

function toolResult(request: SeenRequest | undefined, id: string): string | undefined {
  const message = (request?.body?.messages ?? []).find(
    (m: Loose) => m.role === "tool" && m.tool_call_id === id,
  );
  return typeof message?.content === "string" ? message.content : undefined;
}

const PARENT_INPUT = "Map the parsers with a helper";
const SUB_PROMPT = "List every parser module and say what each parses.";
const SUB_ANSWER = "Two parsers: json.ts parses JSON, toml.ts parses TOML.";

/** The parent's `agent` call of one helper; `extra` adds `permissions`. */
function agentCall(id: string, extra: Record<string, unknown> = {}) {
  return toolCalls([
    call("agent", { description: "Map the parsers", prompt: SUB_PROMPT, ...extra }, id),
  ]);
}

/** The events between the `agent` call's tool_call and its tool_done, and those two. */
function agentSpan(events: TurnEvent[]) {
  const callAt = events.findIndex(
    (e) => e.event.type === "tool_call" && (e.event as Loose).tool === "agent",
  );
  assert.ok(callAt >= 0, "the agent call is announced with tool_call");
  const itemId = (events[callAt]?.event as Loose)?.item_id as string;
  const doneAt = events.findIndex(
    (e) => e.event.type === "tool_done" && (e.event as Loose).item_id === itemId,
  );
  assert.ok(doneAt > callAt, "the agent call ends with its tool_done");
  return { itemId, callAt, doneAt, done: events[doneAt]?.event as Loose };
}

export const TURN_SUBAGENT_CASES: ConformanceCase[] = [
  {
    id: "turns.subagents.answer",
    tier: "MUST",
    clause:
      "docs/turns.md, Subagents: `agent` runs a nested turn with a fresh context (the system prompt and its prompt, none of the parent's history), offered neither `agent` nor `update_plan`; its last message is the call's result, which the parent's next model call carries under the call's ID.",
    title: "one subagent: a fresh conversation with its prompt; its answer is the tool result",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          await child.call("session.create", {});
          server.reply(agentCall("call_helper"), text(SUB_ANSWER), text("The helper mapped it."));
          const { result, events } = await runTurn(child, PARENT_INPUT, "ask");
          assert.equal(result.status, "completed");
          assert.ok(offered(server.requests[0]).includes("agent"), "agent is offered");
          assert.equal(server.requests.length, 3, "parent, subagent, parent");
          const sub = server.requests[1];
          assert.deepEqual(userTexts(sub), [SUB_PROMPT], "the subagent's one user message");
          assert.ok(
            !JSON.stringify(sub?.body?.messages).includes(PARENT_INPUT),
            "none of the parent's conversation reaches the subagent",
          );
          const subTools = offered(sub);
          assert.ok(!subTools.includes("agent"), "a subagent starts no subagent (depth 1)");
          assert.ok(!subTools.includes("update_plan"), "a subagent has no plan tool");
          assert.equal(
            toolResult(server.requests[2], "call_helper"),
            SUB_ANSWER,
            "the subagent's final message is the call's result",
          );
          const { done } = agentSpan(events);
          assert.equal(done.status, "completed");
        },
        { capabilities: SUBAGENT_CAPABILITIES },
      );
    },
  },
  {
    id: "turns.subagents.wrapped",
    tier: "MUST",
    clause:
      "docs/turns.md, Subagents: each event of the subagent's turn reaches the parent's stream whole as `subagent_event {item_id, subagent_id, event}`, `item_id` the parent's `agent` call and `subagent_id` the same ID, between that call's tool_call and tool_done; the parent's own events are never wrapped and none of the subagent's (but its approvals) come unwrapped.",
    title: "subagent_event wraps the subagent's turn, inside the agent call's span",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          await child.call("session.create", {});
          server.reply(agentCall("call_helper"), text(SUB_ANSWER), text("Mapped."));
          const { result, events } = await runTurn(child, PARENT_INPUT, "ask");
          assert.equal(result.status, "completed");
          const { itemId, callAt, doneAt } = agentSpan(events);
          const wrappedAt = events
            .map((e, i) => (e.event.type === "subagent_event" ? i : -1))
            .filter((i) => i >= 0);
          assert.ok(wrappedAt.length > 0, "the subagent's events are on the parent's stream");
          assert.ok(
            wrappedAt.every((i) => i > callAt && i < doneAt),
            "between the agent call's tool_call and tool_done",
          );
          const wrapped = bodiesOf(events, "subagent_event");
          for (const w of wrapped) {
            assert.equal(w.item_id, itemId, "item_id is the parent's agent call");
            assert.equal(w.subagent_id, itemId, "subagent_id is the same ID");
          }
          const inner = wrapped.map((w) => w.event);
          assert.equal(inner[0]?.type, "turn_started", "the subagent's turn starts first");
          const message = inner.find((e) => e.type === "message_done") as Loose;
          assert.equal(message?.text, SUB_ANSWER, "its message whole, inside the wrapper");
          assert.ok(
            inner.some((e) => e.type === "usage"),
            "its usage comes wrapped, not as the parent's",
          );
          assert.equal(
            bodiesOf(events, "turn_started").length,
            1,
            "only the parent's own turn_started is unwrapped",
          );
          assert.equal(
            bodiesOf(events, "message_done").filter((m) => m.text === SUB_ANSWER).length,
            0,
            "the subagent's message is not the parent's",
          );
        },
        { capabilities: SUBAGENT_CAPABILITIES },
      );
    },
  },
  {
    id: "turns.subagents.approval",
    tier: "MUST",
    clause:
      "docs/turns.md, Subagents: a subagent's approvals are not wrapped: `approval_requested` comes on the parent's stream, answered with turn.approve, carrying `subagent_id` (null for the parent's own calls); denied, the subagent's model is told and nothing is written.",
    title: "a subagent's write under ask: approval_requested names it; denied, nothing written",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          await child.call("session.create", {});
          server.reply(
            toolCalls([call("write_file", { path: "parent.txt", content: "p\n" }, "call_own")]),
            agentCall("call_helper", { permissions: "ask" }),
            toolCalls([call("write_file", { path: "helper.txt", content: "h\n" }, "call_sub")]),
            text("I could not write it."),
            text("Done."),
          );
          const turn = startTurn(child, PARENT_INPUT, "ask");
          const own = (await turn.event("approval_requested")).event as Loose;
          assert.equal(own.subagent_id, null, "the parent's own approval names no subagent");
          await child.call("turn.approve", { approval_id: own.approval_id, decision: "deny" });
          const helper = await turn.event(
            "approval_requested",
            (e) => (e.event as Loose).approval_id !== own.approval_id,
          );
          const asked = helper.event as Loose;
          await child.call("turn.approve", { approval_id: asked.approval_id, decision: "deny" });
          const { result, events } = await finishTurn(child, turn);
          assert.equal(result.status, "completed");
          const { itemId } = agentSpan(events);
          assert.equal(asked.subagent_id, itemId, "the subagent's approval names it");
          assert.equal(asked.kind, "edit");
          const inner = bodiesOf(events, "subagent_event").map((w) => w.event.type);
          assert.ok(
            !inner.includes("approval_requested") && !inner.includes("approval_resolved"),
            "approvals are never wrapped",
          );
          const resolved = bodiesOf(events, "approval_resolved").map((r) => r.approval_id);
          assert.ok(resolved.includes(asked.approval_id), "its approval is resolved on top");
          assert.match(
            toolResult(server.requests[3], "call_sub") ?? "",
            /denied/i,
            "the subagent's model is told of the denial",
          );
          assert.ok(!existsSync(join(ctx.box.workspace, "helper.txt")), "nothing was written");
        },
        { capabilities: SUBAGENT_CAPABILITIES },
      );
    },
  },
  {
    id: "turns.subagents.not_negotiated",
    tier: "MUST",
    clause:
      "brief: a new tool, field and event exist only when their capability is negotiated. Without `subagents`, `agent` is not offered, a call of it is an unknown tool that runs nothing, no subagent_event is sent, and approval_requested has no `subagent_id`.",
    title: "without subagents: no agent tool, no subagent_event, no subagent_id",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        await child.call("session.create", {});
        server.reply(
          agentCall("call_helper"),
          toolCalls([call("write_file", { path: "parent.txt", content: "p\n" }, "call_own")]),
          text("Done."),
        );
        const turn = startTurn(child, PARENT_INPUT, "ask");
        const asked = (await turn.event("approval_requested")).event as Loose;
        await child.call("turn.approve", { approval_id: asked.approval_id, decision: "deny" });
        const { result, events } = await finishTurn(child, turn);
        assert.equal(result.status, "completed");
        assert.ok(!offered(server.requests[0]).includes("agent"), "agent is not offered");
        assert.equal(server.requests.length, 3, "no subagent called the model");
        assert.deepEqual(
          bodiesOf(events, "tool_done").map((d) => d.status),
          ["failed", "denied"],
          "the agent call is an unknown tool",
        );
        assert.equal(bodiesOf(events, "subagent_event").length, 0);
        assert.ok(!("subagent_id" in asked), "no subagent_id without the capability");
      });
    },
  },
];
