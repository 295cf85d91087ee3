import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { nextId } from "../../src/conformance/harness.js";
import { SPLIT_FROM_BYTES } from "../../src/sessions/history/split-scan.js";
import { text } from "../fixtures/chat-completions-server.js";
import { runTurn, type TurnWorld, turnWorld } from "./turn-harness.js";

/**
 * A history past SPLIT_FROM_BYTES is opened on two threads (split-scan.ts), through the child
 * as a frontend drives it: `session.open`, then `turn.start`. The model must be shown exactly
 * what a short history with the same last turns shows it (the replay from the latest compaction
 * on, its own turn's input kept), and `status` must be answered while the open reads.
 */
let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const TS = "2026-01-01T00:00:00.000Z";
const USAGE = { input_tokens: 1, output_tokens: 2, cached_input_tokens: 0, reasoning_tokens: 0 };

function turn(cwd: string, id: string, input: string, answer: string): object[] {
  const at = { ts: TS, cwd, turn_id: id };
  return [
    { type: "turn_start", ...at, model: "demo/demo-1", effort: null, permissions: "ask" },
    { type: "user_message", ...at, text: input },
    { type: "assistant_message", ...at, text: answer, model: "demo/demo-1" },
    { type: "turn_end", ...at, status: "completed", stop_reason: "end_turn", usage: USAGE },
  ];
}

/** `turns` filler turns of about 4 KB, then a compacting turn and one after it. */
function writeHistory(path: string, cwd: string, turns: number): void {
  const meta = { type: "session_meta", ts: TS, cwd, id: "x" };
  writeFileSync(path, `${JSON.stringify(meta)}\n`);
  const filler = "lorem ipsum dolor sit amet ".repeat(150);
  const lines = (records: object[]) => records.map((r) => `${JSON.stringify(r)}\n`).join("");
  for (let n = 0; n < turns; n += 1000) {
    const chunk: string[] = [];
    for (let k = n; k < Math.min(turns, n + 1000); k += 1)
      chunk.push(lines(turn(cwd, `t-${k}`, `question ${k}`, filler)));
    appendFileSync(path, chunk.join(""));
  }
  const at = { ts: TS, cwd, turn_id: "t-c" };
  const [start, input, answer, end] = turn(cwd, "t-c", "compact me", "compacted") as object[];
  const compaction = { type: "compaction", ...at, summary: "the story so far", tokens_before: 9 };
  appendFileSync(path, lines([start, input, compaction, answer, end] as object[]));
  appendFileSync(path, lines(turn(cwd, "t-d", "then this", "and that")));
}

describe("turns: a big history opened on two threads", () => {
  test("the first turn after the open replays what a short history's does", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    const folder = join(box.home, "sessions");
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const bigTurns = Math.ceil((SPLIT_FROM_BYTES * 1.25) / 4200);
    writeHistory(join(folder, "big.jsonl"), box.workspace, bigTurns);
    writeHistory(join(folder, "small.jsonl"), box.workspace, 3);
    const shown: unknown[] = [];
    for (const id of ["big", "small"]) {
      const open = nextId("open");
      const opened = child.waitFor((f) => f.id === open, 120_000);
      const order: string[] = [];
      void opened.then(() => order.push("open"));
      child.send({ id: open, method: "session.open", params: { id } });
      await child.call("status", {});
      order.push("status");
      const frame = await opened;
      assert.equal(frame.error, undefined, JSON.stringify(frame.error));
      if (id === "big") assert.deepEqual(order, ["status", "open"]);
      server.reply(text("Fine."));
      const { result } = await runTurn(child, "And now?");
      assert.equal(result.status, "completed");
      shown.push(server.requests.at(-1)?.body.messages.slice(1));
    }
    assert.deepEqual(shown[0], shown[1]);
    const messages = shown[0] as { content: string }[];
    assert.match(JSON.stringify(messages), /the story so far/);
    assert.doesNotMatch(JSON.stringify(messages), /question 1/);
    assert.equal(messages.at(-1)?.content, "And now?");
  });
});
