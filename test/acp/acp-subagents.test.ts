import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import {
  answer,
  call,
  custom,
  held,
  type Script,
  startChatServer,
  text,
  toolCalls,
} from "../../src/conformance/chat-server.js";
import { writeTurnHome } from "../../src/conformance/turn-world.js";
import { sandbox } from "../helpers/child.js";
import { AcpWorld } from "./acp-world.js";

const ANSWER = "Two parsers: json.ts and toml.ts.";

/** Every update about one tool call, in order. */
function about(world: AcpWorld, toolCallId: string): SessionUpdate[] {
  return world
    .updates()
    .filter(
      (u) =>
        (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") &&
        u.toolCallId === toolCallId,
    );
}

function contentText(update: SessionUpdate | undefined): string {
  if (
    !update ||
    (update.sessionUpdate !== "tool_call_update" && update.sessionUpdate !== "tool_call")
  )
    return "";
  return (update.content ?? [])
    .map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : ""))
    .join("\n");
}

/** The toolCallIds the editor was told of, in order of first mention. */
function toolCallIds(world: AcpWorld): string[] {
  const ids: string[] = [];
  for (const u of world.updates())
    if (
      (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") &&
      !ids.includes(u.toolCallId)
    )
      ids.push(u.toolCallId);
  return ids;
}

/**
 * A subagent in an ACP editor (docs/acp.md, "Subagents"): the `agent` call is one `think` tool
 * call titled with its description, its content the subagent's progress while it works and its
 * answer at the end; its approvals are permission requests about its own call, announced and
 * named after it; a load shows the call with its result. Driven by the ACP SDK's own client.
 */
describe("mc-agent acp: subagents", () => {
  let world: AcpWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("one tool call of kind think: progress while it works, the answer at its end, again on load", async () => {
    const box = sandbox("mc-acp-subagent-");
    const server = await startChatServer();
    writeTurnHome(box, server.baseUrl);
    writeFileSync(join(box.workspace, "parsers.txt"), "json.ts\ntoml.ts\n");
    const first = await AcpWorld.start({ box, server });
    await first.initialize();
    const session = await first.newSession();
    server.reply(
      toolCalls([
        call("agent", { description: "Map the parsers", prompt: "List the parsers" }, "call_a"),
      ]),
      toolCalls([call("read_file", { path: "parsers.txt" }, "call_r")]),
      text(ANSWER),
      text("The helper mapped them."),
    );
    const answer = await first.prompt(session.sessionId, "Map the parsers with a helper");
    assert.equal(answer.stopReason, "end_turn");
    const ids = toolCallIds(first);
    assert.equal(ids.length, 1, `one tool call, the subagent's own calls folded in: ${ids}`);
    const agentId = ids[0] as string;
    const updates = about(first, agentId);
    const [announced] = updates;
    assert.equal(announced?.sessionUpdate, "tool_call");
    if (announced?.sessionUpdate !== "tool_call") return;
    assert.equal(announced.kind, "think");
    assert.equal(announced.title, "Map the parsers");
    assert.equal(announced.status, "pending");
    const progress = updates.filter(
      (u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress" && u.content,
    );
    assert.ok(progress.length >= 2, "the content is updated while the subagent works");
    assert.ok(
      progress.some((u) => /▸ Read parsers\.txt/.test(contentText(u))),
      `the running read shows: ${progress.map(contentText).join(" | ")}`,
    );
    assert.ok(progress.some((u) => /• Read parsers\.txt · ✓/.test(contentText(u))));
    const end = updates.at(-1);
    assert.equal(end?.sessionUpdate === "tool_call_update" && end.status, "completed");
    const shown = contentText(end);
    assert.match(shown, /^2 steps · 1 tool call/);
    assert.ok(shown.includes(ANSWER), "the subagent's answer is the call's result");
    assert.match(shown, /done in 2 steps/);
    first.proc.stdin.end();
    await first.exited;

    world = await AcpWorld.start({ box, server });
    await world.initialize();
    await world.agent.request("session/load", {
      sessionId: session.sessionId,
      cwd: box.workspace,
      mcpServers: [],
    });
    const loaded = about(world, agentId);
    const [call0, result] = loaded;
    assert.equal(call0?.sessionUpdate, "tool_call");
    if (call0?.sessionUpdate !== "tool_call") return;
    assert.equal(call0.kind, "think");
    assert.equal(call0.title, "Map the parsers");
    assert.equal(result?.sessionUpdate === "tool_call_update" && result.status, "completed");
    assert.equal(contentText(result), ANSWER, "the load shows the subagent's answer");
    assert.deepEqual(toolCallIds(world), [agentId], "the subagent's own calls are not replayed");
  });

  it("a subagent's write asks through session/request_permission, naming the subagent", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const session = await w.newSession();
    w.permission = () => ({ outcome: { outcome: "selected", optionId: "allow_once" } });
    w.server.reply(
      toolCalls([
        call(
          "agent",
          { description: "Fix the notes", prompt: "Write notes.txt", permissions: "ask" },
          "call_a",
        ),
      ]),
      toolCalls([call("write_file", { path: "notes.txt", content: "fixed\n" }, "call_w")]),
      text("Wrote it."),
      text("Done."),
    );
    const answer = await w.prompt(session.sessionId, "Fix the notes with a helper");
    assert.equal(answer.stopReason, "end_turn");
    assert.equal(readFileSync(join(w.box.workspace, "notes.txt"), "utf8"), "fixed\n");
    const [agentId, innerId] = toolCallIds(w);
    assert.ok(agentId && innerId, "the agent call, then the subagent's call that asked");
    const asks = w.seen.filter((s) => s.kind === "permission");
    assert.equal(asks.length, 1);
    const request = asks[0]?.kind === "permission" ? asks[0].request : undefined;
    assert.equal(request?.toolCall.toolCallId, innerId);
    assert.match(String(request?.toolCall.title), /^Fix the notes › /, "it names the subagent");
    assert.equal(request?.toolCall.kind, "edit");
    // The editor was told of the call before it was asked about it.
    const announcedAt = w.seen.findIndex(
      (s) =>
        s.kind === "update" &&
        s.notification.update.sessionUpdate === "tool_call" &&
        s.notification.update.toolCallId === innerId,
    );
    const askedAt = w.seen.findIndex((s) => s.kind === "permission");
    assert.ok(announcedAt >= 0 && announcedAt < askedAt, "announced, then asked about");
    const inner = about(w, innerId as string);
    const announced = inner[0];
    assert.ok(announced?.sessionUpdate === "tool_call");
    if (announced?.sessionUpdate !== "tool_call") return;
    assert.equal(announced.title, request?.toolCall.title);
    assert.deepEqual(announced._meta, {
      "mc-agent": { subagentId: agentId, parentToolCallId: agentId },
    });
    const statuses = inner
      .slice(1)
      .map((u) => (u.sessionUpdate === "tool_call_update" ? u.status : ""));
    assert.deepEqual(statuses, ["in_progress", "completed"], "it runs and ends as any call");
    const end = about(w, agentId as string).at(-1);
    assert.equal(end?.sessionUpdate === "tool_call_update" && end.status, "completed");
    assert.ok(contentText(end).includes("Wrote it."));
  });

  it("denied: the subagent's call fails, nothing is written, the subagent goes on", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const session = await w.newSession();
    w.permission = () => ({ outcome: { outcome: "selected", optionId: "reject_once" } });
    w.server.reply(
      toolCalls([
        call("agent", { description: "Fix", prompt: "Write x.txt", permissions: "ask" }, "call_a"),
      ]),
      toolCalls([call("write_file", { path: "x.txt", content: "x\n" }, "call_w")]),
      text("I was not allowed."),
      text("Done."),
    );
    assert.equal((await w.prompt(session.sessionId, "Go")).stopReason, "end_turn");
    assert.ok(!existsSync(join(w.box.workspace, "x.txt")));
    const [agentId, innerId] = toolCallIds(w);
    const innerEnd = about(w, innerId as string).at(-1);
    assert.equal(innerEnd?.sessionUpdate === "tool_call_update" && innerEnd.status, "failed");
    const progress = contentText(about(w, agentId as string).at(-1));
    assert.match(progress, /✗ denied/, `the progress shows the denial: ${progress}`);
    assert.ok(progress.includes("I was not allowed."));
  });

  it("two subagents of one reply: two cards, each ending with its own answer", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const session = await w.newSession();
    // Whichever subagent calls first, it gets the answer to its own prompt.
    const echo: Script = custom(async (exchange) => {
      const users = (exchange.request.body.messages as { role: string; content: string }[])
        .filter((m) => m.role === "user")
        .map((m) => m.content);
      await text(`answer to ${users.at(-1)}`)(exchange);
    });
    w.server.reply(
      toolCalls([
        call("agent", { description: "Look one", prompt: "task one" }, "call_1"),
        call("agent", { description: "Look two", prompt: "task two" }, "call_2"),
      ]),
      echo,
      echo,
      text("Both answered."),
    );
    assert.equal((await w.prompt(session.sessionId, "Two helpers")).stopReason, "end_turn");
    const cards = w
      .updates("tool_call")
      .map((u) => (u.sessionUpdate === "tool_call" ? [u.toolCallId, u.title, u.kind] : []));
    assert.equal(cards.length, 2);
    for (const [id, title, kind] of cards) {
      assert.equal(kind, "think");
      const end = about(w, id as string).at(-1);
      assert.equal(end?.sessionUpdate === "tool_call_update" && end.status, "completed");
      const task = String(title).replace("Look ", "task ");
      assert.ok(contentText(end).includes(`answer to ${task}`), `${title}: ${contentText(end)}`);
    }
  });

  it("session/cancel while a subagent works: the prompt is cancelled, the card failed", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const session = await w.newSession();
    w.server.reply(
      toolCalls([call("agent", { description: "Slow", prompt: "wait" }, "call_a")]),
      held(answer({ text: "never finished" }), 1, new Promise<void>(() => {})),
    );
    const prompt = w.prompt(session.sessionId, "Go");
    await w.until(() => w.server.requests.length >= 2, "the subagent calling the model");
    await w.agent.notify("session/cancel", { sessionId: session.sessionId });
    assert.equal((await prompt).stopReason, "cancelled");
    const [agentId] = toolCallIds(w);
    const end = about(w, agentId as string).at(-1);
    assert.equal(end?.sessionUpdate === "tool_call_update" && end.status, "failed");
    assert.match(contentText(end), /interrupted/);
    assert.ok(!contentText(end).includes("never finished"), "no answer of an interrupted subagent");
  });

  it("usage_update's cost counts the subagent's calls (the session's cost, as session.usage sums it)", async () => {
    const box = sandbox("mc-acp-subagent-cost-");
    const server = await startChatServer();
    writeTurnHome(box, server.baseUrl, { contextWindow: 100_000 });
    const cachePath = join(box.home, "cache", "models", "kit.json");
    const cache = JSON.parse(readFileSync(cachePath, "utf8"));
    cache.models[0].cost = { input: 2, output: 10, cache_read: null };
    writeFileSync(cachePath, JSON.stringify(cache));
    world = await AcpWorld.start({ box, server });
    const w = world;
    await w.initialize();
    const session = await w.newSession();
    // Each model call: 1000 input tokens at $2/M and 100 output tokens at $10/M.
    const usage = { prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 0 };
    const callCost = 0.003;
    w.server.reply(
      toolCalls([call("agent", { description: "Look", prompt: "task" }, "call_a")], { usage }),
      text("Sub answer.", { usage }),
      text("Done.", { usage }),
    );
    await w.prompt(session.sessionId, "Go");
    const costs = w
      .updates("usage_update")
      .map((u) => (u.sessionUpdate === "usage_update" ? u.cost?.amount : undefined));
    assert.equal(costs.length, 2, "one usage_update per call of the parent's");
    // Without the subagent's call the second would be 0.006.
    assert.equal(costs[0], callCost);
    assert.equal(costs[1], 0.009, "the parent's two calls and the subagent's one");
  });
});
