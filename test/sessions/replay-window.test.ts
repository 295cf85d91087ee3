import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { contextFromReplay, LEFT_OUT } from "../../src/agent/context.js";
import { readReplay } from "../helpers/read-replay.js";

const home = realpathSync(mkdtempSync(join(tmpdir(), "mc-replay-window-")));
const sessions = join(home, "sessions");
mkdirSync(sessions);
after(() => rmSync(home, { recursive: true, force: true }));

const USAGE = { input_tokens: 1, output_tokens: 2, cached_input_tokens: 0, reasoning_tokens: 0 };
type Rec = { type: string; [key: string]: unknown };
const at = (turn: string) => ({ ts: "2026-01-01T00:00:00.000Z", cwd: "/w", turn_id: turn });
const start = (t: string): Rec => ({
  type: "turn_start",
  ...at(t),
  model: "m/m",
  effort: null,
  permissions: "ask",
});
const user = (t: string, text: string): Rec => ({ type: "user_message", ...at(t), text });
const reply = (t: string, text: string): Rec => ({
  type: "assistant_message",
  ...at(t),
  text,
  model: "m/m",
});
const end = (t: string): Rec => ({
  type: "turn_end",
  ...at(t),
  status: "completed",
  stop_reason: "end_turn",
  usage: USAGE,
});
const call = (t: string, id: string): Rec => ({
  type: "tool_call",
  ...at(t),
  item_id: id,
  call_id: id,
  tool: "read_file",
  input: { path: "a" },
});
const result = (t: string, id: string, output: string): Rec => ({
  type: "tool_result",
  ...at(t),
  item_id: id,
  call_id: id,
  status: "completed",
  output,
});
/** A whole turn: start, input, one reply, end. */
const turn = (t: string, size = 100) => [
  start(t),
  user(t, `${t}?`),
  reply(t, "r".repeat(size)),
  end(t),
];

/** The bytes a record's line counts against the bound (ASCII: characters are bytes). */
const bytesOf = (records: Rec[]) => records.reduce((n, r) => n + JSON.stringify(r).length, 0);

let files = 0;
async function replay(records: Rec[], maxBytes: number) {
  files += 1;
  const id = `w${files}`;
  writeFileSync(
    join(sessions, `${id}.jsonl`),
    `${records.map((r) => JSON.stringify(r)).join("\n")}\n`,
  );
  return readReplay(home, id, { maxBytes });
}
const turnsOf = (records: { turn_id?: string }[]) => [...new Set(records.map((r) => r.turn_id))];

describe("replay window (the bound on what a replay keeps)", () => {
  it("at the bound keeps everything; one byte past it leaves out the oldest whole turn", async () => {
    const records = [...turn("t1"), ...turn("t2"), ...turn("t3")];
    const total = bytesOf(records);
    const whole = await replay(records, total);
    assert.equal(whole.truncated, false);
    assert.deepEqual(whole.records, records);
    const cut = await replay(records, total - 1);
    assert.equal(cut.truncated, true);
    assert.deepEqual(cut.records, records.slice(4), "t2 and t3 whole, from t2's turn_start");
    // Not a byte of t1 is kept even when the rest of its records would fit.
    const tight = await replay(records, bytesOf(records.slice(4)));
    assert.deepEqual(turnsOf(tight.records), ["t2", "t3"]);
  });

  it("another tool's user_message starts a turn; a turn's own input does not", async () => {
    const foreign: Rec = { type: "user_message", ts: "t", text: "from another tool" };
    const answer: Rec = { type: "assistant_message", ts: "t", text: "its reply" };
    const records = [...turn("t1"), foreign, answer, ...turn("t2")];
    const kept = await replay(records, bytesOf(records) - 1);
    assert.deepEqual(kept.records, records.slice(4), "from the foreign message on");
  });

  it("when the newest turn does not fit whole: its newest whole steps, calls with their results", async () => {
    const t = "t1";
    const records = [
      start(t),
      user(t, "do it"),
      reply(t, "step one"),
      call(t, "c1"),
      result(t, "c1", "x".repeat(300)),
      reply(t, "step two"),
      call(t, "c2"),
      result(t, "c2", "y".repeat(300)),
      reply(t, "done"),
      end(t),
    ];
    const kept = await replay(records, bytesOf(records.slice(5)));
    assert.equal(kept.truncated, true);
    assert.deepEqual(kept.records, records.slice(5), "from the second step's assistant_message");
    // The context still starts with a user message: the note that the rest is left out.
    const context = contextFromReplay(kept);
    assert.deepEqual(context[0], { kind: "user", text: LEFT_OUT });
    assert.deepEqual(
      context.slice(1).map((item) => item.kind),
      ["assistant", "tool_call", "tool_result", "assistant"],
    );
    // One byte less: only the last step (no call) fits.
    const less = await replay(records, bytesOf(records.slice(5)) - 1);
    assert.deepEqual(less.records, records.slice(8));
    // Not even the last step fits: nothing of the turn.
    const none = await replay(records, bytesOf(records.slice(8)) - 1);
    assert.deepEqual(none, { records: [], truncated: true });
  });

  it("a turn kept only in part is left out once a newer turn starts", async () => {
    const t = "t1";
    const big = [
      start(t),
      user(t, "q"),
      reply(t, "a".repeat(400)),
      call(t, "c1"),
      result(t, "c1", "x".repeat(400)),
      reply(t, "b"),
      end(t),
    ];
    const records = [...big, ...turn("t2")];
    // Room for t2 and the tail of t1, but not t1 whole.
    const kept = await replay(records, bytesOf(records.slice(5)));
    assert.equal(kept.truncated, true);
    assert.deepEqual(kept.records, records.slice(7), "t2 alone: windows start at a turn");
    assert.equal(contextFromReplay(kept)[0]?.kind, "user");
    assert.notEqual(contextFromReplay(kept)[0], LEFT_OUT);
  });

  it("a compaction and its own turn's input are kept or left out together", async () => {
    const compaction = {
      type: "compaction",
      ...at("t2"),
      summary: "s".repeat(200),
      tokens_before: 9,
    };
    const records = [
      ...turn("t1"),
      start("t2"),
      user("t2", "the input"),
      compaction,
      reply("t2", "after"),
      end("t2"),
      ...turn("t3"),
    ];
    const head = [compaction, user("t2", "the input"), reply("t2", "after"), end("t2")];
    const kept = [...head, ...turn("t3")];
    const whole = await replay(records, bytesOf(kept));
    assert.deepEqual(whole, { records: kept, truncated: false });
    const cut = await replay(records, bytesOf(kept) - 1);
    assert.deepEqual(cut, { records: turn("t3"), truncated: true });
    // The summary leads the context when kept: no note before it.
    assert.equal(contextFromReplay(whole)[0]?.kind, "summary");
  });
});
