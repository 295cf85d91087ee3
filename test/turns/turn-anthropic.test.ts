import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { anthropicReply, bodies } from "../fixtures/anthropic-server.js";
import type { Reply } from "../fixtures/scripted-sse.js";
import type { Sandbox } from "../helpers/child.js";
import { writeJson } from "../models/fixtures.js";
import { assertNothingLeaked, BODY_MARKER, forbiddenOf } from "./leaks.js";
import {
  assertSecretOnlyIn,
  claudeCredentialsPath,
  type ProviderWorld,
  providerWorld,
  selectModel,
} from "./provider-world.js";
import { runTurn, startTurn, typesOf } from "./turn-harness.js";

/** `anthropic`: the Messages API at a loopback server, through the real child. */

const KEY = "sk-ant-secret-key";

let world: ProviderWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function anthropicWorld(
  options: { effort?: string; env?: Record<string, string>; setup?: (box: Sandbox) => void } = {},
) {
  world = await providerWorld({
    providers: ["anthropic"],
    env: options.env ?? { ANTHROPIC_API_KEY: KEY },
    ...(options.effort ? { effort: options.effort } : {}),
    ...(options.setup ? { setup: options.setup } : {}),
  });
  await world.child.call("session.create", {});
  return { world, server: world.sse("anthropic") };
}

function assertClean(w: ProviderWorld, secrets = [KEY]): void {
  assertNothingLeaked(w.child, forbiddenOf(w.box, w.urls, secrets), secrets);
}

function apiError(status: number, type: string): Reply {
  return { kind: "status", status, body: { type: "error", error: { type, message: BODY_MARKER } } };
}

type Message = { role: string; content: Record<string, unknown>[] };

