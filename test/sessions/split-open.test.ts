import assert from "node:assert/strict";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import fc from "fast-check";
import { PACKAGE_ROOT } from "../../src/conformance/harness.js";
import { ProtocolError } from "../../src/protocol/codes.js";
import { HistoryMemo } from "../../src/sessions/history/admission-memo.js";
import type { SplitReply, SplitRequest } from "../../src/sessions/history/split-range.js";
import { Slicer } from "../../src/sessions/slicer.js";

/**
 * A big history's open on two threads (split-scan.ts) is held to the single pass it replaces:
 * over generated histories (valid and invalid records, foreign and many-spelled cwds, torn
 * tails, compactions valid or not, turn inputs, turns' costs whose float sum depends on its
 * order), with the split forced on at every boundary the share can pick, the open's verdict,
 * entry and signature, the replay and the known cost the memo then holds, and what the memo
 * does once a byte of either range is rewritten, are exactly the single pass's.
 */
const home = realpathSync(mkdtempSync(join(tmpdir(), "mc-split-open-")));
const sessions = join(home, "sessions");
const cwd = join(home, "workspace");
mkdirSync(sessions);
mkdirSync(cwd);
after(() => rmSync(home, { recursive: true, force: true }));

const path = (id: string) => join(sessions, `${id}.jsonl`);
const slicer = () => new Slicer(new AbortController().signal);
const SINGLE = { fromBytes: Number.POSITIVE_INFINITY, share: 0.5 };

const TS = "2026-01-01T00:00:00.000Z";
const USAGE = { input_tokens: 1, output_tokens: 2, cached_input_tokens: 0, reasoning_tokens: 0 };
const turnId = fc.constantFrom("t-1", "t-2", "t-3");
/** Spellings of the workspace (all match; many of them overflow the kept cwds), or a foreign one. */
const where = fc.oneof(
  { weight: 40, arbitrary: fc.constant(cwd) },
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 20 }).map((n) => cwd + "/.".repeat(n)) },
  { weight: 1, arbitrary: fc.constant("/elsewhere") },
  { weight: 3, arbitrary: fc.constant("") },
);
/** A few distinct times, so that the first and last `ts` of a summary tell records apart. */
const ts = fc.integer({ min: 0, max: 9 }).map((n) => `2026-01-01T00:00:0${n}.000Z`);
const at = fc.record({ ts, turn_id: turnId, cwd: where });

const record: fc.Arbitrary<object> = fc.oneof(
  at.map((a) => ({ type: "turn_start", ...a, model: "m/m", effort: null, permissions: "ask" })),
  fc
    .record({ a: at, text: fc.string({ maxLength: 12 }), steer: fc.boolean() })
    .map(({ a, text, steer }) => ({
      type: "user_message",
      ...a,
      text,
      ...(steer ? { steer: true } : {}),
    })),
  at.map((a) => ({ type: "user_message", ...a, text: 7 })), // fails its schema
  fc.constant({ type: "user_message", ts: TS, text: "another tool\nsecond line" }),
  at.map((a) => ({ type: "assistant_message", ...a, text: "step", model: "m/m" })),
  at.map((a) => ({
    type: "tool_result",
    ...a,
    item_id: "i",
    call_id: "c",
    status: "completed",
    output: "o".repeat(40),
  })),
  fc.record({ a: at, cost: fc.constantFrom(0.1, 0.2, 0.3, 1e-17, 0, 7) }).map(({ a, cost }) => ({
    type: "turn_end",
    ...a,
    status: "completed",
    stop_reason: "end_turn",
    usage: USAGE,
    cost_usd: cost,
  })),
  at.map((a) => ({ type: "compaction", ...a, summary: "so far", tokens_before: 10 })),
  at.map((a) => ({ type: "compaction", ...a, tokens_before: 3 })), // no summary: fails
  fc.constant({ type: "session_meta", ts: TS, cwd, id: "s" }),
);
/** Titles are rare: a summary's title hides its first user line. */
const title = fc.oneof(
  fc.string({ maxLength: 10 }).map((text) => ({ type: "title", ts: TS, title: text })),
  fc.constant({ type: "title", ts: TS, title: "T".repeat(40_000) }), // too long for a page
);
const line = fc.oneof(
  { weight: 80, arbitrary: record.map((r) => JSON.stringify(r)) },
  { weight: 2, arbitrary: title.map((r) => JSON.stringify(r)) },
  { weight: 1, arbitrary: fc.constantFrom("not json", '{"ts":"x"}', "[1]", "") },
);
/** A share of the file, in thousandths (fc.double favours the edges: 0 and subnormals). */
const share = fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000);
/** How the file ends: an LF, none (a last record without one), or a torn append. */
const ending = fc.constantFrom("\n", "", '\n{"type":"user_mess');

