import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { startChatServer, text, toolCall } from "../../src/conformance/chat-server.js";
import { writeTurnHome } from "../../src/conformance/turn-world.js";
import { sandbox } from "../helpers/child.js";
import { AcpWorld } from "./acp-world.js";

const PLANS = [
  [
    { step: "Map the code", status: "in_progress" },
    { step: "Edit the parser", status: "pending" },
  ],
  [
    { step: "Map the code", status: "completed" },
    { step: "Edit the parser", status: "in_progress" },
  ],
  [
    { step: "Map the code", status: "completed" },
    { step: "Edit the parser", status: "completed" },
  ],
] as const;

const entries = (plan: (typeof PLANS)[number]) =>
  plan.map(({ step, status }) => ({ content: step, priority: "medium", status }));

/** The model's plan as ACP's `plan` session update, live in a prompt and again on load. */
describe("mc-agent acp: the plan", () => {
  let world: AcpWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("each update_plan is a plan update; a load replays the plans, the last one last", async () => {
    const box = sandbox("mc-acp-plan-");
    const server = await startChatServer();
    writeTurnHome(box, server.baseUrl);
    const first = await AcpWorld.start({ box, server });
    await first.initialize();
    const session = await first.newSession();
    server.reply(...PLANS.map((plan) => toolCall("update_plan", { plan })), text("Done."));
    await first.prompt(session.sessionId, "Plan it");
    const live = first.updates("plan").map((u) => (u.sessionUpdate === "plan" ? u.entries : []));
    assert.deepEqual(live, PLANS.map(entries));
    const calls = first.updates("tool_call");
    assert.ok(calls.every((c) => c.sessionUpdate === "tool_call" && c.kind === "think"));
    assert.ok(calls.every((c) => c.sessionUpdate === "tool_call" && c.title === "Update the plan"));
    first.proc.stdin.end();
    await first.exited;

    world = await AcpWorld.start({ box, server });
    await world.initialize();
    await world.agent.request("session/load", {
      sessionId: session.sessionId,
      cwd: box.workspace,
      mcpServers: [],
    });
    const loaded = world.updates("plan").map((u) => (u.sessionUpdate === "plan" ? u.entries : []));
    assert.deepEqual(loaded, PLANS.map(entries), "the load shows the plans in order");
  });
});
