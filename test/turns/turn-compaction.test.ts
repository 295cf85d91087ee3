import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { SUMMARY_INSTRUCTION } from "../../src/agent/compaction.js";
import { SUMMARY_PREFIX } from "../../src/agent/providers/chat-messages.js";
import { contextTooLong, text, toolCall } from "../fixtures/chat-completions-server.js";
import { assertWholeRecords, fullHistory } from "./history-file.js";
import { runTurn, type TurnWorld, turnWorld, typesOf } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A small window: compaction starts past 85% of it, 3400 estimated tokens (4 chars each). */
const WINDOW = 4000;
const SMALL = [
  {
    id: "demo-1",
    name: "Demo 1",
    efforts: ["low", "medium", "high"],
    default_effort: "medium",
    context_window: WINDOW,
  },
];
const summaryMessage = (summary: string) => ({
  role: "user",
  content: `${SUMMARY_PREFIX}\n\n${summary}`,
});

type Message = { role: string; content: string | null; tool_calls?: unknown[] };

/** The engine's estimate of a call (compaction.ts): 4 chars a token, 16 chars an item. */
function estimate(system: string, texts: string[]): number {
  return Math.ceil((system.length + texts.reduce((sum, t) => sum + t.length + 16, 0)) / 4);
}

/**
 * A first turn (question `a`, answer `b`), then a second whose input brings the estimate of its
 * first call to exactly `target`; returns what that second turn did.
 */
async function secondTurnAt(target: number, a: string, b: string) {
  world = await turnWorld({ models: SMALL });
  const { child, server } = world;
  const { session } = await child.call("session.create", {});
  server.reply(text(b));
  await runTurn(child, a);
  const system = server.requests[0]?.body.messages[0].content as string;
  const length = target * 4 - (system.length + a.length + b.length + 3 * 16);
  const input = "i".repeat(length);
  assert.equal(estimate(system, [a, b, input]), target, "the second call's estimate");
  server.reply(text("Summary: the user sent long texts."), text("Done."));
  const second = await runTurn(child, input);
  return { session, input, system, second };
}