async function outcome(memo: HistoryMemo, id: string) {
  try {
    const { entry, signature } = await memo.open(home, cwd, id, slicer());
    return { entry, signature };
  } catch (error) {
    if (error instanceof ProtocolError) return { refused: error.code };
    throw error;
  }
}

async function replayOf(memo: HistoryMemo, id: string) {
  try {
    return await memo.exactReplay(home, cwd, id, slicer());
  } catch (error) {
    if (error instanceof ProtocolError) return { refused: error.code };
    throw error;
  }
}

/** Where the split falls (split-scan.ts): just past the first LF from `share` of the file on. */
function boundary(text: Buffer, share: number): number | null {
  const target = Math.floor(text.length * share);
  if (target < 1 || target >= text.length) return null;
  const lf = text.indexOf(0x0a, target - 1);
  return lf === -1 || lf + 1 >= text.length ? null : lf + 1;
}

function overwrite(id: string, position: number, byte: string): void {
  const fd = openSync(path(id), "r+");
  try {
    writeSync(fd, byte, position);
  } finally {
    closeSync(fd);
  }
}

let made = 0;

/**
 * Opens `text` with the single pass and with the split at `share`, and holds every result of
 * the two to each other; then rewrites the byte at `rewriteAt` of the file and holds the
 * replays read after it (the memo must not vouch for a byte it did not fingerprint).
 */
async function sameAsSingle(text: Buffer, share: number, rewriteAt: number): Promise<void> {
  const id = `s-${made++}`;
  writeFileSync(path(id), text);
  const single = new HistoryMemo(SINGLE);
  const split = new HistoryMemo({ fromBytes: 0, share });
  const expected = await outcome(single, id);
  assert.deepEqual(await outcome(split, id), expected);
  assert.equal(split.heldBytes, single.heldBytes);
  const cut = boundary(text, share);
  // The memo keeps the second range as a segment of its own, fingerprinted by the worker.
  if (single.heldBytes > 0) assert.equal(split.heldSegments, cut === null ? 1 : 2);
  // Resumed from what the open kept: the replay and costs the split pass collected.
  assert.deepEqual(await replayOf(split, id), await replayOf(single, id));
  assert.equal(
    await split.exact(home, cwd, id, slicer(), true).catch(() => -1),
    await single.exact(home, cwd, id, slicer(), true).catch(() => -1),
  );
  if (single.heldBytes > 0) assert.equal(split.heldSegments, cut === null ? 1 : 2);
  overwrite(id, Math.min(text.length - 1, Math.floor(rewriteAt * text.length)), "\u0001");
  assert.deepEqual(await replayOf(split, id), await replayOf(single, id));
  rmSync(path(id));
}

