import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import { afterEach, describe, test } from "node:test";
import { SUMMARY_INSTRUCTION } from "../../src/agent/compaction.js";
import { SUMMARY_PREFIX } from "../../src/agent/providers/chat-messages.js";
import { REPLAY_BYTES } from "../../src/sessions/history/replay.js";
import { contextTooLong, text } from "../fixtures/chat-completions-server.js";
import { assertWholeRecords, historyPath } from "./history-file.js";
import { runTurn, type TurnWorld, turnWorld, typesOf } from "./turn-harness.js";

/**
 * A session whose records since its last compaction pass the replay bound (16 MiB, replay.ts)
 * on a model without a known context window: the turn is admitted, replays the newest whole
 * turns that fit, and compacts them before its first model call (turns.md section 10).
 */

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const REPLY_CHARS = 6_400_000;
const USAGE = { input_tokens: 1, output_tokens: 2, cached_input_tokens: 0, reasoning_tokens: 0 };
type Message = { role: string; content: string | null };

/** A request's messages after its system prompt. */
function messagesOf(server: TurnWorld["server"], index: number): Message[] {
  const request = server.requests[index];
  assert.ok(request, `request ${index} was made`);
  return (request.body.messages as Message[]).slice(1);
}

/**
 * A session with one real turn, then three turns written as the engine writes them, each with a
 * 6.4 MB reply (19.2 MB in all, past the bound), on the store under the running child.
 */
async function longSession(): Promise<{ world: TurnWorld; id: string; cwd: string }> {
  world = await turnWorld();
  const { child, server, box } = world;
  const { session } = await child.call("session.create", {});
  server.reply(text("First answer."));
  await runTurn(child, "The first question");
  const cwd = assertWholeRecords(box, session.id)[1]?.cwd as string;
  const lines: string[] = [];
  for (const n of [1, 2, 3]) {
    const at = { ts: "2026-01-01T00:00:00.000Z", cwd, turn_id: `t-long-${n}` };
    lines.push(
      JSON.stringify({
        type: "turn_start",
        ...at,
        model: "demo/demo-1",
        effort: "medium",
        permissions: "ask",
      }),
      JSON.stringify({ type: "user_message", ...at, text: `Long question ${n}` }),
      JSON.stringify({
        type: "assistant_message",
        ...at,
        text: String(n).repeat(REPLY_CHARS),
        model: "demo/demo-1",
      }),
      JSON.stringify({
        type: "turn_end",
        ...at,
        status: "completed",
        stop_reason: "end_turn",
        usage: USAGE,
      }),
    );
    appendFileSync(historyPath(box, session.id), `${lines.splice(0).join("\n")}\n`);
  }
  return { world, id: session.id, cwd };
}

describe("turns: a history past the replay bound", () => {
  test("is admitted, compacts its newest whole turns first, and later turns start from the summary", async () => {
    const { world: w, id } = await longSession();
    const { child, server, box } = w;
    server.reply(text("Summary: three long answers."), text("Done."));
    const { result, events } = await runTurn(child, "Go on");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(result.steps, 1);
    // The first request is the summary call, over the newest whole turns that fit the bound:
    // long turns 2 and 3 (12.8 MB); the first real turn and long turn 1 are left out.
    assert.equal(server.requests.length, 3);
    const summaryCall = server.requests[1]?.body;
    assert.equal(summaryCall.tools, undefined, "the summary call offers no tools");
    const source = (summaryCall.messages as Message[]).slice(1);
    assert.deepEqual(
      source.map((m) => [m.role, m.content?.length === REPLY_CHARS ? m.content[0] : m.content]),
      [
        ["user", "Long question 2"],
        ["assistant", "2"],
        ["user", "Long question 3"],
        ["assistant", "3"],
        ["user", "Go on"],
        ["user", SUMMARY_INSTRUCTION],
      ],
    );
    // The turn's call starts from the summary and its input.
    assert.deepEqual(messagesOf(server, 2), [
      { role: "user", content: `${SUMMARY_PREFIX}\n\nSummary: three long answers.` },
      { role: "user", content: "Go on" },
    ]);
    const types = typesOf(events);
    assert.equal(types.filter((t) => t === "compacted").length, 1);
    assert.ok(types.indexOf("compacted") < types.indexOf("message_delta"));
    const records = assertWholeRecords(box, id);
    assert.deepEqual(
      records.slice(-5).map((r) => r.type),
      ["turn_start", "user_message", "compaction", "assistant_message", "turn_end"],
    );
    assert.equal(records.at(-3)?.summary, "Summary: three long answers.");
    assert.equal(records.at(-3)?.turn_id, result.turn_id);
    // The next turn replays from the summary: small again, no compaction.
    server.reply(text("Next."));
    const next = await runTurn(child, "And then?");
    assert.equal(next.result.status, "completed", JSON.stringify(next.result.error));
    assert.ok(!typesOf(next.events).includes("compacted"));
    assert.deepEqual(messagesOf(server, 3), [
      { role: "user", content: `${SUMMARY_PREFIX}\n\nSummary: three long answers.` },
      { role: "user", content: "Go on" },
      { role: "assistant", content: "Done." },
      { role: "user", content: "And then?" },
    ]);
    assert.ok(REPLY_CHARS * 3 > REPLAY_BYTES && REPLY_CHARS * 2 < REPLAY_BYTES);
  });

  test("a summary call answered too long is tried again over the newer half", async () => {
    const { world: w } = await longSession();
    const { child, server } = w;
    server.reply(contextTooLong(), text("Summary: the last long answer."), text("Done."));
    const { result, events } = await runTurn(child, "Go on");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(server.requests.length, 4);
    const retried = messagesOf(server, 2);
    assert.deepEqual(
      retried.map((m) => (m.content?.length === REPLY_CHARS ? m.content[0] : m.content)),
      ["Long question 3", "3", "Go on", SUMMARY_INSTRUCTION],
    );
    assert.deepEqual(messagesOf(server, 3), [
      { role: "user", content: `${SUMMARY_PREFIX}\n\nSummary: the last long answer.` },
      { role: "user", content: "Go on" },
    ]);
    assert.equal(typesOf(events).filter((t) => t === "compacted").length, 1);
  });

  test("every summary call answered too long: the turn fails context_exceeded, and the next is admitted", async () => {
    const { world: w, id } = await longSession();
    const { child, server, box } = w;
    server.reply(contextTooLong(), contextTooLong(), contextTooLong());
    const { result } = await runTurn(child, "Go on");
    assert.equal(result.status, "failed");
    assert.equal(result.error?.code, "context_exceeded");
    assert.equal(assertWholeRecords(box, id).at(-1)?.error_code, "context_exceeded");
    server.reply(text("Summary: long answers."), text("Fine now."));
    const again = await runTurn(child, "Try again");
    assert.equal(again.result.status, "completed", JSON.stringify(again.result.error));
  });
});
