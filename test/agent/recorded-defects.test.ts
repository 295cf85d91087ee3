import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createAnthropicProvider } from "../../src/agent/providers/anthropic.js";
import type { StreamEvent } from "../../src/agent/providers/provider.js";
import { createResponsesProvider } from "../../src/agent/providers/responses.js";
import { bodies, startScriptedServer } from "../fixtures/responses-server.js";
import type { ScriptedServer, SseEvent } from "../fixtures/scripted-sse.js";
import { doneOf, drain, modelRequest, options, providerAt, textOf } from "./provider-helpers.js";

/**
 * The Responses and Messages defects the recorded streams showed (issue 36), each from the
 * provider's documentation:
 * - OpenAI's error object: `type` says what it is, `code` "can be null"; a 5xx is
 *   `{"type":"server_error","code":null}` and is retried like any 5xx.
 * - OpenAI's `phase` ("commentary" / "final_answer") on each assistant message item: "preserve
 *   and resend phase on all assistant messages".
 * - `response.reasoning_text.delta`: the raw reasoning of open-weight models (LM Studio,
 *   DeepSeek's Responses API, vLLM), as the Responses spec names it.
 * - Anthropic's `usage.output_tokens_details.thinking_tokens` (claude-sonnet-5 streams).
 */

const sse = (events: Record<string, unknown>[]): SseEvent[] =>
  events.map((data) => ({ event: String(data.type), data }));

const created = {
  type: "response.created",
  response: { id: "r", status: "in_progress", output: [] },
};
const completed = (usage?: unknown) => ({
  type: "response.completed",
  response: { id: "r", status: "completed", ...(usage ? { usage } : {}) },
});
function message(id: string, phase: string | null, deltas: string[]): Record<string, unknown>[] {
  const item = {
    id,
    type: "message",
    role: "assistant",
    status: "in_progress",
    content: [],
    ...(phase ? { phase } : {}),
  };
  const text = deltas.join("");
  return [
    { type: "response.output_item.added", item },
    ...deltas.map((delta) => ({ type: "response.output_text.delta", item_id: id, delta })),
    {
      type: "response.output_item.done",
      item: {
        ...item,
        status: "completed",
        content: [{ type: "output_text", text, annotations: [] }],
      },
    },
  ];
}
const reasoningItem = (id: string, encrypted: string) => ({
  type: "response.output_item.done",
  item: { id, type: "reasoning", summary: [], encrypted_content: encrypted },
});

