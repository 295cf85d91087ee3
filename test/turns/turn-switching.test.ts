import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { anthropicReply } from "../fixtures/anthropic-server.js";
import { call, text, toolCalls } from "../fixtures/chat-completions-server.js";
import { responsesReply } from "../fixtures/responses-server.js";
import { bodies } from "../fixtures/scripted-sse.js";
import { assertNothingLeaked, forbiddenOf } from "./leaks.js";
import { DEMO_KEY, type ProviderWorld, providerWorld, selectModel } from "./provider-world.js";
import { runTurn } from "./turn-harness.js";

/**
 * A session whose earlier turns ran on `openai-compatible` continues on `anthropic` and on
 * `openai`: each new provider is shown the earlier turns converted to its own wire format (tool
 * calls under their original ids), and state only another provider can use is dropped.
 */

const ANTHROPIC_KEY = "sk-ant-switch-key";
const OPENAI_KEY = "sk-openai-switch-key";
const SECRETS = [DEMO_KEY, ANTHROPIC_KEY, OPENAI_KEY];

let world: ProviderWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function switchingWorld(): Promise<ProviderWorld> {
  world = await providerWorld({
    providers: ["demo", "anthropic", "openai"],
    env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY, OPENAI_API_KEY: OPENAI_KEY },
  });
  writeFileSync(join(world.box.workspace, "notes.txt"), "alpha\n");
  await world.child.call("session.create", {});
  return world;
}

/** The first turn, on the Chat Completions provider: a tool call under `call_demo_1`, a reply. */
async function firstTurnOnDemo(w: ProviderWorld): Promise<void> {
  w.chat().reply(
    toolCalls([call("read_file", { path: "notes.txt" }, "call_demo_1")], { text: "Reading." }),
    text("It says alpha."),
  );
  const { result } = await runTurn(w.child, "What is in notes.txt?");
  assert.equal(result.status, "completed");
  assert.equal(result.steps, 2);
}

type Message = { role: string; content: Record<string, unknown>[] };

