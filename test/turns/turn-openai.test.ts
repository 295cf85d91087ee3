import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { bodies, type ResponsesScript, responsesReply } from "../fixtures/responses-server.js";
import { assertNothingLeaked, BODY_MARKER, forbiddenOf } from "./leaks.js";
import {
  assertSecretOnlyIn,
  type ProviderWorld,
  providerWorld,
  selectModel,
} from "./provider-world.js";
import { runTurn, startTurn, typesOf } from "./turn-harness.js";

/** `openai`: the Responses API at a loopback server, through the real child. */

const KEY = "sk-openai-secret-key";

let world: ProviderWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function openaiWorld(options: { effort?: string; model?: string } = {}) {
  world = await providerWorld({ providers: ["openai"], env: { OPENAI_API_KEY: KEY }, ...options });
  await world.child.call("session.create", {});
  return { world, server: world.sse("openai") };
}

function assertClean(w: ProviderWorld): void {
  assertNothingLeaked(w.child, forbiddenOf(w.box, w.urls, [KEY]), [KEY]);
}

describe("turns on openai (Responses API)", () => {
  test("a text turn: the request, the streamed reply, usage, the key only in Authorization", async () => {
    const { world: w, server } = await openaiWorld();
    server.script(
      responsesReply({
        text: ["Hello ", "from ", "Responses."],
        usage: { input: 120, output: 30, cached: 40, reasoning: 7 },
      }),
    );
    const { result, events } = await runTurn(w.child, "Say hello");
    assert.equal(result.status, "completed");
    assert.equal(result.stop_reason, "end_turn");
    assert.deepEqual(result.usage, {
      input_tokens: 120,
      output_tokens: 30,
      cached_input_tokens: 40,
      reasoning_tokens: 7,
    });
    assert.equal(events[0]?.event.model, "openai/gpt-5");
    const done = events.find((e) => e.event.type === "message_done");
    assert.equal(done?.event.text, "Hello from Responses.");
    const usage = events.find((e) => e.event.type === "usage")?.event;
    assert.equal(usage?.input_tokens, 120);
    assert.equal(usage?.reasoning_tokens, 7);

    assert.equal(server.seen.length, 1);
    assert.equal(server.seen[0]?.method, "POST");
    assert.equal(server.seen[0]?.url, "/v1/responses");
    const body = bodies(server)[0] ?? {};
    assert.equal(body.model, "gpt-5");
    assert.equal(body.stream, true);
    assert.equal(body.store, false);
    assert.match(String(body.instructions), /Workspace: /);
    assert.deepEqual((body.input as unknown[]).at(-1), {
      type: "message",
      role: "user",
      content: "Say hello",
    });
    assert.ok((body.tools as { name: string }[]).some((t) => t.name === "read_file"));
    assertSecretOnlyIn(server.seen, KEY, "authorization", `Bearer ${KEY}`);
    assertClean(w);
  });

  test("a tool round trip: the result goes back as function_call_output under the call_id", async () => {
    const { world: w, server } = await openaiWorld();
    writeFileSync(join(w.box.workspace, "notes.txt"), "alpha\n");
    server.script(
      responsesReply({
        text: ["Reading."],
        calls: [{ call_id: "call_abc123", name: "read_file", arguments: '{"path":"notes.txt"}' }],
      }),
      responsesReply({ text: ["It says alpha."] }),
    );
    const { result, events } = await runTurn(w.child, "What is in notes.txt?");
    assert.equal(result.status, "completed");
    assert.equal(result.steps, 2);
    assert.ok(typesOf(events).includes("tool_done"));
    const input = bodies(server)[1]?.input as Record<string, unknown>[];
    const call = input.find((i) => i.type === "function_call");
    assert.deepEqual(call, {
      type: "function_call",
      call_id: "call_abc123",
      name: "read_file",
      arguments: '{"path":"notes.txt"}',
    });
    const output = input.find((i) => i.type === "function_call_output");
    assert.equal(output?.call_id, "call_abc123");
    assert.match(String(output?.output), /alpha/);
    // The order the API requires: the call, then its output, then nothing before the next reply.
    assert.equal(input.indexOf(output as never), input.indexOf(call as never) + 1);
    assertClean(w);
  });

  test("reasoning summaries stream as reasoning_delta; encrypted reasoning is replayed next turn", async () => {
    const { world: w, server } = await openaiWorld();
    server.script(
      responsesReply({
        reasoning: { summary: ["Thinking it over.", "Done thinking."], encrypted: "enc-blob-1" },
        text: ["Answer."],
      }),
      responsesReply({ text: ["Again."] }),
    );
    const first = await runTurn(w.child, "Think first");
    const reasoning = first.events
      .filter((e) => e.event.type === "reasoning_delta")
      .map((e) => e.event.text)
      .join("");
    assert.equal(reasoning, "Thinking it over.\n\nDone thinking.");
    await runTurn(w.child, "And again");
    const input = bodies(server)[1]?.input as Record<string, unknown>[];
    const replayed = input.find((i) => i.type === "reasoning");
    assert.equal(replayed?.encrypted_content, "enc-blob-1");
    assert.deepEqual(bodies(server)[0]?.include, ["reasoning.encrypted_content"]);
    assertClean(w);
  });

  test("effort: the selected effort is reasoning.effort; a model without efforts sends none", async () => {
    const { world: w, server } = await openaiWorld({ effort: "high" });
    server.script(responsesReply({ text: ["One."] }), responsesReply({ text: ["Two."] }));
    const first = await runTurn(w.child, "First");
    assert.equal(first.events[0]?.event.effort, "high");
    assert.deepEqual(bodies(server)[0]?.reasoning, { effort: "high", summary: "auto" });
    await selectModel(w.child, "openai/gpt-4.1", null);
    const second = await runTurn(w.child, "Second");
    assert.equal(second.events[0]?.event.effort, null);
    const body = bodies(server)[1];
    assert.equal(body?.model, "gpt-4.1");
    assert.equal(body?.reasoning, undefined);
    assert.equal(body?.include, undefined);
  });

  const failures: [string, ResponsesScript | null, number | null, string][] = [
    ["HTTP 401", null, 401, "authentication_rejected"],
    ["HTTP 400 invalid_prompt", null, 400, "provider_error"],
    [
      "response.failed",
      { end: { failed: { code: "invalid_prompt", message: BODY_MARKER } } },
      null,
      "provider_error",
    ],
    [
      "EOF before response.completed",
      { text: ["Half an ans"], cutAfter: 8 },
      null,
      "invalid_response",
    ],
  ];
  for (const [name, script, status, code] of failures) {
    test(`${name} fails the turn ${code}`, async () => {
      const { world: w, server } = await openaiWorld();
      server.script(
        script
          ? responsesReply(script)
          : {
              kind: "status",
              status: status as number,
              body: {
                error: {
                  message: BODY_MARKER,
                  type: "invalid_request_error",
                  code: "invalid_prompt",
                },
              },
            },
      );
      const { result } = await runTurn(w.child, "Fail please");
      assert.equal(result.status, "failed");
      assert.equal(result.error?.code, code);
      assert.equal(server.seen.length, 1, "not retried");
      assertClean(w);
    });
  }

  test("context_length_exceeded compacts once (a summary call without tools), then the call again", async () => {
    const { world: w, server } = await openaiWorld();
    server.script(
      {
        kind: "status",
        status: 400,
        body: {
          error: {
            message: "Your input exceeds the context window of this model.",
            type: "invalid_request_error",
            code: "context_length_exceeded",
          },
        },
      },
      responsesReply({ text: ["Summary: the user asked for a long answer."] }),
      responsesReply({ text: ["Here it is."] }),
    );
    const { result, events } = await runTurn(w.child, "A long answer, please");
    assert.equal(result.status, "completed");
    assert.ok(typesOf(events).includes("compacted"));
    const sent = bodies(server);
    assert.equal(sent.length, 3);
    assert.equal(sent[1]?.tools, undefined, "the summary call offers no tools");
    assert.match(JSON.stringify(sent[2]?.input), /Summary: the user asked/);
    const history = await w.child.call("session.history", { id: result.session_id });
    assert.ok(history.events.some((e) => e.type === "compaction"));
  });

  test("response.incomplete for max_output_tokens completes with max_tokens", async () => {
    const { world: w, server } = await openaiWorld();
    server.script(responsesReply({ text: ["Cut sh"], end: { incomplete: "max_output_tokens" } }));
    const { result } = await runTurn(w.child, "Long answer");
    assert.equal(result.status, "completed");
    assert.equal(result.stop_reason, "max_tokens");
  });

  test("interrupt while streaming: interrupted, the partial reply kept", async () => {
    const { world: w, server } = await openaiWorld();
    const words = Array.from({ length: 1000 }, (_, i) => `word${i} `);
    server.script(responsesReply({ text: words, gapMs: 20 }));
    const turn = startTurn(w.child, "Talk a lot");
    await turn.event("message_delta");
    const ack = await w.child.request("turn.interrupt", { request_id: turn.id });
    assert.equal((ack.result as { state?: string }).state, "interrupting");
    const frame = await turn.response;
    const result = frame.result as { status: string; stop_reason: string };
    assert.equal(result.status, "interrupted");
    assert.equal(result.stop_reason, "interrupted");
    const history = await w.child.call("session.history", {
      id: (frame.result as { session_id: string }).session_id,
    });
    const end = history.events.find((e) => e.type === "turn_end") as { status?: string };
    assert.equal(end?.status, "interrupted");
    assertClean(w);
  });
});