describe("Responses: what recorded streams carry", () => {
  let server: ScriptedServer;
  before(async () => {
    server = await startScriptedServer();
  });
  after(() => server.close());
  const provider = () =>
    createResponsesProvider(
      options(providerAt("openai", `${server.url}/v1`), { kind: "api_key", key: "sk-x-1234" }),
    );
  const run = async (events: Record<string, unknown>[], overrides = {}) => {
    server.seen.length = 0;
    server.script({ kind: "sse", events: sse(events) });
    return drain(provider().stream(modelRequest(overrides)));
  };

  test("an error event of type server_error with a null code is remote_unavailable (retried)", async () => {
    const error = {
      type: "server_error",
      code: null,
      message: "Sorry, something went wrong.",
      param: null,
    };
    for (const shape of [
      { type: "error", error, sequence_number: 2 },
      // The SDK's reading of an `error` object at the top of any event.
      { type: "response.in_progress", error },
    ]) {
      const { failure } = await run([created, shape]);
      assert.equal(failure?.code, "remote_unavailable", JSON.stringify(shape));
    }
    // A code still wins over the type; no code and no type stays a refusal.
    const quota = {
      type: "error",
      error: { type: "insufficient_quota", code: "insufficient_quota", message: "x" },
    };
    assert.equal((await run([created, quota])).failure?.code, "provider_error");
    const bare = { type: "error", code: null, message: "x", param: null };
    assert.equal((await run([created, bare])).failure?.code, "provider_error");
  });

  test("response.reasoning_text deltas are reasoning", async () => {
    const { events, failure } = await run([
      created,
      {
        type: "response.output_item.added",
        item: { id: "rs", type: "reasoning", summary: [], content: [] },
      },
      { type: "response.reasoning_text.delta", item_id: "rs", delta: "The user wants " },
      { type: "response.reasoning_text.delta", item_id: "rs", delta: "a greeting." },
      { type: "response.reasoning_text.done", item_id: "rs", text: "The user wants a greeting." },
      ...message("m", null, ["Hi!"]),
      completed(),
    ]);
    assert.equal(failure, null);
    assert.equal(textOf(events, "reasoning_delta"), "The user wants a greeting.");
    assert.equal(textOf(events), "Hi!");
  });

  test("two messages of one response stay two, each with its phase and the reasoning before it; each goes back with its phase", async () => {
    const { events, failure } = await run(
      [
        created,
        reasoningItem("rs_1", "enc-1"),
        ...message("msg_1", "commentary", ["Let me ", "check."]),
        reasoningItem("rs_2", "enc-2"),
        ...message("msg_2", "final_answer", ["Here it is."]),
        completed({ input_tokens: 5, output_tokens: 7 }),
      ],
      { effort: "medium" },
    );
    assert.equal(failure, null);
    const shape = events
      .filter((e) => e.type !== "text_delta" && e.type !== "usage")
      .map((e) => (e.type === "message_end" ? { ...e, provider_state: stateIds(e) } : e));
    assert.deepEqual(shape, [
      { type: "message_start", phase: "commentary" },
      { type: "message_end", phase: "commentary", provider_state: ["rs_1", "commentary"] },
      { type: "message_start", phase: "final_answer" },
      { type: "message_end", phase: "final_answer", provider_state: ["rs_2", "final_answer"] },
      { type: "done", stop: "end_turn" },
    ]);
    const ends = events.filter(
      (e): e is Extract<StreamEvent, { type: "message_end" }> => e.type === "message_end",
    );

    // Replayed as two assistant messages, each after its own reasoning, each with its phase.
    const context = [
      { kind: "user" as const, text: "Q" },
      {
        kind: "assistant" as const,
        text: "Let me check.",
        model: "openai/gpt-test",
        provider_state: ends[0]?.provider_state,
      },
      {
        kind: "assistant" as const,
        text: "Here it is.",
        model: "openai/gpt-test",
        provider_state: ends[1]?.provider_state,
      },
      { kind: "user" as const, text: "More" },
    ];
    await run([created, ...message("m", null, ["ok"]), completed()], { effort: "medium", context });
    const input = bodies(server)[0]?.input as Record<string, unknown>[];
    assert.deepEqual(
      input.map((i) => [i.type, i.id ?? i.content, i.phase]),
      [
        ["message", "Q", undefined],
        ["reasoning", "rs_1", undefined],
        ["message", "Let me check.", "commentary"],
        ["reasoning", "rs_2", undefined],
        ["message", "Here it is.", "final_answer"],
        ["message", "More", undefined],
      ],
    );
  });

  test("a message without a phase (or with one the API does not document) has none", async () => {
    const { events } = await run([
      created,
      ...message("m1", null, ["a"]),
      ...message("m2", "aside", ["b"]),
      completed(),
    ]);
    assert.deepEqual(
      events
        .filter((e) => e.type === "message_end")
        .map((e) => e.type === "message_end" && e.phase),
      [null, null],
    );
    assert.equal(doneOf(events).provider_state, undefined);
  });
});

function stateIds(event: Extract<StreamEvent, { type: "message_end" }>): unknown[] {
  const state = event.provider_state as
    | { reasoning?: { id: string }[]; phase?: string }
    | undefined;
  return [...(state?.reasoning ?? []).map((r) => r.id), state?.phase];
}

describe("Anthropic: thinking tokens of the usage", () => {
  let server: ScriptedServer;
  before(async () => {
    server = await startScriptedServer();
  });
  after(() => server.close());
  const run = (deltaUsage: Record<string, unknown>) => {
    server.script({
      kind: "sse",
      events: sse([
        {
          type: "message_start",
          message: { id: "m", usage: { input_tokens: 47, output_tokens: 2 } },
        },
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "4" } },
        { type: "content_block_stop", index: 0 },
        { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: deltaUsage },
        { type: "message_stop" },
      ]),
    });
    const provider = createAnthropicProvider(
      options(providerAt("anthropic", server.url), { kind: "api_key", key: "sk-ant-x-1234" }),
    );
    return drain(provider.stream(modelRequest({ model: "claude-sonnet-5" })));
  };
  const usageOf = (events: StreamEvent[]) => {
    const usage = events.find((e) => e.type === "usage");
    return usage?.type === "usage" ? usage.usage : null;
  };

  test("output_tokens_details.thinking_tokens is the reasoning count; absent, it is 0", async () => {
    const withThinking = await run({
      output_tokens: 373,
      output_tokens_details: { thinking_tokens: 62 },
    });
    assert.deepEqual(usageOf(withThinking.events), {
      input_tokens: 47,
      cached_input_tokens: 0,
      output_tokens: 373,
      reasoning_tokens: 62,
    });
    const without = await run({ output_tokens: 12 });
    assert.equal(usageOf(without.events)?.reasoning_tokens, 0);
  });
});
