import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createResponsesProvider } from "../../src/agent/providers/responses.js";
import { bodies, responsesReply, startScriptedServer } from "../fixtures/responses-server.js";
import type { Reply, ScriptedServer } from "../fixtures/scripted-sse.js";
import { closedPort, startSilentListener } from "../models/fake-server.js";
import {
  doneOf,
  drain,
  modelRequest,
  options,
  providerAt,
  READ_TOOL,
  secretOnlyIn,
  textOf,
  toolRound,
  withEnvironment,
} from "./provider-helpers.js";
import { RESPONSES_FAILURES } from "./responses-failures.js";

const KEY = "sk-test-secret-4242";

describe("openai: the Responses API", () => {
  let server: ScriptedServer;
  before(async () => {
    server = await startScriptedServer();
  });
  after(() => server.close());

  const provider = (bounds?: { connectMs: number; idleMs: number }, base?: string) =>
    createResponsesProvider(
      options(
        providerAt("openai", base ?? `${server.url}/v1`),
        { kind: "api_key", key: KEY },
        bounds ? { bounds } : {},
      ),
    );
  const call = async (reply: Reply, overrides = {}) => {
    server.seen.length = 0;
    server.script(reply);
    return drain(provider().stream(modelRequest(overrides)));
  };

  test("a text turn streams deltas, usage and end_turn; the key is the bearer and nowhere else", async () => {
    const { events, failure } = await call(
      responsesReply({
        text: ["Hel", "lo ", "there"],
        usage: { input: 21, output: 3, cached: 16 },
      }),
    );
    assert.equal(failure, null);
    assert.equal(textOf(events), "Hello there");
    assert.deepEqual(
      events.find((e) => e.type === "usage"),
      {
        type: "usage",
        usage: { input_tokens: 21, output_tokens: 3, cached_input_tokens: 16, reasoning_tokens: 0 },
      },
    );
    assert.equal(doneOf(events).stop, "end_turn");
    const seen = server.seen[0];
    assert.ok(seen);
    assert.equal(seen.method, "POST");
    assert.equal(seen.url, "/v1/responses");
    assert.equal(seen.headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(secretOnlyIn(seen, KEY, "authorization"), []);
    const body = bodies(server)[0];
    assert.equal(body?.model, "gpt-test");
    assert.equal(body?.instructions, "You are a test assistant.");
    assert.equal(body?.stream, true);
    assert.equal(body?.store, false);
    assert.deepEqual(body?.input, [{ type: "message", role: "user", content: "Hello" }]);
    // A model without efforts sends no reasoning setting at all.
    assert.equal(body?.reasoning, undefined);
    assert.equal(body?.include, undefined);
    assert.equal(body?.tools, undefined);
  });

  test("a tool round trip: the whole call from output_item.done, the result under its call_id", async () => {
    const first = await call(
      responsesReply({
        calls: [{ call_id: "call_1", name: "read_file", arguments: '{"path":"a.txt"}' }],
      }),
      { tools: [READ_TOOL] },
    );
    assert.equal(first.failure, null);
    assert.deepEqual(
      first.events.filter((e) => e.type === "tool_call"),
      [{ type: "tool_call", call_id: "call_1", name: "read_file", arguments: '{"path":"a.txt"}' }],
    );
    assert.equal(doneOf(first.events).stop, "tool_use");
    const sent = bodies(server)[0];
    assert.deepEqual(sent?.tools, [
      {
        type: "function",
        name: "read_file",
        description: "Reads a file",
        parameters: READ_TOOL.parameters,
        strict: false,
      },
    ]);
    assert.equal(sent?.tool_choice, "auto");

    const second = await call(responsesReply({ text: ["It says: contents of a"] }), {
      tools: [READ_TOOL],
      context: toolRound("openai/gpt-test"),
    });
    assert.equal(second.failure, null);
    assert.deepEqual(bodies(server)[0]?.input, [
      { type: "message", role: "user", content: "Read a.txt" },
      {
        type: "function_call",
        call_id: "call_1",
        name: "read_file",
        arguments: '{"path":"a.txt"}',
      },
      { type: "function_call_output", call_id: "call_1", output: "contents of a" },
    ]);
  });

  test("an effort maps to reasoning.effort with summaries; encrypted reasoning is kept and replayed", async () => {
    const { events, failure } = await call(
      responsesReply({
        reasoning: { summary: ["First I look.", "Then I answer."], encrypted: "enc-blob-1" },
        text: ["Done"],
        usage: { input: 30, output: 40, reasoning: 32 },
      }),
      { effort: "high" },
    );
    assert.equal(failure, null);
    const body = bodies(server)[0];
    assert.deepEqual(body?.reasoning, { effort: "high", summary: "auto" });
    assert.deepEqual(body?.include, ["reasoning.encrypted_content"]);
    assert.equal(textOf(events, "reasoning_delta"), "First I look.\n\nThen I answer.");
    const usage = events.find((e) => e.type === "usage");
    assert.equal(usage?.type === "usage" && usage.usage.reasoning_tokens, 32);
    // The message's own state (the reasoning before it, its phase) ends the message; the call's
    // `done` has nothing left over.
    const end = events.find((e) => e.type === "message_end");
    assert.equal(doneOf(events).provider_state, undefined);
    assert.equal(end?.type === "message_end" && end.phase, "final_answer");
    const state = end?.type === "message_end" ? end.provider_state : undefined;
    assert.deepEqual(state, {
      provider: "openai",
      reasoning: [
        {
          type: "reasoning",
          id: "rs_1",
          encrypted_content: "enc-blob-1",
          summary: [
            { type: "summary_text", text: "First I look." },
            { type: "summary_text", text: "Then I answer." },
          ],
        },
      ],
      phase: "final_answer",
    });

    // Replayed before the assistant's message, for the same provider and model only.
    const assistant = {
      kind: "assistant" as const,
      text: "Done",
      model: "openai/gpt-test",
      provider_state: state,
    };
    await call(responsesReply({ text: ["ok"] }), {
      effort: "high",
      context: [{ kind: "user", text: "Q" }, assistant, { kind: "user", text: "Again" }],
    });
    const input = bodies(server)[0]?.input as Record<string, unknown>[];
    assert.deepEqual(
      input.map((i) => i.type),
      ["message", "reasoning", "message", "message"],
    );
    assert.equal(input[1]?.encrypted_content, "enc-blob-1");
    assert.equal(input[2]?.phase, "final_answer");

    for (const foreign of [
      { ...assistant, provider_state: { ...state, provider: "codex" } },
      { ...assistant, model: "openai/gpt-other" },
    ]) {
      await call(responsesReply({ text: ["ok"] }), {
        context: [{ kind: "user", text: "Q" }, foreign, { kind: "user", text: "Again" }],
      });
      const replay = bodies(server)[0]?.input as Record<string, unknown>[];
      assert.deepEqual(replay[1], { type: "message", role: "assistant", content: "Done" });
      assert.equal(replay.length, 3);
    }
  });

  test("length and content-filter stops, and a refusal", async () => {
    const long = await call(
      responsesReply({ text: ["cut sh"], end: { incomplete: "max_output_tokens" } }),
    );
    assert.equal(doneOf(long.events).stop, "max_tokens");
    assert.ok(long.events.some((e) => e.type === "usage"));
    const filtered = await call(
      responsesReply({ text: ["x"], end: { incomplete: "content_filter" } }),
    );
    assert.equal(doneOf(filtered.events).stop, "refusal");
    const refused = await call(responsesReply({ refusal: "I can't help with that." }));
    assert.equal(doneOf(refused.events).stop, "refusal");
    assert.equal(textOf(refused.events), "I can't help with that.");
  });

  for (const c of RESPONSES_FAILURES) {
    test(`failure: ${c.name} -> ${c.code}`, async () => {
      const { failure } = await call(c.reply);
      assert.ok(failure, "the call failed");
      assert.equal(failure.code, c.code);
      if (c.retryAfterMs !== undefined) assert.equal(failure.retryAfterMs, c.retryAfterMs);
      assert.ok(!failure.message.includes(server.url) && !failure.message.includes("127.0.0.1"));
      assert.ok(!failure.message.includes(KEY));
      assert.ok(!/bad key|oops|boom|upstream|slow/.test(failure.message), failure.message);
    });
  }

  test("failure: no byte within the idle bound -> remote_timeout", async () => {
    server.script({ kind: "stall" });
    const { failure } = await drain(
      provider({ connectMs: 10_000, idleMs: 1_000 }).stream(modelRequest()),
    );
    assert.equal(failure?.code, "remote_timeout");
    server.script(responsesReply({ text: ["a"], cutAfter: 4, ending: "stall" }));
    const mid = await drain(provider({ connectMs: 10_000, idleMs: 1_000 }).stream(modelRequest()));
    assert.equal(mid.failure?.code, "remote_timeout");
  });

  test("every chunk resets the idle clock: a slow, steady stream succeeds", async () => {
    server.script(responsesReply({ text: ["a", "b", "c", "d"], gapMs: 300 }));
    const { events, failure } = await drain(
      provider({ connectMs: 10_000, idleMs: 1_500 }).stream(modelRequest()),
    );
    assert.equal(failure, null);
    assert.equal(textOf(events), "abcd");
  });

  test("the SDK's environment never reaches a request: key, base URL, organization, custom headers", async () => {
    server.seen.length = 0;
    server.script(responsesReply({ text: ["ok"] }));
    const environment = {
      OPENAI_API_KEY: "sk-from-env",
      OPENAI_BASE_URL: "http://127.0.0.1:9/from-env",
      OPENAI_ORG_ID: "org-from-env",
      OPENAI_PROJECT_ID: "proj-from-env",
      OPENAI_CUSTOM_HEADERS: "X-Leak: from-env\nAuthorization: Bearer sk-from-env-header",
    };
    const { failure } = await withEnvironment(environment, () =>
      drain(provider().stream(modelRequest())),
    );
    assert.equal(failure, null);
    const headers = server.seen[0]?.headers;
    assert.equal(headers?.authorization, `Bearer ${KEY}`);
    assert.equal(headers?.["x-leak"], undefined);
    assert.equal(headers?.["openai-organization"], undefined);
    assert.equal(headers?.["openai-project"], undefined);
    assert.ok(!JSON.stringify(headers).includes("from-env"));
  });

  test("a consumer slower than the idle bound is back-pressure, not a silent remote", async () => {
    // Gaps make separate chunks, so the body reads ahead while the consumer holds an event.
    // The idle bound leaves a busy machine room for the server's 50 ms gaps; the consumer holds
    // each event well past it.
    server.script(responsesReply({ text: ["a", "b", "c"], gapMs: 50 }));
    const events: string[] = [];
    const { failure } = await drain(
      (async function* () {
        const slow = provider({ connectMs: 10_000, idleMs: 600 }).stream(modelRequest());
        for await (const event of slow) {
          // Each text event is held past the idle bound while the rest sits in the socket.
          if (event.type === "text_delta") await new Promise((r) => setTimeout(r, 1500));
          events.push(event.type);
          yield event;
        }
      })(),
    );
    assert.equal(failure, null);
    assert.equal(events.at(-1), "done");
  });

  test("failure: connect bound and refused connection", async () => {
    const silent = await startSilentListener();
    try {
      const timedOut = await drain(
        provider({ connectMs: 500, idleMs: 20_000 }, `${silent.url}/v1`).stream(modelRequest()),
      );
      assert.equal(timedOut.failure?.code, "remote_timeout");
    } finally {
      await silent.close();
    }
    const refused = await drain(
      provider(undefined, `${await closedPort()}/v1`).stream(modelRequest()),
    );
    assert.equal(refused.failure?.code, "remote_unavailable");
  });

  test("abort ends the iteration promptly, with no failure", async () => {
    server.script(responsesReply({ text: ["a", "b", "c", "d", "e", "f"], gapMs: 300 }));
    const controller = new AbortController();
    const seen: string[] = [];
    const run = drain(
      (async function* () {
        for await (const event of provider().stream(modelRequest({ signal: controller.signal }))) {
          seen.push(event.type);
          if (event.type === "text_delta") controller.abort();
          yield event;
        }
      })(),
    );
    const { failure, events } = await run;
    assert.equal(failure, null);
    assert.equal(events.filter((e) => e.type === "text_delta").length, 1);
    assert.ok(!events.some((e) => e.type === "done"));

    const before = new AbortController();
    before.abort();
    server.script({ kind: "stall" });
    const early = await drain(provider().stream(modelRequest({ signal: before.signal })));
    assert.deepEqual(early, { events: [], failure: null });
  });
});