describe("turns: compaction (turns.md section 10)", () => {
  test("at 85% of the window exactly the call goes out as it is", async () => {
    const { second } = await secondTurnAt(3400, "a".repeat(4000), "b".repeat(4000));
    assert.equal(second.result.status, "completed");
    assert.ok(!typesOf(second.events).includes("compacted"));
    assert.equal(world?.server.requests.length, 2, "no summary call");
  });

  test("one token past 85%: compacts before the call, then the call starts from the summary", async () => {
    const a = "a".repeat(4000);
    const b = "b".repeat(4000);
    const { session, input, system, second } = await secondTurnAt(3401, a, b);
    const { server, child, box } = world as TurnWorld;
    assert.equal(second.result.status, "completed", JSON.stringify(second.result.error));
    // The summary call: the same model, no tools, the conversation then the instruction.
    const summaryCall = server.requests[1]?.body;
    assert.equal(summaryCall.model, "demo-1");
    assert.equal(summaryCall.tools, undefined, "the summary call offers no tools");
    assert.deepEqual(summaryCall.messages.at(-1), { role: "user", content: SUMMARY_INSTRUCTION });
    assert.deepEqual(
      summaryCall.messages.slice(1, -1).map((m: Message) => m.content),
      [a, b, input],
      "it summarises the conversation so far",
    );
    // The call itself: the system prompt, the summary, this turn's input whole.
    const call = server.requests[2]?.body;
    assert.ok(call.tools.length > 0, "the real call offers the tools again");
    assert.deepEqual(call.messages, [
      { role: "system", content: system },
      summaryMessage("Summary: the user sent long texts."),
      { role: "user", content: input },
    ]);
    // Announced once, before the reply; the summary is not streamed as a message.
    const types = typesOf(second.events);
    assert.equal(types.filter((t) => t === "compacted").length, 1);
    assert.ok(types.indexOf("compacted") < types.indexOf("message_delta"));
    const compacted = second.events.find((e) => e.event.type === "compacted")?.event;
    assert.equal(compacted?.tokens_before, 3401);
    assert.equal(
      compacted?.tokens_after,
      estimate(system, ["Summary: the user sent long texts.", input]),
    );
    const done = second.events.filter((e) => e.event.type === "message_done");
    assert.deepEqual(
      done.map((e) => e.event.text),
      ["Done."],
    );
    // The record, in place; the history keeps every original record.
    const records = assertWholeRecords(box, session.id);
    assert.deepEqual(
      records.map((r) => r.type),
      [
        "session_meta",
        ...["turn_start", "user_message", "assistant_message", "turn_end"],
        ...["turn_start", "user_message", "compaction", "assistant_message", "turn_end"],
      ],
    );
    const record = records[7];
    assert.equal(record?.summary, "Summary: the user sent long texts.");
    assert.equal(record?.tokens_before, 3401);
    assert.equal(record?.turn_id, second.result.turn_id);
    assert.deepEqual(await fullHistory(child, session.id), records);
    assert.equal(records[2]?.text, a, "the compacted messages are still readable");
  });

  test("the next turn starts from the summary, the compacting turn's input kept", async () => {
    const { input, system } = await secondTurnAt(3401, "a".repeat(4000), "b".repeat(4000));
    const { server, child } = world as TurnWorld;
    server.reply(text("Third."));
    const third = await runTurn(child, "And now?");
    assert.equal(third.result.status, "completed");
    assert.deepEqual(server.requests[3]?.body.messages, [
      { role: "system", content: system },
      summaryMessage("Summary: the user sent long texts."),
      { role: "user", content: input },
      { role: "assistant", content: "Done." },
      { role: "user", content: "And now?" },
    ]);
  });

  test("mid-turn: the provider's reported input plus the tool step passes 85%", async () => {
    world = await turnWorld({ models: SMALL });
    const { child, server } = world;
    await child.call("session.create", {});
    // The first call reports 3390 input tokens: the tool result then tips the next one over.
    server.reply(
      toolCall("list_dir", { path: "." }, { usage: { prompt_tokens: 3390 } }),
      text("Summary: listed the workspace."),
      text("Listed."),
    );
    const { result, events } = await runTurn(child, "List the files");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(server.requests.length, 3);
    assert.deepEqual(server.requests[1]?.body.messages.at(-1), {
      role: "user",
      content: SUMMARY_INSTRUCTION,
    });
    assert.deepEqual(server.requests[2]?.body.messages.slice(1), [
      summaryMessage("Summary: listed the workspace."),
      { role: "user", content: "List the files" },
    ]);
    const compacted = events.find((e) => e.event.type === "compacted")?.event;
    assert.ok(Number(compacted?.tokens_before) > 3400);
    // The next turn replays the same: the summary, the turn's input, what followed.
    server.reply(text("Again."));
    await runTurn(child, "Once more");
    assert.deepEqual(server.requests[3]?.body.messages.slice(1), [
      summaryMessage("Summary: listed the workspace."),
      { role: "user", content: "List the files" },
      { role: "assistant", content: "Listed." },
      { role: "user", content: "Once more" },
    ]);
  });

  test("a provider's too-long answer compacts once and retries the call", async () => {
    world = await turnWorld();
    const { child, server } = world;
    const { session } = await child.call("session.create", {});
    server.reply(text("Earlier answer."));
    await runTurn(child, "Earlier question");
    server.reply(contextTooLong(), text("Summary: an earlier exchange."), text("Retried fine."));
    const { result, events } = await runTurn(child, "Now this");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(server.requests.length, 4);
    assert.deepEqual(server.requests[2]?.body.messages.at(-1), {
      role: "user",
      content: SUMMARY_INSTRUCTION,
    });
    assert.deepEqual(server.requests[3]?.body.messages.slice(1), [
      summaryMessage("Summary: an earlier exchange."),
      { role: "user", content: "Now this" },
    ]);
    assert.equal(typesOf(events).filter((t) => t === "compacted").length, 1);
    const types = (await fullHistory(child, session.id)).map((r) => r.type);
    assert.equal(types.filter((t) => t === "compaction").length, 1);
  });

  test("a summary call answered too long is tried again without the older half", async () => {
    // No known window: the provider's answers are the only signal.
    world = await turnWorld();
    const { child, server } = world;
    await child.call("session.create", {});
    for (const n of [1, 2, 3, 4]) {
      server.reply(text(`Answer ${n}.`));
      await runTurn(child, `Question ${n}`);
    }
    server.reply(
      contextTooLong(),
      contextTooLong(),
      text("Summary: questions three and four."),
      text("Fits now."),
    );
    const { result, events } = await runTurn(child, "Question 5");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    const contents = (i: number) =>
      server.requests[i]?.body.messages.slice(1).map((m: Message) => m.content);
    assert.equal(contents(5).length, 10, "the first summary call: the whole conversation");
    assert.deepEqual(contents(6), [
      "Question 3",
      "Answer 3.",
      "Question 4",
      "Answer 4.",
      "Question 5",
      SUMMARY_INSTRUCTION,
    ]);
    assert.deepEqual(server.requests[7]?.body.messages.slice(1), [
      summaryMessage("Summary: questions three and four."),
      { role: "user", content: "Question 5" },
    ]);
    assert.equal(typesOf(events).filter((t) => t === "compacted").length, 1);
  });

  test("too long again after compacting: context_exceeded, no second compaction", async () => {
    world = await turnWorld();
    const { child, server } = world;
    await child.call("session.create", {});
    server.reply(contextTooLong(), text("Summary: nothing much."), contextTooLong());
    const { result, events } = await runTurn(child, "Hello");
    assert.equal(result.status, "failed");
    assert.equal(result.error?.code, "context_exceeded");
    assert.equal(server.requests.length, 3, "one summary call, one retry");
    assert.equal(typesOf(events).filter((t) => t === "compacted").length, 1);
    assert.doesNotMatch(result.error?.message ?? "", /128000|tokens\. However/);
  });

  test("an input bigger than the window cannot fit: context_exceeded, nothing summarised", async () => {
    world = await turnWorld({ models: SMALL });
    const { child, server, box } = world;
    const { session } = await child.call("session.create", {});
    server.reply(text("Short answer."));
    await runTurn(child, "Short question");
    const { result, events } = await runTurn(child, "z".repeat(WINDOW * 4 + 4));
    assert.equal(result.status, "failed");
    assert.equal(result.stop_reason, null);
    assert.equal(result.error?.code, "context_exceeded");
    assert.equal(server.requests.length, 1, "no summary call and no model call");
    assert.ok(!typesOf(events).includes("compacted"));
    const records = assertWholeRecords(box, session.id);
    assert.deepEqual(
      records.slice(-3).map((r) => [r.type, r.error_code]),
      [
        ["turn_start", undefined],
        ["user_message", undefined],
        ["turn_end", "context_exceeded"],
      ],
    );
    // The session goes on: the next turn compacts the oversized input away and answers.
    server.reply(text("Summary: a short exchange."), text("Fine."));
    assert.equal((await runTurn(child, "Shorter")).result.status, "completed");
  });
});