/** Every record boundary of a short history as the split (the share just past each line's start). */
async function atEveryShare(lines: object[]): Promise<void> {
  const text = Buffer.from(`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  for (
    let at = text.indexOf(0x0a);
    at !== -1 && at + 1 < text.length;
    at = text.indexOf(0x0a, at + 1)
  ) {
    const share = (at + 1) / text.length;
    await sameAsSingle(text, share, share);
  }
}

const rec = (type: string, turn: string, extra: object = {}) => ({
  type,
  ts: TS,
  cwd,
  turn_id: turn,
  ...extra,
});

describe("split open: two threads decide exactly what one pass does", () => {
  it("the same verdict, summary, signature, replay, costs and memo, wherever the split falls", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 40, size: "medium" }),
        ending,
        share,
        share,
        (lines, end, share, rewriteAt) =>
          sameAsSingle(Buffer.from(lines.join("\n") + end), share, rewriteAt),
      ),
      { numRuns: 100 },
    );
  });

  it("a steer is not the input a compaction keeps, whichever range either is in", async () => {
    await atEveryShare([
      rec("user_message", "t-1", { text: "the input" }),
      rec("turn_start", "t-2", { model: "m/m", effort: null, permissions: "ask" }),
      rec("user_message", "t-2", { text: "the next input" }),
      rec("user_message", "t-1", { text: "a steer", steer: true }),
      rec("assistant_message", "t-2", { text: "step", model: "m/m" }),
      rec("compaction", "t-1", { summary: "so far", tokens_before: 10 }),
      rec("assistant_message", "t-1", { text: "after", model: "m/m" }),
    ]);
  });

  it("a compaction's input behind more failing user messages than the worker keeps", async () => {
    const failing = Array.from({ length: 20 }, () => rec("user_message", "t-1", { text: 7 }));
    const before = Array.from({ length: 6 }, () =>
      rec("assistant_message", "t-2", { text: "step", model: "m/m" }),
    );
    await atEveryShare([
      ...before,
      rec("user_message", "t-2", { text: "an older input" }),
      rec("user_message", "t-1", { text: "the input" }),
      ...failing,
      rec("compaction", "t-1", { summary: "so far", tokens_before: 10 }),
    ]);
  });

  it("a valid compaction behind more failing ones than the worker keeps", async () => {
    const failing = Array.from({ length: 40 }, () =>
      rec("compaction", "t-1", { tokens_before: 3 }),
    );
    await atEveryShare([
      rec("user_message", "t-1", { text: "the input" }),
      rec("assistant_message", "t-1", { text: "before", model: "m/m" }),
      rec("compaction", "t-1", { summary: "so far", tokens_before: 10 }),
      ...failing,
      rec("assistant_message", "t-1", { text: "after", model: "m/m" }),
    ]);
  });

  it("the turns' costs are summed in file order across the ranges", async () => {
    const end = (cost: number) =>
      rec("turn_end", "t-1", {
        status: "completed",
        stop_reason: "end_turn",
        usage: USAGE,
        cost_usd: cost,
      });
    await atEveryShare([end(0.1), end(0.2), end(0.3), end(0.1), end(0.7), end(0.3)]);
  });

  it("more cwds than a memo keeps, all in one range, still keep no point", async () => {
    const spellings = Array.from({ length: 20 }, (_, n) =>
      rec("title", "t-1", { cwd: cwd + "/.".repeat(n + 1), title: "x" }),
    );
    await atEveryShare([...spellings.slice(0, 3), ...spellings.slice(0, 3), ...spellings]);
  });

  it("a refusal in the first range wins over the second's", async () => {
    const id = "first-wins";
    const ok = JSON.stringify({ type: "title", ts: TS, title: "x" });
    const foreign = JSON.stringify({ type: "title", ts: TS, cwd: "/elsewhere", title: "x" });
    writeFileSync(path(id), [ok, foreign, ok, ok, "not json", ok].join("\n"));
    for (const share of [0.1, 0.5, 0.9]) {
      const split = new HistoryMemo({ fromBytes: 0, share });
      assert.deepEqual(await outcome(split, id), { refused: "cwd_mismatch" });
    }
    writeFileSync(path(id), [ok, "not json", ok, ok, foreign, ok].join("\n"));
    for (const share of [0.1, 0.5, 0.9]) {
      const split = new HistoryMemo({ fromBytes: 0, share });
      assert.deepEqual(await outcome(split, id), { refused: "session_invalid" });
    }
  });

  it("the loop's wait for the worker is handed over, once, and changes nothing decided", async () => {
    const id = "waited";
    const turns = Array.from({ length: 20_000 }, (_, n) =>
      JSON.stringify(rec("assistant_message", `t-${n}`, { text: "x".repeat(200), model: "m/m" })),
    );
    writeFileSync(path(id), `${turns.join("\n")}\n`);
    const expected = await outcome(new HistoryMemo(SINGLE), id);
    // The loop's range is the first record: it is read long before the worker has even started.
    const split = new HistoryMemo({ fromBytes: 0, share: 0.001 });
    let waits = 0;
    const opened = await split.open(home, cwd, id, slicer(), () => {
      waits += 1;
    });
    assert.deepEqual({ entry: opened.entry, signature: opened.signature }, expected);
    assert.equal(waits, 1);
    // Not split: no wait, nothing handed over.
    await new HistoryMemo(SINGLE).open(home, cwd, id, slicer(), () => {
      waits += 1;
    });
    assert.equal(waits, 1);
    rmSync(path(id));
  });

  it("the open's worker fingerprints its range for the first admission's two passes, then ends", async () => {
    const lines = Array.from({ length: 400 }, (_, n) =>
      JSON.stringify(
        n % 50 === 49
          ? rec("compaction", "t-1", { summary: `so far ${n}`, tokens_before: 10 })
          : rec("assistant_message", `t-${n}`, { text: "x".repeat(200), model: "m/m" }),
      ),
    );
    const text = Buffer.from(`${lines.join("\n")}\n`);
    const cut = boundary(text, 0.5) as number;
    // Unchanged, and with a byte of the worker's range (then of the loop's) rewritten after the open.
    for (const rewrite of [null, cut + 10, cut - 10]) {
      const id = `helped-${rewrite}`;
      writeFileSync(path(id), text);
      const single = new HistoryMemo(SINGLE);
      const split = new HistoryMemo({ fromBytes: 0, share: 0.5 });
      assert.deepEqual(await outcome(split, id), await outcome(single, id));
      const ended = split.helperEnded;
      assert.ok(ended, "the worker is kept once the open keeps a point");
      if (rewrite !== null) overwrite(id, rewrite, "\u0001");
      assert.equal(
        await split.exact(home, cwd, id, slicer(), true).catch(() => -1),
        await single.exact(home, cwd, id, slicer(), true).catch(() => -1),
      );
      assert.deepEqual(await replayOf(split, id), await replayOf(single, id));
      // Two passes asked it: its thread has ended (else this waits for the test's timeout).
      await ended;
      assert.deepEqual(await replayOf(split, id), await replayOf(single, id));
      rmSync(path(id));
    }
    // An open that keeps no point (its last record has no LF) keeps no worker either.
    writeFileSync(path("unkept"), text.subarray(0, text.length - 1));
    const split = new HistoryMemo({ fromBytes: 0, share: 0.5 });
    await outcome(split, "unkept");
    assert.equal(split.heldBytes, 0);
    assert.equal(split.helperEnded, null);
    rmSync(path("unkept"));
  });

  it("the child's CommonJS worker (dist/child/split-worker.cjs) answers as the module does", async () => {
    const id = "cjs";
    const lines = Array.from({ length: 60 }, (_, n) =>
      JSON.stringify(
        n % 7 === 3
          ? rec("compaction", "t-1", { summary: `so far ${n}`, tokens_before: 10 })
          : rec("user_message", `t-${n}`, { text: `input ${n}` }),
      ),
    );
    writeFileSync(path(id), `${lines.join("\n")}\n{"type":"user_mess`);
    const fd = openSync(path(id), "r");
    try {
      const from = Buffer.from(`${lines.slice(0, 25).join("\n")}\n`).length;
      const request: SplitRequest = { fd, from, canonicalCwd: cwd, fingerprint: null };
      const reply = (file: string) =>
        new Promise<SplitReply>((resolve, reject) => {
          const worker = new Worker(file, { workerData: request });
          worker.once("message", (value: SplitReply) => {
            resolve(value);
            void worker.terminate();
          });
          worker.once("error", reject);
        });
      const module = await reply(join(PACKAGE_ROOT, "dist/src/sessions/history/split-worker.js"));
      assert.equal(module.verdict, "eligible");
      assert.ok(module.compactions.length > 0);
      assert.deepEqual(await reply(join(PACKAGE_ROOT, "dist/child/split-worker.cjs")), module);
    } finally {
      closeSync(fd);
      rmSync(path(id));
    }
  });

  it("a cancelled open ends its worker and keeps nothing", async () => {
    const id = "cancelled";
    const turns = Array.from({ length: 20_000 }, (_, n) =>
      JSON.stringify(rec("assistant_message", `t-${n}`, { text: "x".repeat(200), model: "m/m" })),
    );
    writeFileSync(path(id), `${turns.join("\n")}\n`);
    const threads = () => readdirSync("/proc/self/task").length;
    const before = threads();
    const memo = new HistoryMemo({ fromBytes: 0, share: 0.5 });
    const abort = new AbortController();
    const opening = memo.open(home, cwd, id, new Slicer(abort.signal));
    setImmediate(() => abort.abort());
    await assert.rejects(
      opening,
      (e) => e instanceof ProtocolError && e.code === "operation_cancelled",
    );
    assert.equal(memo.heldBytes, 0);
    // The open answers once its worker has been terminated: no thread of it is left.
    assert.equal(threads(), before);
  });
});
