/**
 * A tool call with an empty name is the model's mistake, answered as a tool error (like an
 * unknown name) on every provider format, never a failed turn: the model sees the error and
 * the turn goes on to its next step.
 */
import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { bodies as anthropicBodies, anthropicReply } from "../fixtures/anthropic-server.js";
import { answer, text } from "../fixtures/chat-completions-server.js";
import { bodies as responsesBodies, responsesReply } from "../fixtures/responses-server.js";
import { type ProviderWorld, providerWorld } from "./provider-world.js";
import { resultText } from "./tool-turns.js";
import { runTurn, type TurnWorld, turnWorld } from "./turn-harness.js";

const UNKNOWN = /^Unknown tool ""\.$/;

let world: TurnWorld | ProviderWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: wire bodies are read freely.
type Loose = any;

describe("an empty tool name is a tool error", () => {
  test("Chat Completions", async () => {
    const w = await turnWorld();
    world = w;
    await w.child.call("session.create", {});
    w.server.reply(answer({ calls: [{ name: "", input: {}, id: "call_empty" }] }));
    w.server.reply(text("Sorry."));
    const { result, events } = await runTurn(w.child, "go", "full_access");
    assert.equal(result.status, "completed");
    assert.equal(result.steps, 2);
    // Shown all the same (issue 36): the user sees the model tried a tool, and that it failed.
    const shown = events.filter((e) => e.event.type === "tool_call").map((e) => e.event.tool);
    assert.deepEqual(shown, ["(no name)"]);
    assert.deepEqual(
      events.filter((e) => e.event.type === "tool_done").map((e) => e.event.status),
      ["failed"],
    );
    assert.match(resultText(w.server.requests[1], "call_empty"), UNKNOWN);
  });

  test("Responses", async () => {
    const w = await providerWorld({ providers: ["openai"], env: { OPENAI_API_KEY: "sk-x" } });
    world = w;
    await w.child.call("session.create", {});
    const server = w.sse("openai");
    server.script(
      responsesReply({ calls: [{ call_id: "call_empty", name: "", arguments: "{}" }] }),
      responsesReply({ text: ["Sorry."] }),
    );
    const { result } = await runTurn(w.child, "go", "full_access");
    assert.equal(result.status, "completed");
    assert.equal(result.steps, 2);
    const input = responsesBodies(server)[1]?.input as Loose[];
    const output = input.find((i) => i.type === "function_call_output");
    assert.equal(output?.call_id, "call_empty");
    assert.match(String(output?.output), UNKNOWN);
  });

  test("Anthropic Messages", async () => {
    const w = await providerWorld({ providers: ["anthropic"], env: { ANTHROPIC_API_KEY: "sk-x" } });
    world = w;
    await w.child.call("session.create", {});
    const server = w.sse("anthropic");
    server.script(
      anthropicReply({
        tools: [{ id: "toolu_empty", name: "", json: ["{}"] }],
        stop_reason: "tool_use",
      }),
      anthropicReply({ text: ["Sorry."] }),
    );
    const { result } = await runTurn(w.child, "go", "full_access");
    assert.equal(result.status, "completed");
    assert.equal(result.steps, 2);
    const messages = anthropicBodies(server)[1]?.messages as Loose[];
    const [toolResult] = messages.at(-1)?.content ?? [];
    assert.equal(toolResult?.tool_use_id, "toolu_empty");
    assert.match(String(toolResult?.content), UNKNOWN);
  });
});