describe("turns: switching provider mid-session", () => {
  test("openai-compatible, then anthropic, then openai: each sees the earlier turns converted", async () => {
    const w = await switchingWorld();
    await firstTurnOnDemo(w);

    await selectModel(w.child, "anthropic/claude-sonnet-4-test", "medium");
    const anthropic = w.sse("anthropic");
    anthropic.script(
      anthropicReply({
        thinking: { text: ["Recall the file."], signature: "sig-claude-only" },
        text: ["Claude here: alpha."],
      }),
    );
    const second = await runTurn(w.child, "Now on Claude?");
    assert.equal(second.result.status, "completed", JSON.stringify(second.result.error));
    assert.equal(second.events[0]?.event.model, "anthropic/claude-sonnet-4-test");
    const messages = bodies(anthropic)[0]?.messages as Message[];
    assert.deepEqual(messages.slice(0, 2), [
      { role: "user", content: [{ type: "text", text: "What is in notes.txt?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "call_demo_1", name: "read_file", input: { path: "notes.txt" } },
        ],
      },
    ]);
    assert.equal(messages[2]?.role, "user");
    assert.equal(messages[2]?.content[0]?.type, "tool_result");
    assert.equal(messages[2]?.content[0]?.tool_use_id, "call_demo_1");
    assert.match(String(messages[2]?.content[0]?.content), /alpha/);
    assert.deepEqual(messages.slice(3), [
      { role: "assistant", content: [{ type: "text", text: "It says alpha." }] },
      { role: "user", content: [{ type: "text", text: "Now on Claude?" }] },
    ]);

    await selectModel(w.child, "openai/gpt-5", "low");
    const openai = w.sse("openai");
    openai.script(responsesReply({ text: ["OpenAI here."] }));
    const third = await runTurn(w.child, "And on OpenAI?");
    assert.equal(third.result.status, "completed", JSON.stringify(third.result.error));
    const body = bodies(openai)[0] ?? {};
    const input = body.input as Record<string, unknown>[];
    const shape = input.map((i) =>
      i.type === "message" ? `${i.role}: ${i.content}` : `${i.type} ${i.call_id}`,
    );
    assert.deepEqual(shape, [
      "user: What is in notes.txt?",
      "assistant: Reading.",
      "function_call call_demo_1",
      "function_call_output call_demo_1",
      "assistant: It says alpha.",
      "user: Now on Claude?",
      "assistant: Claude here: alpha.",
      "user: And on OpenAI?",
    ]);
    const output = input.find((i) => i.type === "function_call_output");
    assert.match(String(output?.output), /alpha/);
    // Claude's thinking (and its signature) is Anthropic's alone: dropped, not sent to OpenAI.
    assert.ok(!JSON.stringify(body).includes("sig-claude-only"));
    assert.ok(!JSON.stringify(body).includes("Recall the file."));
    assert.deepEqual(body.reasoning, { effort: "low", summary: "auto" });

    // Each provider got only its own key.
    assert.equal(w.chat().requests[0]?.headers.authorization, `Bearer ${DEMO_KEY}`);
    assert.equal(anthropic.seen[0]?.headers["x-api-key"], ANTHROPIC_KEY);
    assert.equal(openai.seen[0]?.headers.authorization, `Bearer ${OPENAI_KEY}`);
    const sentTo = (requests: unknown[], keys: string[]) =>
      keys.every((key) => !JSON.stringify(requests).includes(key));
    assert.ok(sentTo(w.chat().requests, [ANTHROPIC_KEY, OPENAI_KEY]), "a foreign key to demo");
    assert.ok(sentTo(anthropic.seen, [DEMO_KEY, OPENAI_KEY]), "a foreign key to anthropic");
    assert.ok(sentTo(openai.seen, [DEMO_KEY, ANTHROPIC_KEY]), "a foreign key to openai");
    assertNothingLeaked(w.child, forbiddenOf(w.box, w.urls, SECRETS), SECRETS);
  });

  test("openai-compatible, then openai with a tool call of its own: both calls replayed by id", async () => {
    const w = await switchingWorld();
    await firstTurnOnDemo(w);
    await selectModel(w.child, "openai/gpt-4.1", null);
    const openai = w.sse("openai");
    openai.script(
      responsesReply({
        calls: [{ call_id: "call_oa_2", name: "read_file", arguments: '{"path":"notes.txt"}' }],
      }),
      responsesReply({ text: ["Still alpha."] }),
    );
    const { result } = await runTurn(w.child, "Read it again");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    const input = bodies(openai)[1]?.input as Record<string, unknown>[];
    const ids = input.filter((i) => i.type !== "message").map((i) => `${i.type} ${i.call_id}`);
    assert.deepEqual(ids, [
      "function_call call_demo_1",
      "function_call_output call_demo_1",
      "function_call call_oa_2",
      "function_call_output call_oa_2",
    ]);
    // Back on the first provider, the Responses turn comes back as Chat Completions messages.
    await selectModel(w.child, "demo/demo-1", "low");
    w.chat().reply(text("Back on demo."));
    await runTurn(w.child, "Back?");
    const messages = w.chat().requests[2]?.body.messages.slice(1);
    const calls = messages.filter((m: { tool_calls?: unknown }) => m.tool_calls);
    assert.deepEqual(
      calls.map((m: { tool_calls: { id: string }[] }) => m.tool_calls[0]?.id),
      ["call_demo_1", "call_oa_2"],
    );
    const results = messages.filter((m: { role: string }) => m.role === "tool");
    assert.deepEqual(
      results.map((m: { tool_call_id: string }) => m.tool_call_id),
      ["call_demo_1", "call_oa_2"],
    );
    assert.deepEqual(messages.at(-1), { role: "user", content: "Back?" });
    // Chat Completions carries the effort as reasoning_effort (the first turn's default, then
    // the selected one); a model without efforts sends none.
    assert.equal(w.chat().requests[0]?.body.reasoning_effort, "medium");
    assert.equal(w.chat().requests[2]?.body.reasoning_effort, "low");
    await selectModel(w.child, "demo/demo-2", null);
    w.chat().reply(text("No effort."));
    await runTurn(w.child, "Plain?");
    assert.equal(w.chat().requests[3]?.body.model, "demo-2");
    assert.equal("reasoning_effort" in (w.chat().requests[3]?.body ?? {}), false);
    assertNothingLeaked(w.child, forbiddenOf(w.box, w.urls, SECRETS), SECRETS);
  });
});