describe("turns on anthropic (Messages API)", () => {
  test("a text turn: headers, body, usage; ping and unknown events ignored", async () => {
    const { world: w, server } = await anthropicWorld();
    server.script(
      anthropicReply({
        text: ["Hello ", "from ", "Claude."],
        unknown: true,
        usage: { input: 12, output: 6, cache_read: 5, cache_creation: 3 },
      }),
    );
    const { result, events } = await runTurn(w.child, "Say hello");
    assert.equal(result.status, "completed");
    assert.equal(result.stop_reason, "end_turn");
    // Input counts the cached and cache-written tokens too: it is the context's size.
    assert.deepEqual(result.usage, {
      input_tokens: 20,
      output_tokens: 6,
      cached_input_tokens: 5,
      reasoning_tokens: 0,
    });
    assert.equal(
      events.find((e) => e.event.type === "message_done")?.event.text,
      "Hello from Claude.",
    );
    const seen = server.seen[0];
    assert.equal(seen?.url, "/v1/messages");
    assert.equal(seen?.headers["anthropic-version"], "2023-06-01");
    assert.equal(seen?.headers.authorization, undefined);
    const body = bodies(server)[0] ?? {};
    assert.equal(body.model, "claude-sonnet-4-test");
    assert.equal(body.stream, true);
    assert.equal(body.max_tokens, 64_000);
    assert.match(String(body.system), /Workspace: /);
    assert.deepEqual((body.messages as Message[]).at(-1), {
      role: "user",
      content: [{ type: "text", text: "Say hello" }],
    });
    assertSecretOnlyIn(server.seen, KEY, "x-api-key", KEY);
    assertClean(w);
  });

  test("a tool round trip: the result goes back as tool_result under the tool_use_id", async () => {
    const { world: w, server } = await anthropicWorld();
    writeFileSync(join(w.box.workspace, "notes.txt"), "alpha\n");
    server.script(
      anthropicReply({
        text: ["Reading."],
        tools: [{ id: "toolu_01abc", name: "read_file", json: ['{"pa', 'th": "notes', '.txt"}'] }],
        stop_reason: "tool_use",
      }),
      anthropicReply({ text: ["It says alpha."] }),
    );
    const { result, events } = await runTurn(w.child, "What is in notes.txt?");
    assert.equal(result.status, "completed");
    assert.equal(result.steps, 2);
    const call = events.find((e) => e.event.type === "tool_call")?.event;
    assert.deepEqual(call?.input, { path: "notes.txt" });
    const messages = bodies(server)[1]?.messages as Message[];
    assert.equal(messages.length, 3);
    assert.deepEqual(messages[1], {
      role: "assistant",
      content: [
        { type: "text", text: "Reading." },
        { type: "tool_use", id: "toolu_01abc", name: "read_file", input: { path: "notes.txt" } },
      ],
    });
    const [toolResult] = messages[2]?.content ?? [];
    assert.equal(messages[2]?.role, "user");
    assert.equal(toolResult?.type, "tool_result");
    assert.equal(toolResult?.tool_use_id, "toolu_01abc");
    assert.match(String(toolResult?.content), /alpha/);
    assertClean(w);
  });

  test("thinking with its signature is replayed in the tool-use continuation", async () => {
    const { world: w, server } = await anthropicWorld();
    server.script(
      anthropicReply({
        thinking: { text: ["Let me ", "look."], signature: "sig-Ab12==" },
        tools: [{ id: "toolu_02", name: "list_dir", json: ['{"path": "."}'] }],
        stop_reason: "tool_use",
      }),
      anthropicReply({ text: ["Done."] }),
    );
    const { result, events } = await runTurn(w.child, "List the workspace");
    assert.equal(result.status, "completed");
    const thought = events
      .filter((e) => e.event.type === "reasoning_delta")
      .map((e) => e.event.text)
      .join("");
    assert.equal(thought, "Let me look.");
    const messages = bodies(server)[1]?.messages as Message[];
    assert.deepEqual(messages[1], {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Let me look.", signature: "sig-Ab12==" },
        { type: "tool_use", id: "toolu_02", name: "list_dir", input: { path: "." } },
      ],
    });
    assert.equal(messages[2]?.content[0]?.tool_use_id, "toolu_02");
    assertClean(w);
  });

  test("effort: an extended-thinking budget per effort; a model without efforts thinks not", async () => {
    const { world: w, server } = await anthropicWorld({ effort: "high" });
    server.script(
      anthropicReply({ text: ["One."] }),
      anthropicReply({ text: ["Two."] }),
      anthropicReply({ text: ["Three."] }),
    );
    await runTurn(w.child, "First");
    assert.deepEqual(bodies(server)[0]?.thinking, { type: "enabled", budget_tokens: 24_000 });
    await selectModel(w.child, "anthropic/claude-sonnet-4-test", "low");
    await runTurn(w.child, "Second");
    assert.deepEqual(bodies(server)[1]?.thinking, { type: "enabled", budget_tokens: 4_096 });
    await selectModel(w.child, "anthropic/claude-3-5-haiku-latest", null);
    await runTurn(w.child, "Third");
    const body = bodies(server)[2] ?? {};
    assert.equal(body.model, "claude-3-5-haiku-latest");
    assert.equal(body.thinking, undefined);
    assert.equal(body.max_tokens, 8_192);
  });

  test("Claude's OAuth token goes as a bearer with the OAuth beta, never as x-api-key", async () => {
    const oauth = "claude-oauth-secret-token";
    const { world: w, server } = await anthropicWorld({
      env: {},
      setup: (box) =>
        writeJson(claudeCredentialsPath(box), {
          claudeAiOauth: {
            accessToken: oauth,
            refreshToken: "claude-refresh-secret",
            expiresAt: Date.now() + 3_600_000,
          },
        }),
    });
    server.script(anthropicReply({ text: ["Hi."] }));
    const { result } = await runTurn(w.child, "Hello");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    const seen = server.seen[0];
    assert.equal(seen?.headers["x-api-key"], undefined);
    assert.match(String(seen?.headers["anthropic-beta"]), /oauth-2025-04-20/);
    assertSecretOnlyIn(server.seen, oauth, "authorization", `Bearer ${oauth}`);
    assertClean(w, [oauth, "claude-refresh-secret"]);
  });

  test("an in-stream overloaded_error before output is retried, then the turn succeeds", async () => {
    const { world: w, server } = await anthropicWorld();
    server.script(
      anthropicReply({ text: ["never"], errorAfter: { events: 2, type: "overloaded_error" } }),
      anthropicReply({ text: ["Back."] }),
    );
    const { result, events } = await runTurn(w.child, "Go");
    assert.equal(result.status, "completed");
    assert.equal(server.seen.length, 2);
    const retry = events.find((e) => e.event.type === "retry")?.event;
    assert.equal(retry?.reason, "remote_unavailable");
    assert.equal(events.find((e) => e.event.type === "message_done")?.event.text, "Back.");
    assertClean(w);
  });

  test("an in-stream error after output fails the turn, not retried", async () => {
    const { world: w, server } = await anthropicWorld();
    // message_start, ping, the text block's start and first delta; then the error.
    server.script(
      anthropicReply({
        text: ["Part", "ial"],
        errorAfter: { events: 4, type: "overloaded_error" },
      }),
    );
    const { result, events } = await runTurn(w.child, "Go");
    assert.equal(result.error?.code, "remote_unavailable");
    assert.equal(server.seen.length, 1);
    assert.ok(!typesOf(events).includes("retry"));
    assert.equal(events.find((e) => e.event.type === "message_done")?.event.text, "Part");
    assertClean(w);
  });

  const failures: [string, Reply, string][] = [
    ["HTTP 401", apiError(401, "authentication_error"), "authentication_rejected"],
    ["HTTP 403", apiError(403, "permission_error"), "authentication_rejected"],
    ["HTTP 400", apiError(400, "invalid_request_error"), "provider_error"],
    [
      "an in-stream invalid_request_error",
      anthropicReply({ text: ["x"], errorAfter: { events: 1, type: "invalid_request_error" } }),
      "provider_error",
    ],
    [
      "EOF before message_stop",
      anthropicReply({ text: ["Half"], cutAfter: 5 }),
      "invalid_response",
    ],
  ];
  for (const [name, reply, code] of failures) {
    test(`${name} fails the turn ${code}`, async () => {
      const { world: w, server } = await anthropicWorld();
      server.script(reply);
      const { result } = await runTurn(w.child, "Fail please");
      assert.equal(result.status, "failed");
      assert.equal(result.error?.code, code);
      assert.equal(server.seen.length, 1, "not retried");
      assertClean(w);
    });
  }

  test("model_context_window_exceeded compacts once and the call is made again", async () => {
    const { world: w, server } = await anthropicWorld();
    server.script(
      anthropicReply({ stop_reason: "model_context_window_exceeded" }),
      anthropicReply({ text: ["Summary: a greeting was asked for."] }),
      anthropicReply({ text: ["Hello."] }),
    );
    const { result, events } = await runTurn(w.child, "Greet me");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.ok(typesOf(events).includes("compacted"));
    const messages = bodies(server)[2]?.messages as Message[];
    // The summary and the input are both user text: one user message, summary first.
    assert.equal(messages.length, 1);
    assert.match(String(messages[0]?.content[0]?.text), /Summary of the conversation so far/);
    assert.deepEqual(messages[0]?.content[1], { type: "text", text: "Greet me" });
    // The summary call offered no tools.
    assert.equal(bodies(server)[1]?.tools, undefined);
    assertClean(w);
  });

  test("interrupt while streaming ends the turn interrupted", async () => {
    const { world: w, server } = await anthropicWorld();
    server.script(
      anthropicReply({ text: Array.from({ length: 1000 }, (_, i) => `w${i} `), gapMs: 20 }),
    );
    const turn = startTurn(w.child, "Talk");
    await turn.event("message_delta");
    await w.child.call("turn.interrupt", { request_id: turn.id });
    const frame = await turn.response;
    assert.equal((frame.result as { status?: string }).status, "interrupted");
    assertClean(w);
  });
});
