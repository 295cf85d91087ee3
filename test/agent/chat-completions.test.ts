import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, test } from "node:test";
import { SUMMARY_PREFIX } from "../../src/agent/providers/chat-messages.js";
import { createModelProvider } from "../../src/agent/providers/index.js";
import type { ContextItem } from "../../src/agent/providers/provider.js";
import type { Provider } from "../../src/models/providers.js";
import {
  type ChatServer,
  call,
  garbage,
  startChatServer,
  text,
  toolCall,
  toolCalls,
} from "../fixtures/chat-completions-server.js";
import { assertFailure, chatProvider, drain, joinedText, KEY, request } from "./chat-helpers.js";

let server: ChatServer;
beforeEach(async () => {
  server = await startChatServer();
});
afterEach(async () => {
  await server.close();
});

describe("Chat Completions streaming over the real wire format", () => {
  test("text streams in pieces, then usage and done; the request is a streaming call", async () => {
    server.reply(text("Hello, world! How are you?"));
    const { events, failure } = await drain(chatProvider(server.baseUrl));
    assert.equal(failure, null);
    assert.ok(events.filter((e) => e.type === "text_delta").length > 3, "several deltas");
    assert.equal(joinedText(events), "Hello, world! How are you?");
    assert.deepEqual(events.slice(-2), [
      {
        type: "usage",
        usage: { input_tokens: 12, output_tokens: 5, cached_input_tokens: 0, reasoning_tokens: 0 },
      },
      { type: "done", stop: "end_turn" },
    ]);
    const seen = server.requests[0];
    assert.equal(seen?.method, "POST");
    assert.equal(seen?.url, "/v1/chat/completions");
    assert.deepEqual(seen?.body, {
      model: "demo-1",
      messages: [
        { role: "system", content: "You are a test." },
        { role: "user", content: "Hi" },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  test("keyed: the key goes as a bearer; a trailing slash on the base URL is fine", async () => {
    server.reply(text("ok"));
    await drain(chatProvider(`${server.baseUrl}/`));
    assert.equal(server.requests[0]?.headers.authorization, `Bearer ${KEY}`);
    assert.equal(server.requests[0]?.url, "/v1/chat/completions");
  });

  test("keyless: no Authorization header at all, even with OPENAI_* in the environment", async () => {
    const environment = {
      OPENAI_API_KEY: "sk-from-env",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      OPENAI_ORG_ID: "org-env",
      OPENAI_PROJECT_ID: "proj-env",
      OPENAI_CUSTOM_HEADERS: "X-Leak: env-header\nAuthorization: Bearer sk-from-env-header",
    };
    const saved = { ...process.env };
    Object.assign(process.env, environment);
    try {
      server.reply(text("keyless"), text("keyed"));
      assert.equal((await drain(chatProvider(server.baseUrl, null))).failure, null);
      assert.equal((await drain(chatProvider(server.baseUrl, KEY))).failure, null);
    } finally {
      for (const name of Object.keys(environment))
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
    }
    const [keyless, keyed] = server.requests.map((r) => r.headers);
    assert.equal(keyless?.authorization, undefined);
    assert.equal(keyed?.authorization, `Bearer ${KEY}`);
    for (const headers of [keyless, keyed]) {
      assert.equal(headers?.["openai-organization"], undefined);
      assert.equal(headers?.["openai-project"], undefined);
      assert.equal(headers?.["x-leak"], undefined);
      assert.ok(!JSON.stringify(headers).includes("from-env"));
    }
  });

  test("two parallel tool calls are assembled from their fragments, in order", async () => {
    server.reply(
      toolCalls(
        [
          call("read_file", { path: "src/app.ts", range: [1, 40] }, "call_a"),
          call("search", { pattern: "TODO", glob: "**/*.ts" }, "call_b"),
        ],
        { text: "Let me look.", argumentPieces: 5 },
      ),
    );
    const { events, failure } = await drain(chatProvider(server.baseUrl));
    assert.equal(failure, null);
    assert.equal(server.requests.length, 1);
    assert.equal(joinedText(events), "Let me look.");
    const calls = events.filter((e) => e.type === "tool_call");
    assert.deepEqual(
      calls.map((c) => ({ ...c, arguments: JSON.parse(c.arguments) })),
      [
        {
          type: "tool_call",
          call_id: "call_a",
          name: "read_file",
          arguments: { path: "src/app.ts", range: [1, 40] },
        },
        {
          type: "tool_call",
          call_id: "call_b",
          name: "search",
          arguments: { pattern: "TODO", glob: "**/*.ts" },
        },
      ],
    );
    assert.deepEqual(events.at(-1), { type: "done", stop: "tool_use" });
    assert.equal(events.at(-2)?.type, "usage");
  });

  test("tools are sent as functions (and omitted when empty); an effort as reasoning_effort", async () => {
    server.reply(text("ok"));
    const parameters = { type: "object", properties: { path: { type: "string" } } };
    await drain(
      chatProvider(server.baseUrl),
      request({
        effort: "high",
        tools: [{ name: "read_file", description: "Read a file.", parameters }],
      }),
    );
    const body = server.requests[0]?.body;
    assert.deepEqual(body.tools, [
      {
        type: "function",
        function: { name: "read_file", description: "Read a file.", parameters },
      },
    ]);
    assert.equal(body.reasoning_effort, "high");
  });

  test("usage: prompt, completion, cached and reasoning tokens; absent ones are 0", async () => {
    server.reply(
      text("a", {
        usage: {
          prompt_tokens: 100,
          completion_tokens: 20,
          cached_tokens: 30,
          reasoning_tokens: 7,
        },
      }),
    );
    server.reply(text("b", { usage: null }));
    const chunkBase = { id: "x", object: "chat.completion.chunk", created: 1, model: "m" };
    const bare = [
      { ...chunkBase, choices: [{ index: 0, delta: { content: "c" }, finish_reason: "stop" }] },
      // Some servers' usage-only chunk has no `choices` at all.
      { ...chunkBase, usage: { prompt_tokens: 3, completion_tokens: 1 } },
    ];
    server.reply(
      garbage(`${bare.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")}data: [DONE]\n\n`),
    );
    const usages = [];
    for (let i = 0; i < 3; i += 1) {
      const { events } = await drain(chatProvider(server.baseUrl));
      usages.push(events.find((e) => e.type === "usage"));
    }
    assert.deepEqual(usages, [
      {
        type: "usage",
        usage: {
          input_tokens: 100,
          output_tokens: 20,
          cached_input_tokens: 30,
          reasoning_tokens: 7,
        },
      },
      {
        type: "usage",
        usage: { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, reasoning_tokens: 0 },
      },
      {
        type: "usage",
        usage: { input_tokens: 3, output_tokens: 1, cached_input_tokens: 0, reasoning_tokens: 0 },
      },
    ]);
  });

  test("the replayed context: previous turns, tool calls grouped, results with their IDs", async () => {
    server.reply(text("done"));
    const context: ContextItem[] = [
      { kind: "summary", text: "We renamed foo to bar." },
      { kind: "user", text: "Read a and b" },
      { kind: "assistant", text: "Reading both.", model: "demo/demo-1" },
      { kind: "tool_call", call_id: "c1", tool: "read_file", input: { path: "a" } },
      { kind: "tool_call", call_id: "c2", tool: "read_file", input: { path: "b" } },
      { kind: "tool_result", call_id: "c1", output: "A", is_error: false },
      { kind: "tool_result", call_id: "c2", output: "no such file", is_error: true },
      { kind: "tool_call", call_id: "c3", tool: "list_dir", input: {} },
      { kind: "tool_result", call_id: "c3", output: "a\nb", is_error: false },
      {
        kind: "assistant",
        text: "Both read.",
        model: "other/x",
        provider_state: { provider: "anthropic", signature: "sig" },
      },
      { kind: "assistant", text: "", model: "demo/demo-1" },
      { kind: "tool_call", call_id: "c4", tool: "shell", input: { command: "ls" } },
      { kind: "tool_result", call_id: "c4", output: "x", is_error: false },
      { kind: "user", text: "Thanks" },
    ];
    await drain(chatProvider(server.baseUrl), request({ context }));
    const fn = (id: string, name: string, args: unknown) => ({
      id,
      type: "function",
      function: { name, arguments: JSON.stringify(args) },
    });
    assert.deepEqual(server.requests[0]?.body.messages, [
      { role: "system", content: "You are a test." },
      { role: "user", content: `${SUMMARY_PREFIX}\n\nWe renamed foo to bar.` },
      { role: "user", content: "Read a and b" },
      {
        role: "assistant",
        content: "Reading both.",
        tool_calls: [fn("c1", "read_file", { path: "a" }), fn("c2", "read_file", { path: "b" })],
      },
      { role: "tool", tool_call_id: "c1", content: "A" },
      { role: "tool", tool_call_id: "c2", content: "no such file" },
      { role: "assistant", content: null, tool_calls: [fn("c3", "list_dir", {})] },
      { role: "tool", tool_call_id: "c3", content: "a\nb" },
      { role: "assistant", content: "Both read." },
      { role: "assistant", content: null, tool_calls: [fn("c4", "shell", { command: "ls" })] },
      { role: "tool", tool_call_id: "c4", content: "x" },
      { role: "user", content: "Thanks" },
    ]);
  });

  test("reasoning text streams as reasoning deltas, before the answer", async () => {
    server.reply(text("Four.", { reasoning: "Two plus two is four." }));
    const { events } = await drain(chatProvider(server.baseUrl));
    const reasoning = events.filter((e) => e.type === "reasoning_delta");
    assert.equal(reasoning.map((e) => e.text).join(""), "Two plus two is four.");
    assert.ok(
      events.indexOf(reasoning.at(-1) as never) < events.findIndex((e) => e.type === "text_delta"),
    );
  });

  test("finish reasons: length, content_filter; tool calls with a plain stop are tool use", async () => {
    server.reply(text("cut sh", { finish: "length" }));
    server.reply(text("", { finish: "content_filter" }));
    server.reply(toolCall("list_dir", {}, { finish: "stop" }));
    const stops = [];
    for (let i = 0; i < 3; i += 1)
      stops.push((await drain(chatProvider(server.baseUrl))).events.at(-1));
    assert.deepEqual(stops, [
      { type: "done", stop: "max_tokens" },
      { type: "done", stop: "refusal" },
      { type: "done", stop: "tool_use" },
    ]);
  });

  test("a call without ID or arguments (as some local servers send) gets call_0 and {}", async () => {
    const base = { id: "x", object: "chat.completion.chunk", created: 1, model: "m" };
    const chunks = [
      { ...base, choices: [{ index: 0, delta: { role: "assistant" } }] },
      {
        ...base,
        choices: [{ index: 0, delta: { tool_calls: [{ function: { name: "list_dir" } }] } }],
      },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
    ];
    server.reply(
      garbage(`${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")}data: [DONE]\n\n`),
    );
    const { events, failure } = await drain(chatProvider(server.baseUrl));
    assert.equal(failure, null);
    assert.deepEqual(events[0], {
      type: "tool_call",
      call_id: "call_0",
      name: "list_dir",
      arguments: "{}",
    });
  });
});

describe("createModelProvider", () => {
  const provider = (type: Provider["type"], base_url: string): Provider => ({
    id: "demo",
    type,
    base_url,
    api_key_env: null,
    token_url: null,
    fingerprint: "f",
  });
  const bounds = { connectMs: 10_000, idleMs: 30_000 };

  test("openai-compatible: keyed and keyless credentials", async () => {
    server.reply(text("one"), text("two"));
    for (const credential of [
      { kind: "api_key" as const, key: KEY },
      { kind: "keyless" as const },
    ]) {
      const model = createModelProvider({
        provider: provider("openai-compatible", server.baseUrl),
        credential,
        bounds,
        home: "/nonexistent",
        env: {},
      });
      assert.equal((await drain(model)).failure, null);
    }
    assert.equal(server.requests[0]?.headers.authorization, `Bearer ${KEY}`);
    assert.equal(server.requests[1]?.headers.authorization, undefined);
  });

  test("no credential fails the call, nothing is sent; a bad base URL is provider_error", async () => {
    const none = createModelProvider({
      provider: provider("openai-compatible", server.baseUrl),
      credential: null,
      bounds,
      home: "/nonexistent",
      env: {},
    });
    assertFailure(await drain(none), "authentication_rejected", server);
    const bad = chatProvider("file:///etc/passwd");
    assertFailure(await drain(bad), "provider_error", null);
    assert.equal(server.requests.length, 0);
  });
});
