import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ProtocolError } from "../../src/protocol/codes.js";
import { HistoryMemo } from "../../src/sessions/history/admission-memo.js";
import { Slicer } from "../../src/sessions/slicer.js";
import { LOOP_OPENERS, OFF_THREAD_BYTES } from "../helpers/read-options.js";
import { readReplay } from "../helpers/read-replay.js";

const home = realpathSync(mkdtempSync(join(tmpdir(), "mc-exact-replay-")));
const sessions = join(home, "sessions");
const cwd = join(home, "workspace");
mkdirSync(sessions);
mkdirSync(cwd);
after(() => rmSync(home, { recursive: true, force: true }));

const at = (turn: string, where = cwd) => ({
  ts: "2026-01-01T00:00:00.000Z",
  cwd: where,
  turn_id: turn,
});
const user = (turn: string, text: string, where = cwd) => ({
  type: "user_message",
  ...at(turn, where),
  text,
});

function write(id: string, records: (object | string)[], end = "\n"): void {
  const text = records.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n");
  writeFileSync(join(sessions, `${id}.jsonl`), text + end);
}

const open = (id: string) =>
  new HistoryMemo().exactReplay(home, cwd, id, new Slicer(new AbortController().signal));
const refused = (id: string, code: string) =>
  assert.rejects(open(id), (e: unknown) => e instanceof ProtocolError && e.code === code);

describe("exact open and replay in one pass (a turn's admission, nothing remembered yet)", () => {
  it("replays what readReplay does, records the parse worker parsed included", async () => {
    const big = "x".repeat(OFF_THREAD_BYTES + 1);
    const call = {
      type: "tool_call",
      ...at("t1"),
      item_id: "i1",
      call_id: "c1",
      tool: "shell",
      input: {},
    };
    const manyOpeners = JSON.stringify(call).replace(
      '"input":{}',
      // More openings than the loop parses (LOOP_OPENERS), flat: to the worker, and back whole.
      `"input":[${Array(LOOP_OPENERS + 1)
        .fill("[]")
        .join(",")}]`,
    );
    write("same", [
      { type: "session_meta", ts: "t", cwd, id: "same" },
      { type: "turn_start", ...at("t1"), model: "m/m", effort: null, permissions: "ask" },
      user("t1", big),
      manyOpeners,
      {
        type: "tool_result",
        ...at("t1"),
        item_id: "i1",
        call_id: "c1",
        status: "completed",
        output: "ok",
      },
      { type: "title", ts: "t", cwd, title: "skipped" },
      { type: "assistant_message", ...at("t1"), text: "done", model: "m/m" },
    ]);
    const replay = await open("same");
    assert.deepEqual(replay, await readReplay(home, "same"));
    assert.deepEqual(
      replay.records.map((r) => r.type),
      ["turn_start", "user_message", "tool_call", "tool_result", "assistant_message"],
    );
    assert.equal((replay.records[1] as { text: string }).text, big);
    assert.equal((replay.records[2] as { input: unknown[] }).input.length, LOOP_OPENERS + 1);
    assert.equal(replay.truncated, false);
  });

  it("keeps the replay bound and its truncated flag", async () => {
    const newest = user("t2", "b".repeat(100));
    write("bounded", [user("t1", "a".repeat(100)), newest]);
    // Exactly the newest record's line: the older turn is left out.
    const bound = Buffer.byteLength(JSON.stringify(newest));
    const slicer = new Slicer(new AbortController().signal);
    const replay = await new HistoryMemo().exactReplay(home, cwd, "bounded", slicer, bound);
    assert.deepEqual(replay, await readReplay(home, "bounded", { maxBytes: bound }));
    assert.equal(replay.truncated, true);
    assert.deepEqual(replay.records, [newest]);
  });

  it("gives exact open's verdicts: a foreign cwd anywhere, a bad line, a missing history", async () => {
    write("foreign", [user("t1", "here"), user("t2", "there", "/elsewhere"), user("t3", "here")]);
    await refused("foreign", "cwd_mismatch");
    write("bad", [user("t1", "a"), "{not json", user("t2", "b")]);
    await refused("bad", "session_invalid");
    write("bad-last", [user("t1", "a"), "{not json"]);
    await refused("bad-last", "session_invalid");
    await refused("absent", "session_missing");
    // A torn tail ends the history: not a record, not invalid.
    write("torn", [user("t1", "kept"), '{"type":"assistant_message","ts":"2026'], "");
    assert.deepEqual(
      (await open("torn")).records.map((r) => r.type),
      ["user_message"],
    );
  });
});
