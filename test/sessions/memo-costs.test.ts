import assert from "node:assert/strict";
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { HistoryMemo } from "../../src/sessions/history/admission-memo.js";
import { sessionUsage } from "../../src/sessions/manage/usage.js";
import { Slicer } from "../../src/sessions/slicer.js";

/**
 * The budget's check (src/server/handlers/budget.ts) takes a session's known cost from the
 * admission's own pass over the history (HistoryMemo.exact with costs), which parses only what
 * was appended since the last admission: before issue 44 it read and parsed the whole history
 * once more at every turn. The cost it reads is session.usage's, whether the memo resumed or
 * not, and a history changed under it is summed as it is now.
 */
const home = realpathSync(mkdtempSync(join(tmpdir(), "mc-memo-costs-")));
const sessions = join(home, "sessions");
const cwd = join(home, "workspace");
mkdirSync(sessions);
mkdirSync(cwd);
after(() => rmSync(home, { recursive: true, force: true }));

const ts = "2026-01-01T00:00:00.000Z";
const USAGE = { input_tokens: 10, output_tokens: 5, cached_input_tokens: 0, reasoning_tokens: 0 };
/** One turn's records: a user message and its end, costing `cost` (null: unknown). */
function turn(n: number, cost: number | null | undefined): string {
  const base = { ts, cwd, turn_id: `t-${n}` };
  return [
    { type: "user_message", ...base, text: `question ${n}` },
    {
      type: "turn_end",
      ...base,
      status: "completed",
      stop_reason: "end_turn",
      usage: USAGE,
      ...(cost === undefined ? {} : { cost_usd: cost }),
    },
  ]
    .map((record) => `${JSON.stringify(record)}\n`)
    .join("");
}
const path = (id: string) => join(sessions, `${id}.jsonl`);
const slicer = () => new Slicer(new AbortController().signal);
const usageCost = async (id: string) =>
  (await sessionUsage(home, cwd, id, slicer(), false)).cost_usd;
/** An admission: the pass before the lock (with costs), then the replay under it. */
async function admit(memo: HistoryMemo, id: string): Promise<number> {
  const cost = await memo.exact(home, cwd, id, slicer(), true);
  await memo.exactReplay(home, cwd, id, slicer());
  return cost;
}

describe("the known cost from the admission's pass", () => {
  it("is session.usage's sum, resumed past what the memo holds as turns are appended", async () => {
    const memo = new HistoryMemo();
    writeFileSync(path("grow"), turn(1, 0.25) + turn(2, null) + turn(3, undefined));
    assert.equal(await admit(memo, "grow"), 0.25);
    assert.equal(await usageCost("grow"), 0.25);
    for (let n = 4; n <= 12; n += 1) {
      appendFileSync(path("grow"), turn(n, 0.125));
      const held = memo.heldBytes;
      assert.ok(held > 0, "the memo holds the history read by the last admission");
      const cost = await admit(memo, "grow");
      assert.equal(cost, await usageCost("grow"));
      assert.equal(cost, 0.25 + (n - 3) * 0.125);
    }
    assert.equal(memo.heldBytes, readFileSync(path("grow")).length);
  });

  it("is read from the start when a cost already read changed in place", async () => {
    const memo = new HistoryMemo();
    writeFileSync(path("edited"), turn(1, 0.5) + turn(2, 0.5));
    assert.equal(await admit(memo, "edited"), 1);
    const text = readFileSync(path("edited"), "utf8");
    const fd = openSync(path("edited"), "r+");
    try {
      // Same length, still valid: 0.5 becomes 0.9 in the first turn's end.
      writeSync(fd, "0.9", text.indexOf("0.5"));
    } finally {
      closeSync(fd);
    }
    assert.equal(await admit(memo, "edited"), 1.4);
    assert.equal(await usageCost("edited"), 1.4);
  });

  it("is 0 without costs asked for, and for a history of no priced turn", async () => {
    const memo = new HistoryMemo();
    writeFileSync(path("free"), turn(1, null) + turn(2, 0.75));
    assert.equal(await memo.exact(home, cwd, "free", slicer()), 0);
    assert.equal(await memo.exact(home, cwd, "free", slicer(), true), 0.75);
    writeFileSync(path("unpriced"), turn(1, null));
    assert.equal(await admit(memo, "unpriced"), 0);
  });
});
