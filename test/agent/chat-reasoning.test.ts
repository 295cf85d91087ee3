import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { afterEach, beforeEach, describe, test } from "node:test";
import { ChatCompletionsProvider } from "../../src/agent/providers/chat-completions.js";
import { REASONING_REPLAY_BYTES } from "../../src/agent/providers/chat-reasoning.js";
import type { ContextItem, ProviderState } from "../../src/agent/providers/provider.js";
import {
  answer,
  type ChatServer,
  call,
  custom,
  startChatServer,
  text,
} from "../fixtures/chat-completions-server.js";
import { drain, KEY, request } from "./chat-helpers.js";
import { doneOf, READ_TOOL, textOf } from "./provider-helpers.js";

/**
 * Reasoning on Chat Completions, from the providers' documentation:
 * - DeepSeek's thinking-mode guide: `reasoning_content` beside `content`; for a step with tool
 *   calls it "must be passed back to the API in all subsequent requests" (else 400); a step
 *   without tool calls needs none.
 * - Groq and Cerebras refuse an assistant message with a field they do not know
 *   ("property 'reasoning_content' is unsupported"): nothing is sent that the server did not
 *   stream itself.
 * - Mistral's reasoning (Magistral, `reasoning_effort`): `delta.content` is a list of typed
 *   chunks, `{"type":"thinking","thinking":[{"type":"text","text"}]}` and `{"type":"text","text"}`.
 */

let server: ChatServer;
beforeEach(async () => {
  server = await startChatServer();
});
afterEach(() => server.close());

const OWNER = { type: "openai-compatible", id: "ds" };
function provider(): ChatCompletionsProvider {
  return new ChatCompletionsProvider({
    baseUrl: server.baseUrl,
    apiKey: KEY,
    bounds: { connectMs: 10_000, idleMs: 30_000 },
    owner: OWNER,
  });
}

/** The context after one tool step: the assistant item (with its state) and the call's result. */
function afterToolStep(
  model: string,
  state?: ProviderState,
  writer = `ds/${model}`,
): ContextItem[] {
  return [
    { kind: "user", text: "Read a.txt" },
    { kind: "assistant", text: "", model: writer, ...(state ? { provider_state: state } : {}) },
    { kind: "tool_call", call_id: "call_1", tool: "read_file", input: { path: "a.txt" } },
    { kind: "tool_result", call_id: "call_1", output: "alpha", is_error: false },
  ];
}

/** The assistant message that carries the tool calls, as the server received it. */
function carrier(index = 0): Record<string, unknown> {
  const messages = server.requests[index]?.body.messages as Record<string, unknown>[];
  const found = messages.find((m) => m.role === "assistant" && m.tool_calls);
  assert.ok(found, "an assistant message carries the tool calls");
  return found;
}

