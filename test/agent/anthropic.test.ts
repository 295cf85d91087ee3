import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createAnthropicProvider } from "../../src/agent/providers/anthropic.js";
import { maxOutputTokens, thinkingBudget } from "../../src/agent/providers/anthropic-format.js";
import type { Credential } from "../../src/credentials/discovery.js";
import {
  anthropicEvents,
  anthropicReply,
  bodies,
  startScriptedServer,
} from "../fixtures/anthropic-server.js";
import type { Reply, ScriptedServer } from "../fixtures/scripted-sse.js";
import { ANTHROPIC_FAILURES } from "./anthropic-failures.js";
import {
  doneOf,
  drain,
  modelRequest,
  options,
  providerAt,
  READ_TOOL,
  secretOnlyIn,
  textOf,
  withEnvironment,
} from "./provider-helpers.js";

const KEY = "sk-ant-test-secret-77";
const OAUTH = "sk-ant-oat-test-token-88";
// A test-only name: a real one the SDK deems deprecated makes it print a notice on every call.
const MODEL = "claude-sonnet-4-test";

describe("anthropic: the Messages API", () => {
  let server: ScriptedServer;
  before(async () => {
    server = await startScriptedServer();
  });
  after(() => server.close());

  const provider = (
    credential: Credential = { kind: "api_key", key: KEY },
    bounds?: { connectMs: number; idleMs: number },
  ) =>
    createAnthropicProvider(
      options(providerAt("anthropic", server.url), credential, bounds ? { bounds } : {}),
    );
  const call = async (replies: Reply[], overrides = {}, credential?: Credential) => {
    server.seen.length = 0;
    server.script(...replies);
    return drain(provider(credential).stream(modelRequest({ model: MODEL, ...overrides })));
  };

  test("a text turn with an API key: x-api-key and the version header; ping and unknown events skipped", async () => {
    const { events, failure } = await call([
      anthropicReply({
        text: ["Hel", "lo"],
        unknown: true,
        usage: { input: 12, output: 6, cache_read: 4, cache_creation: 2 },
      }),
    ]);
    assert.equal(failure, null);
    assert.equal(textOf(events), "Hello");
    assert.deepEqual(
      events.find((e) => e.type === "usage"),
      {
        type: "usage",
        usage: { input_tokens: 18, output_tokens: 6, cached_input_tokens: 4, reasoning_tokens: 0 },
      },
    );
    assert.deepEqual(doneOf(events), { type: "done", stop: "end_turn", provider_state: undefined });
    const seen = server.seen[0];
    assert.ok(seen);
    assert.equal(seen.url, "/v1/messages");
    assert.equal(seen.headers["x-api-key"], KEY);
    assert.equal(seen.headers["anthropic-version"], "2023-06-01");
    assert.equal(seen.headers.authorization, undefined);
    assert.deepEqual(secretOnlyIn(seen, KEY, "x-api-key"), []);
    const body = bodies(server)[0];
    assert.equal(body?.model, MODEL);
    assert.equal(body?.system, "You are a test assistant.");
    assert.equal(body?.stream, true);
    assert.equal(body?.max_tokens, 64_000);
    assert.deepEqual(body?.messages, [
      { role: "user", content: [{ type: "text", text: "Hello" }] },
    ]);
    assert.equal(body?.thinking, undefined, "a model without efforts thinks not");
  });

  test("Claude's OAuth token: bearer plus the OAuth beta, never x-api-key (not even from the environment)", async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = "env-key-must-not-be-sent";
    try {
      const { failure } = await call(
        [anthropicReply({ text: ["ok"] })],
        {},
        { kind: "oauth_bearer", token: OAUTH },
      );
      assert.equal(failure, null);
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
    const seen = server.seen[0];
    assert.ok(seen);
    assert.equal(seen.headers.authorization, `Bearer ${OAUTH}`);
    assert.equal(seen.headers["anthropic-beta"], "oauth-2025-04-20");
    assert.equal(seen.headers["x-api-key"], undefined);
    assert.deepEqual(secretOnlyIn(seen, OAUTH, "authorization"), []);
  });

  test("thinking with its signature is kept and replayed before tool_use, the result under tool_use_id", async () => {
    const first = await call(
      [
        anthropicReply({
          thinking: { text: ["Let me ", "read it."], signature: "sig-abc" },
          text: ["Reading."],
          tools: [{ id: "toolu_1", name: "read_file", json: ['{"pa', 'th": "a.txt"}'] }],
          stop_reason: "tool_use",
        }),
      ],
      { effort: "high", tools: [READ_TOOL] },
    );
    assert.equal(first.failure, null);
    const sent = bodies(server)[0];
    assert.deepEqual(sent?.thinking, { type: "enabled", budget_tokens: 24_000 });
    assert.ok((sent?.max_tokens as number) > 24_000);
    assert.deepEqual(sent?.tools, [
      { name: "read_file", description: "Reads a file", input_schema: READ_TOOL.parameters },
    ]);
    assert.equal(textOf(first.events, "reasoning_delta"), "Let me read it.");
    assert.deepEqual(
      first.events.filter((e) => e.type === "tool_call"),
      [
        {
          type: "tool_call",
          call_id: "toolu_1",
          name: "read_file",
          arguments: '{"path": "a.txt"}',
        },
      ],
    );
    const done = doneOf(first.events);
    assert.equal(done.stop, "tool_use");
    assert.deepEqual(done.provider_state, {
      provider: "anthropic",
      thinking: [{ type: "thinking", thinking: "Let me read it.", signature: "sig-abc" }],
    });

    const second = await call([anthropicReply({ text: ["It says a."] })], {
      effort: "high",
      tools: [READ_TOOL],
      context: [
        { kind: "user", text: "Read a.txt" },
        {
          kind: "assistant",
          text: "Reading.",
          model: `anthropic/${MODEL}`,
          provider_state: done.provider_state,
        },
        { kind: "tool_call", call_id: "toolu_1", tool: "read_file", input: { path: "a.txt" } },
        { kind: "tool_result", call_id: "toolu_1", output: "contents of a", is_error: false },
      ],
    });
    assert.equal(second.failure, null);
    assert.deepEqual(bodies(server)[0]?.messages, [
      { role: "user", content: [{ type: "text", text: "Read a.txt" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Let me read it.", signature: "sig-abc" },
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.txt" } },
        ],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "contents of a" }],
      },
    ]);
  });

  test("redacted thinking is kept; an empty tool input is {}; another provider's state is dropped", async () => {
    const { events } = await call(
      [
        anthropicReply({
          redacted: "opaque-data",
          tools: [{ id: "toolu_2", name: "list", json: [] }],
          stop_reason: "tool_use",
        }),
      ],
      { effort: "low" },
    );
    assert.deepEqual(
      events.find((e) => e.type === "tool_call"),
      {
        type: "tool_call",
        call_id: "toolu_2",
        name: "list",
        arguments: "{}",
      },
    );
    assert.deepEqual(doneOf(events).provider_state, {
      provider: "anthropic",
      thinking: [{ type: "redacted_thinking", data: "opaque-data" }],
    });

    await call([anthropicReply({ text: ["ok"] })], {
      context: [
        { kind: "user", text: "Q" },
        {
          kind: "assistant",
          text: "A",
          model: `anthropic/${MODEL}`,
          provider_state: {
            provider: "openai",
            thinking: [{ type: "redacted_thinking", data: "x" }],
          },
        },
        { kind: "user", text: "Q2" },
      ],
    });
    assert.deepEqual((bodies(server)[0]?.messages as unknown[] | undefined)?.[1], {
      role: "assistant",
      content: [{ type: "text", text: "A" }],
    });
  });

  test("effort budgets and output ceilings: max_tokens always above the budget", () => {
    assert.equal(maxOutputTokens("claude-3-5-haiku-20241022"), 8_192);
    assert.equal(maxOutputTokens("claude-3-opus-20240229"), 4_096);
    assert.equal(maxOutputTokens("claude-opus-4-1-20250805"), 32_000);
    assert.equal(maxOutputTokens("claude-sonnet-4-5-20250929"), 64_000);
    assert.equal(maxOutputTokens("something-new"), 32_000);
    assert.equal(thinkingBudget("low", 64_000), 4_096);
    assert.equal(thinkingBudget("medium", 64_000), 10_000);
    assert.equal(thinkingBudget("high", 64_000), 24_000);
    assert.equal(thinkingBudget("unheard-of", 64_000), 10_000);
    // Clamped to leave the answer room, but never under the API's minimum.
    assert.equal(thinkingBudget("high", 8_192), 4_096);
    assert.equal(thinkingBudget("high", 4_096), 1_024);
  });

  test("stop reasons: max_tokens, refusal, stop_sequence; model_context_window_exceeded fails", async () => {
    const cases: [string, string][] = [
      ["max_tokens", "max_tokens"],
      ["refusal", "refusal"],
      ["stop_sequence", "end_turn"],
      ["end_turn", "end_turn"],
    ];
    for (const [wire, ours] of cases) {
      const { events } = await call([anthropicReply({ text: ["x"], stop_reason: wire })]);
      assert.equal(doneOf(events).stop, ours, wire);
    }
    const full = await call([
      anthropicReply({ text: ["x"], stop_reason: "model_context_window_exceeded" }),
    ]);
    assert.equal(full.failure?.code, "context_exceeded");
  });

  test("pause_turn is continued with the partial assistant content, as one call", async () => {
    const { events, failure } = await call([
      anthropicReply({
        text: ["Part one."],
        stop_reason: "pause_turn",
        usage: { input: 10, output: 3 },
      }),
      anthropicReply({ text: [" Part two."], usage: { input: 14, output: 4 } }),
    ]);
    assert.equal(failure, null);
    assert.equal(textOf(events), "Part one. Part two.");
    assert.equal(events.filter((e) => e.type === "done").length, 1);
    assert.equal(doneOf(events).stop, "end_turn");
    const usage = events.find((e) => e.type === "usage");
    assert.deepEqual(usage?.type === "usage" && usage.usage, {
      input_tokens: 14,
      output_tokens: 7,
      cached_input_tokens: 0,
      reasoning_tokens: 0,
    });
    const second = bodies(server)[1]?.messages as unknown[];
    assert.deepEqual(second.at(-1), {
      role: "assistant",
      content: [{ type: "text", text: "Part one." }],
    });
    assert.equal(second.length, 2);
  });

  for (const c of ANTHROPIC_FAILURES) {
    test(`failure: ${c.name} -> ${c.code}`, async () => {
      const { failure } = await call([c.reply]);
      assert.ok(failure, "the call failed");
      assert.equal(failure.code, c.code);
      if (c.retryAfterMs !== undefined) assert.equal(failure.retryAfterMs, c.retryAfterMs);
      assert.ok(!failure.message.includes("127.0.0.1") && !failure.message.includes(KEY));
      assert.ok(
        !/210000|invalid x-api-key|oops|busy|scripted/.test(failure.message),
        failure.message,
      );
    });
  }

  test("as the SDK read the stream: an unnamed event, an empty data line and a comment are skipped", async () => {
    const sse = anthropicEvents({ text: ["Hel", "lo"] })
      .map((e) => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`)
      .join("");
    const cut = sse.indexOf("event: content_block_delta");
    const text = `${sse.slice(0, cut)}data: {"not":"named"}\n\nevent: content_block_delta\ndata:\n\n: keep-alive\n\n${sse.slice(cut)}`;
    const { events, failure } = await call([
      { kind: "raw", contentType: "text/event-stream", text },
    ]);
    assert.equal(failure, null);
    assert.equal(textOf(events), "Hello");
    assert.equal(doneOf(events)?.stop, "end_turn");
  });

  test("failure: silence past the idle bound -> remote_timeout; pings keep a slow stream alive", async () => {
    server.script({ kind: "stall" });
    const stalled = await drain(
      provider(undefined, { connectMs: 10_000, idleMs: 1_000 }).stream(
        modelRequest({ model: MODEL }),
      ),
    );
    assert.equal(stalled.failure?.code, "remote_timeout");
    server.script(anthropicReply({ text: ["a", "b", "c"], gapMs: 300 }));
    const slow = await drain(
      provider(undefined, { connectMs: 10_000, idleMs: 1_500 }).stream(
        modelRequest({ model: MODEL }),
      ),
    );
    assert.equal(slow.failure, null);
    assert.equal(textOf(slow.events), "abc");
  });

  test("the SDK's environment never reaches a request: keys, base URL, custom headers", async () => {
    const environment = {
      ANTHROPIC_API_KEY: "sk-ant-from-env",
      ANTHROPIC_AUTH_TOKEN: "sk-ant-oat-from-env",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9/from-env",
      ANTHROPIC_CUSTOM_HEADERS: "X-Leak: from-env\nanthropic-beta: from-env",
    };
    for (const credential of [
      { kind: "api_key", key: KEY },
      { kind: "oauth_bearer", token: OAUTH },
    ] as Credential[]) {
      const { failure } = await withEnvironment(environment, () =>
        call([anthropicReply({ text: ["ok"] })], {}, credential),
      );
      assert.equal(failure, null, credential.kind);
      const headers = server.seen[0]?.headers;
      assert.equal(headers?.["x-leak"], undefined, credential.kind);
      assert.ok(!JSON.stringify(headers).includes("from-env"), credential.kind);
    }
  });

  test("abort ends the iteration promptly, with no failure", async () => {
    server.script(anthropicReply({ text: ["a", "b", "c", "d", "e"], gapMs: 300 }));
    const controller = new AbortController();
    const { events, failure } = await drain(
      (async function* () {
        for await (const event of provider().stream(
          modelRequest({ model: MODEL, signal: controller.signal }),
        )) {
          if (event.type === "text_delta") controller.abort();
          yield event;
        }
      })(),
    );
    assert.equal(failure, null);
    assert.equal(events.filter((e) => e.type === "text_delta").length, 1);
    assert.ok(!events.some((e) => e.type === "done"));
  });
});
