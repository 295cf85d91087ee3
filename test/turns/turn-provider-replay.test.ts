import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { TurnEventParams } from "../../src/protocol/schemas/turns.js";
import { answer, call, text } from "../fixtures/chat-completions-server.js";
import { bodies } from "../fixtures/scripted-sse.js";
import { type ProviderWorld, providerWorld } from "./provider-world.js";
import { recordsOf, resultText } from "./tool-turns.js";
import { runTurn, type TurnEvent, type TurnWorld, turnWorld } from "./turn-harness.js";

/**
 * Through the real child: what a turn shows and keeps of the provider behaviours issue 36 found
 * in recorded streams (tool calls of tools we do not have, messages with a phase, DeepSeek's
 * reasoning across steps and turns).
 */

// biome-ignore lint/suspicious/noExplicitAny: wire bodies and records are read freely.
type Loose = any;

let world: TurnWorld | ProviderWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const bodiesOf = (events: TurnEvent[], type: string) =>
  events.filter((e) => e.event.type === type).map((e) => e.event as Loose);

describe("a call of a tool we do not have is shown under the model's name", () => {
  test("tool_call with the name (control characters escaped, at most 64 bytes), then tool_done failed", async () => {
    const w = await turnWorld();
    world = w;
    await w.child.call("session.create", {});
    const names = [
      "get_weather",
      "bad\u0007na\u0085me",
      "a".repeat(64),
      "b".repeat(65),
      "é".repeat(33),
      "",
    ];
    w.server.reply(
      answer({ calls: names.map((name, i) => call(name, { city: "Paris" }, `call_${i}`)) }),
    );
    w.server.reply(text("I cannot."));
    const { result, events } = await runTurn(w.child, "weather?", "full_access");
    assert.equal(result.status, "completed");
    const shown = [
      "get_weather",
      "bad\\u0007na\\u0085me",
      "a".repeat(64),
      "b".repeat(64),
      "é".repeat(32),
      "(no name)",
    ];
    const calls = bodiesOf(events, "tool_call");
    assert.deepEqual(
      calls.map((e) => [e.tool, e.title, e.input]),
      shown.map((tool) => [tool, `Use ${tool}`, { city: "Paris" }]),
    );
    for (const event of events.filter((e) => e.event.type === "tool_call"))
      assert.ok(
        TurnEventParams().safeParse(event).success,
        `the schema accepts ${JSON.stringify(event.event)}`,
      );
    const done = bodiesOf(events, "tool_done");
    assert.deepEqual(
      done.map((e) => [e.item_id, e.status]),
      calls.map((e) => [e.item_id, "failed"]),
    );
    // The model is told, under its own call ID.
    assert.match(resultText(w.server.requests[1], "call_0"), /^Unknown tool "get_weather"\.$/);
  });

  test("the schema takes an unknown tool's name up to 64 bytes without control characters", () => {
    const event = (tool: string) => ({
      request_id: "r",
      turn_id: "t",
      seq: 0,
      event: { type: "tool_call", item_id: "t.1", tool, title: "Use it", input: {} },
    });
    const ok = (tool: string) => TurnEventParams().safeParse(event(tool)).success;
    assert.ok(ok("get_weather") && ok("a".repeat(64)) && ok("é".repeat(32)) && ok("read_file"));
    assert.ok(
      !ok("a".repeat(65)) && !ok("é".repeat(33)) && !ok("bad\u0007") && !ok("x\u0085") && !ok(""),
    );
  });
});

describe("OpenAI: two messages of one response, each with its phase", () => {
  test("each its own item, message_done with its phase, its own history record; both go back with their phases", async () => {
    const w = await providerWorld({
      providers: ["openai"],
      env: { OPENAI_API_KEY: "sk-openai-phase" },
    });
    world = w;
    await w.child.call("session.create", {});
    const message = (id: string, phase: string, delta: string) => [
      {
        type: "response.output_item.added",
        item: { id, type: "message", role: "assistant", content: [], phase },
      },
      { type: "response.output_text.delta", item_id: id, delta },
      {
        type: "response.output_item.done",
        item: {
          id,
          type: "message",
          role: "assistant",
          phase,
          content: [{ type: "output_text", text: delta }],
        },
      },
    ];
    const stream = (items: Record<string, unknown>[]) =>
      [
        { type: "response.created", response: { id: "r", output: [] } },
        ...items,
        { type: "response.completed", response: { id: "r" } },
      ].map((data) => ({ event: String(data.type), data }));
    const server = w.sse("openai");
    server.script(
      {
        kind: "sse",
        events: stream([
          ...message("m1", "commentary", "Checking."),
          ...message("m2", "final_answer", "Done."),
        ]),
      },
      { kind: "sse", events: stream(message("m3", "final_answer", "Again.")) },
    );
    const { events, result } = await runTurn(w.child, "go");
    assert.equal(result.status, "completed");
    const done = bodiesOf(events, "message_done");
    assert.deepEqual(
      done.map((e) => [e.text, e.phase]),
      [
        ["Checking.", "commentary"],
        ["Done.", "final_answer"],
      ],
    );
    assert.notEqual(done[0]?.item_id, done[1]?.item_id);
    const records = (await recordsOf(w.child, result.session_id)).filter(
      (r) => r.type === "assistant_message",
    );
    assert.deepEqual(
      records.map((r) => [r.text, r.provider_state?.phase]),
      [
        ["Checking.", "commentary"],
        ["Done.", "final_answer"],
      ],
    );

    // The next turn resends each message with its phase (OpenAI: on all assistant messages).
    const next = await runTurn(w.child, "again");
    assert.deepEqual(
      bodiesOf(next.events, "message_done").map((e) => e.phase),
      ["final_answer"],
    );
    const input = bodies(server)[1]?.input as Loose[];
    assert.deepEqual(
      input.filter((i) => i.role === "assistant").map((i) => [i.content, i.phase]),
      [
        ["Checking.", "commentary"],
        ["Done.", "final_answer"],
      ],
    );
  });

  test("a provider without phases: message_done carries phase null", async () => {
    const w = await turnWorld();
    world = w;
    await w.child.call("session.create", {});
    w.server.reply(text("Plain."));
    const { events } = await runTurn(w.child, "go");
    assert.deepEqual(
      bodiesOf(events, "message_done").map((e) => [e.text, e.phase]),
      [["Plain.", null]],
    );
  });
});

describe("DeepSeek: reasoning_content of a tool step goes back in every later request", () => {
  test("the next step's request and the next turn's (from the history) carry it", async () => {
    const w = await turnWorld({
      models: [{ id: "deepseek-v4-flash", name: "DeepSeek V4 Flash" }],
      model: "demo/deepseek-v4-flash",
    });
    world = w;
    await w.child.call("session.create", {});
    w.server.reply(
      answer({
        reasoning: "Look at the file first.",
        calls: [call("list_dir", { path: "." }, "call_1")],
      }),
      text("Nothing there."),
      text("Still nothing."),
    );
    await runTurn(w.child, "what is here?", "full_access");
    await runTurn(w.child, "and now?", "full_access");
    for (const index of [1, 2]) {
      const messages = w.server.requests[index]?.body.messages as Loose[];
      const carrier = messages.find((m) => m.role === "assistant" && m.tool_calls);
      assert.equal(carrier?.reasoning_content, "Look at the file first.", `request ${index}`);
    }
  });
});