describe("DeepSeek: reasoning_content goes back on every later request of a tool step", () => {
  test("a tool step keeps its reasoning and the field it came in; the next request sends it back", async () => {
    server.reply(
      answer({
        reasoning: "I should read a.txt first.",
        calls: [call("read_file", { path: "a.txt" }, "call_1")],
      }),
    );
    const first = await drain(
      provider(),
      request({ model: "deepseek-v4-flash", tools: [READ_TOOL] }),
    );
    assert.equal(first.failure, null);
    assert.equal(textOf(first.events, "reasoning_delta"), "I should read a.txt first.");
    const state = doneOf(first.events).provider_state;
    assert.deepEqual(state, {
      provider: "openai-compatible",
      reasoning_field: "reasoning_content",
      reasoning: "I should read a.txt first.",
    });

    server.reply(text("It says alpha."));
    const context = afterToolStep("deepseek-v4-flash", state);
    await drain(provider(), request({ model: "deepseek-v4-flash", tools: [READ_TOOL], context }));
    const message = carrier(1);
    assert.equal(message.reasoning_content, "I should read a.txt first.");
    assert.equal(message.content, null);

    // A later request of the same conversation still carries it (every subsequent request).
    server.reply(text("Done."));
    const later: ContextItem[] = [
      ...context,
      { kind: "assistant", text: "It says alpha.", model: "ds/deepseek-v4-flash" },
      { kind: "user", text: "Thanks" },
    ];
    await drain(
      provider(),
      request({ model: "deepseek-v4-flash", tools: [READ_TOOL], context: later }),
    );
    assert.equal(carrier(2).reasoning_content, "I should read a.txt first.");
  });

  test("a step without tool calls keeps nothing: DeepSeek ignores such reasoning", async () => {
    server.reply(answer({ reasoning: "Easy.", text: "4" }));
    const { events } = await drain(provider(), request({ model: "deepseek-v4-flash" }));
    assert.equal(doneOf(events).provider_state, undefined);
  });

  test("a tool-call message with no reasoning of its own (another model's, an older record) sends an empty one to DeepSeek", async () => {
    server.reply(text("ok"), text("ok"), text("ok"));
    // Written by another model of another provider: its state is not DeepSeek's to use.
    const foreign = { provider: "anthropic", thinking: [] } as ProviderState;
    await drain(
      provider(),
      request({
        model: "deepseek-v4-flash",
        tools: [READ_TOOL],
        context: afterToolStep("deepseek-v4-flash", foreign, "anthropic/claude"),
      }),
    );
    assert.equal(carrier(0).reasoning_content, "");
    // No assistant item at all before the calls (a replay cut inside a turn).
    const bare = afterToolStep("deepseek-v4-flash").filter((item) => item.kind !== "assistant");
    await drain(
      provider(),
      request({ model: "deepseek-v4-flash", tools: [READ_TOOL], context: bare }),
    );
    assert.equal(carrier(1).reasoning_content, "");
    // A server of another name that streamed reasoning_content on a tool step of this context
    // gets the empty one too, on the step that has none.
    const kept = {
      provider: "openai-compatible",
      reasoning_field: "reasoning_content",
      reasoning: "r",
    };
    const mixed: ContextItem[] = [
      ...afterToolStep("qwen3", kept),
      { kind: "tool_call", call_id: "call_2", tool: "read_file", input: { path: "b.txt" } },
      { kind: "tool_result", call_id: "call_2", output: "beta", is_error: false },
    ];
    mixed.splice(4, 0, { kind: "assistant", text: "Next.", model: "other/model" });
    await drain(provider(), request({ model: "qwen3", tools: [READ_TOOL], context: mixed }));
    const messages = (
      (server.requests[2]?.body.messages as Record<string, unknown>[]) ?? []
    ).filter((m) => m.role === "assistant");
    assert.deepEqual(
      messages.map((m) => m.reasoning_content),
      ["r", ""],
    );
  });

  test("nothing is invented for a server that never streamed reasoning_content (Groq refuses it)", async () => {
    server.reply(text("ok"));
    await drain(
      provider(),
      request({
        model: "llama-3.3-70b-versatile",
        tools: [READ_TOOL],
        context: afterToolStep("llama-3.3-70b-versatile"),
      }),
    );
    const message = carrier();
    assert.equal("reasoning_content" in message, false);
    assert.equal("reasoning" in message, false);
  });

  test("`reasoning` (Groq, OpenRouter) goes back as `reasoning`, only to the model that wrote it", async () => {
    server.reply(
      custom(async ({ res }) => {
        stream(res, [
          { choices: [{ index: 0, delta: { reasoning: "Think." } }] },
          {
            choices: [
              {
                index: 0,
                delta: {
                  tool_calls: [
                    { index: 0, id: "call_1", function: { name: "read_file", arguments: "{}" } },
                  ],
                },
                finish_reason: "tool_calls",
              },
            ],
          },
        ]);
      }),
      text("ok"),
      text("ok"),
    );
    const { events } = await drain(
      provider(),
      request({ model: "qwen/qwen3-32b", tools: [READ_TOOL] }),
    );
    const state = doneOf(events).provider_state;
    assert.deepEqual(state, {
      provider: "openai-compatible",
      reasoning_field: "reasoning",
      reasoning: "Think.",
    });
    await drain(
      provider(),
      request({
        model: "qwen/qwen3-32b",
        tools: [READ_TOOL],
        context: afterToolStep("qwen/qwen3-32b", state),
      }),
    );
    assert.equal(carrier(1).reasoning, "Think.");
    assert.equal("reasoning_content" in carrier(1), false);
    // Another model of the same server: the state is not its own, nothing is sent.
    await drain(
      provider(),
      request({
        model: "llama-3.3-70b-versatile",
        tools: [READ_TOOL],
        context: afterToolStep("qwen/qwen3-32b", state, "ds/qwen/qwen3-32b"),
      }),
    );
    assert.equal("reasoning" in carrier(2), false);
  });

  test("reasoning is kept up to REASONING_REPLAY_BYTES; past it, an empty one goes back", async () => {
    for (const [size, kept] of [
      [REASONING_REPLAY_BYTES, true],
      [REASONING_REPLAY_BYTES + 1, false],
    ] as const) {
      const reasoning = "é".repeat(Math.floor(size / 2)) + (size % 2 ? "x" : "");
      assert.equal(Buffer.byteLength(reasoning), size);
      server.reply(
        answer({ reasoning, pieceChars: 65_536, calls: [call("read_file", {}, "call_1")] }),
      );
      const { events } = await drain(
        provider(),
        request({ model: "deepseek-v4-flash", tools: [READ_TOOL] }),
      );
      assert.equal(textOf(events, "reasoning_delta"), reasoning, "all of it is shown");
      const state = doneOf(events).provider_state as unknown as { reasoning: string };
      assert.equal(state.reasoning, kept ? reasoning : "", `${size} bytes`);
    }
  });
});

describe("Mistral: content as a list of typed chunks", () => {
  test("thinking chunks are reasoning, text chunks are text, unknown chunks are skipped", async () => {
    server.reply(
      custom(async ({ res }) => {
        stream(res, [
          { choices: [{ index: 0, delta: { role: "assistant", content: "" } }] },
          {
            choices: [
              {
                index: 0,
                delta: {
                  content: [{ type: "thinking", thinking: [{ type: "text", text: "2+2 is " }] }],
                },
              },
            ],
          },
          {
            choices: [
              {
                index: 0,
                delta: {
                  content: [
                    { type: "thinking", thinking: [{ type: "text", text: "4." }], closed: true },
                    { type: "text", text: "The answer" },
                    { type: "image_url", image_url: "ignored" },
                  ],
                },
              },
            ],
          },
          {
            choices: [{ index: 0, delta: { content: " is 4." }, finish_reason: "stop" }],
            usage: { prompt_tokens: 10, completion_tokens: 9 },
          },
        ]);
      }),
    );
    const { events, failure } = await drain(
      provider(),
      request({ model: "magistral-medium-2507", effort: "high" }),
    );
    assert.equal(failure, null);
    assert.equal(textOf(events, "reasoning_delta"), "2+2 is 4.");
    assert.equal(textOf(events), "The answer is 4.");
    assert.equal(doneOf(events).stop, "end_turn");
    assert.equal(server.requests[0]?.body.reasoning_effort, "high");
  });
});

/** Chat Completions chunks as a server streams them, then `[DONE]`. */
function stream(res: ServerResponse, chunks: unknown[]): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (const chunk of chunks)
    res.write(
      `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", ...(chunk as object) })}\n\n`,
    );
  res.end("data: [DONE]\n\n");
}
