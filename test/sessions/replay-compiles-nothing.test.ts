import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionEvent } from "../../src/protocol/schemas/sessions.js";
import { ReplayCollector } from "../../src/sessions/history/replay.js";
import { functionsMade } from "../helpers/functions-made.js";

/**
 * The replay's record checks (src/sessions/history/replay.ts) run without zod's compiled fast
 * path: a child's first open of a history compiled one function per record schema for a few
 * thousand checks (issue 44, "Opening a big history"). zod compiles with the global `Function`
 * (its `new Function(...)`), so this file, its own process, counts the functions made while a
 * replay of every kind of turn record is collected (not zod's probe of whether it may compile at
 * all, an empty `new Function("")` made once when its first object schema is built), and checks
 * the records were checked all the same: a record that does not match its schema is left out.
 */
const base = { ts: "2026-01-01T00:00:00.000Z", cwd: "/w", turn_id: "t1" };
const USAGE = { input_tokens: 1, output_tokens: 2, cached_input_tokens: 0, reasoning_tokens: 0 };
const records: SessionEvent[] = [
  { type: "turn_start", ...base, model: "m/m", effort: null, permissions: "ask" },
  { type: "user_message", ...base, text: "hello" },
  { type: "assistant_message", ...base, text: "hi", model: "m/m" },
  { type: "tool_call", ...base, item_id: "i1", call_id: "c1", tool: "read_file", input: {} },
  // No call_id: does not match its schema, so it is not replayed.
  { type: "tool_result", ...base, item_id: "i1", status: "completed", output: "x" },
  {
    type: "tool_result",
    ...base,
    item_id: "i1",
    call_id: "c1",
    status: "completed",
    output: "x",
  },
  { type: "turn_end", ...base, status: "completed", stop_reason: "end_turn", usage: USAGE },
  { type: "compaction", ...base, summary: "so far", tokens_before: 10 },
  { type: "user_message", ...base, turn_id: "t2", text: "again" },
  // After the latest compaction, so in the window if it matched its schema: no call_id.
  { type: "tool_result", ...base, turn_id: "t2", item_id: "i2", status: "completed", output: "" },
  { type: "plan", ...base, turn_id: "t2", explanation: null, plan: [] },
  { type: "user_message", ts: "t", text: "from another tool" },
] as SessionEvent[];

test("collecting a replay compiles no function, and checks every record all the same", () => {
  let kept: string[] = [];
  const made = functionsMade(() => {
    const collector = new ReplayCollector();
    const line = (record: SessionEvent) => JSON.stringify(record).length + 1;
    // Twice over: the second compaction starts the window afresh.
    for (const record of [...records, ...records]) collector.add(record, line(record));
    kept = collector.result().records.map((record) => record.type);
  });
  assert.equal(made, 0, "zod compiled a fast path for the replay's checks");
  // The summary, its own turn's input, then what followed it but the record that did not match.
  assert.deepEqual(kept, ["compaction", "user_message", "user_message", "plan", "user_message"]);
});
