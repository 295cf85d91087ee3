import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ProtocolError } from "../../src/protocol/codes.js";
import { SessionWriter } from "../../src/sessions/writing/writer.js";
import { readReplay } from "../helpers/read-replay.js";

const home = realpathSync(mkdtempSync(join(tmpdir(), "mc-replay-")));
const sessions = join(home, "sessions");
mkdirSync(sessions);
after(() => rmSync(home, { recursive: true, force: true }));

const USAGE = { input_tokens: 1, output_tokens: 2, cached_input_tokens: 0, reasoning_tokens: 0 };
const base = { ts: "2026-01-01T00:00:00.000Z", cwd: "/w", turn_id: "t1" };

function write(id: string, records: (object | string)[], end = "\n"): void {
  const text = records.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n");
  writeFileSync(join(sessions, `${id}.jsonl`), text + end);
}

const types = (records: { type: string }[]) => records.map((r) => r.type);

describe("readReplay", () => {
  it("keeps turn records and other tools' messages; skips meta, title, mode, model, unknown", async () => {
    write("mixed", [
      { type: "session_meta", ts: "t", id: "mixed" },
      { type: "user_message", ts: "t", text: "from another tool" },
      { type: "assistant_message", ts: "t", text: "its reply", model: "x/y" },
      { type: "title", ts: "t", title: "T" },
      { type: "mode", ts: "t", mode: "plan" },
      { type: "model", ts: "t", model: "x/y" },
      { type: "some_future_type", ts: "t" },
      { type: "turn_start", ...base, model: "m/m", effort: "high", permissions: "ask" },
      { type: "user_message", ...base, text: "hello" },
      { type: "tool_call", ...base, item_id: "i1", call_id: "c1", tool: "read_file", input: {} },
      // A turn type that does not match its schema is not replayed.
      { type: "tool_result", ...base, item_id: "i1", status: "completed" },
      {
        type: "tool_result",
        ...base,
        item_id: "i1",
        call_id: "c1",
        status: "completed",
        output: "x",
      },
      {
        type: "assistant_message",
        ...base,
        text: "hi",
        model: "m/m",
        provider_state: { provider: "anthropic", blocks: [1] },
      },
      { type: "turn_end", ...base, status: "completed", stop_reason: "end_turn", usage: USAGE },
    ]);
    const records = (await readReplay(home, "mixed")).records;
    assert.deepEqual(types(records), [
      "user_message",
      "assistant_message",
      "turn_start",
      "user_message",
      "tool_call",
      "tool_result",
      "assistant_message",
      "turn_end",
    ]);
    const last = records[6] as { provider_state?: unknown };
    assert.deepEqual(last.provider_state, { provider: "anthropic", blocks: [1] });
  });

  it("keeps only the latest compaction and what follows it", async () => {
    const compaction = (summary: string) => ({
      type: "compaction",
      ...base,
      summary,
      tokens_before: 9,
    });
    write("compacted", [
      { type: "user_message", ...base, turn_id: "t0", text: "one" },
      compaction("first"),
      { type: "user_message", ...base, turn_id: "t0", text: "two" },
      compaction("second"),
      { type: "title", ts: "t", title: "skipped" },
      { type: "user_message", ...base, turn_id: "t2", text: "three" },
    ]);
    const records = (await readReplay(home, "compacted")).records;
    assert.deepEqual(types(records), ["compaction", "user_message"]);
    assert.equal((records[0] as { summary: string }).summary, "second");
    assert.equal((records[1] as { text: string }).text, "three");
  });

  it("a compaction keeps its own turn's input right after it (the engine kept it whole)", async () => {
    const turn = (id: string) => ({ ...base, turn_id: id });
    write("own-input", [
      { type: "user_message", ...turn("t1"), text: "earlier" },
      { type: "user_message", ...turn("t2"), text: "the input" },
      { type: "tool_call", ...turn("t2"), item_id: "i1", call_id: "c1", tool: "shell", input: {} },
      {
        type: "tool_result",
        ...turn("t2"),
        item_id: "i1",
        call_id: "c1",
        status: "completed",
        output: "x",
      },
      { type: "compaction", ...turn("t2"), summary: "s", tokens_before: 9 },
      { type: "assistant_message", ...turn("t2"), text: "done", model: "m/m" },
    ]);
    const records = (await readReplay(home, "own-input")).records;
    assert.deepEqual(types(records), ["compaction", "user_message", "assistant_message"]);
    assert.equal((records[1] as { text: string }).text, "the input");
    // A foreign message (no turn_id) or another turn's input is not carried over.
    write("other-input", [
      { type: "user_message", ts: "t", text: "foreign" },
      { type: "compaction", ...turn("t3"), summary: "s", tokens_before: 9 },
    ]);
    assert.deepEqual(types((await readReplay(home, "other-input")).records), ["compaction"]);
  });

  it("drops a torn tail; a bad line elsewhere, or a bad last line with its LF, is session_invalid", async () => {
    const good = { type: "user_message", ...base, text: "kept" };
    write("torn", [good, '{"type":"assistant_message","ts":"2026'], "");
    assert.deepEqual(types((await readReplay(home, "torn")).records), ["user_message"]);
    // A valid last record without its LF is a record.
    write("no-lf", [good, good], "");
    assert.equal((await readReplay(home, "no-lf")).records.length, 2);
    const invalid = async (id: string) =>
      assert.rejects(
        readReplay(home, id),
        (e: unknown) => e instanceof ProtocolError && e.code === "session_invalid",
      );
    write("bad-middle", [good, "{not json", good], "");
    await invalid("bad-middle");
    write("bad-last", [good, "{not json"], "\n");
    await invalid("bad-last");
    await assert.rejects(
      readReplay(home, "absent"),
      (e: unknown) => e instanceof ProtocolError && e.code === "session_missing",
    );
  });

  it("reads back what the writer wrote, torn tail and all", async () => {
    const cwd = realpathSync(home);
    const writer = await SessionWriter.acquire({ home, cwd, id: "round", create: true });
    await writer.append(
      { type: "turn_start", model: "m/m", effort: null, permissions: "read_only" },
      "t9",
    );
    await writer.append({ type: "user_message", text: "q" }, "t9", { sync: true });
    await writer.close();
    writeFileSync(join(sessions, "round.jsonl"), '{"type":"assistant_mes', { flag: "a" });
    const records = (await readReplay(home, "round")).records;
    assert.deepEqual(types(records), ["turn_start", "user_message"]);
    assert.equal(records[1]?.turn_id, "t9");
    assert.equal(records[1]?.cwd, cwd);
  });
});
