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
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ProtocolError } from "../../src/protocol/codes.js";
import { HistoryMemo, MAX_SEGMENTS } from "../../src/sessions/history/admission-memo.js";
import { Slicer } from "../../src/sessions/slicer.js";

const home = realpathSync(mkdtempSync(join(tmpdir(), "mc-history-memo-")));
const sessions = join(home, "sessions");
const cwd = join(home, "workspace");
mkdirSync(sessions);
mkdirSync(cwd);
after(() => rmSync(home, { recursive: true, force: true }));

const ts = "2026-01-01T00:00:00.000Z";
const user = (turn: string, text: string, where = cwd) => ({
  type: "user_message",
  ts,
  cwd: where,
  turn_id: turn,
  text,
});
const line = (record: object) => `${JSON.stringify(record)}\n`;
const path = (id: string) => join(sessions, `${id}.jsonl`);
const write = (id: string, records: object[]) =>
  writeFileSync(path(id), records.map(line).join(""));
const slicer = () => new Slicer(new AbortController().signal);

/** The largest replay a memo keeps (docs/store.md, "Turn admission": `MEMO_REPLAY_BYTES`). */
const MEMO_REPLAY_BYTES = 2 * 1_048_576;

/** The replay a memo that holds nothing reads: a full pass, the reference for every case. */
const fullRead = (id: string, where = cwd) =>
  new HistoryMemo().exactReplay(home, where, id, slicer());

/** Overwrites bytes in place: the file keeps its length (and its inode). */
function overwrite(id: string, at: number, text: string): void {
  const fd = openSync(path(id), "r+");
  try {
    writeSync(fd, text, at);
  } finally {
    closeSync(fd);
  }
}

const refusedWith = (code: string) => (e: unknown) => e instanceof ProtocolError && e.code === code;

/** Both of an admission's passes (before the lock, and the replay under it) refuse with `code`. */
async function bothPassesRefuse(memo: HistoryMemo, id: string, code: string): Promise<void> {
  await assert.rejects(memo.exact(home, cwd, id, slicer()), refusedWith(code));
  await assert.rejects(memo.exactReplay(home, cwd, id, slicer()), refusedWith(code));
}

describe("the history memo of a turn's admission", () => {
  it("holds what a replay pass read, and resumes past it for appended records", async () => {
    const memo = new HistoryMemo();
    write("grow", [user("t1", "first"), user("t2", "second")]);
    const first = await memo.exactReplay(home, cwd, "grow", slicer());
    assert.deepEqual(first, await fullRead("grow"));
    assert.equal(memo.heldBytes, readFileSync(path("grow")).length);
    appendFileSync(path("grow"), line(user("t3", "third")));
    const second = await memo.exactReplay(home, cwd, "grow", slicer());
    assert.deepEqual(second, await fullRead("grow"));
    assert.equal(second.records.length, 3);
    assert.equal(memo.heldBytes, readFileSync(path("grow")).length);
    // The first replay is what it was: the memo's copy grew, not the caller's.
    assert.equal(first.records.length, 2);
  });

  it("reads a prefix changed in place as it is now, valid or not", async () => {
    const memo = new HistoryMemo();
    write("edited", [user("t1", "aaaa"), user("t2", "bbbb")]);
    await memo.exactReplay(home, cwd, "edited", slicer());
    const text = readFileSync(path("edited"), "utf8");
    // Same length, same inode, still valid: the replay shows the new text.
    overwrite("edited", text.indexOf("aaaa"), "zzzz");
    const replay = await memo.exactReplay(home, cwd, "edited", slicer());
    assert.deepEqual(replay, await fullRead("edited"));
    assert.equal((replay.records[0] as { text: string }).text, "zzzz");
    // Same length, now not JSON: both passes refuse it, as a full read does.
    overwrite("edited", 0, "#");
    await bothPassesRefuse(memo, "edited", "session_invalid");
  });

  it("reads a history cut shorter, or replaced by another file, from the start", async () => {
    const memo = new HistoryMemo();
    write("cut", [user("t1", "one"), user("t2", "two"), user("t3", "three")]);
    await memo.exactReplay(home, cwd, "cut", slicer());
    write("cut", [user("t1", "one")]);
    assert.deepEqual(await memo.exactReplay(home, cwd, "cut", slicer()), await fullRead("cut"));
    // A new file (a rename over the old one) that starts with other bytes.
    const other = join(sessions, "other.tmp");
    writeFileSync(other, [user("t9", "elsewhere"), user("t1", "one")].map(line).join(""));
    rmSync(path("cut"));
    writeFileSync(path("cut"), readFileSync(other));
    rmSync(other);
    const replay = await memo.exactReplay(home, cwd, "cut", slicer());
    assert.deepEqual(replay, await fullRead("cut"));
    assert.equal((replay.records[0] as { text: string }).text, "elsewhere");
  });

  it("applies the cwd rule again to the cwds it read before (symlinks change)", async () => {
    const link = join(home, "link");
    symlinkSync(cwd, link);
    const memo = new HistoryMemo();
    write("linked", [user("t1", "via the link", link)]);
    await memo.exactReplay(home, cwd, "linked", slicer());
    assert.ok(memo.heldBytes > 0);
    rmSync(link);
    mkdirSync(link);
    await bothPassesRefuse(memo, "linked", "cwd_mismatch");
  });

  it("parses appended records with every rule: a bad line or a foreign cwd after the prefix", async () => {
    const memo = new HistoryMemo();
    write("tail", [user("t1", "fine")]);
    await memo.exactReplay(home, cwd, "tail", slicer());
    appendFileSync(path("tail"), line(user("t2", "there", "/elsewhere")));
    await assert.rejects(memo.exact(home, cwd, "tail", slicer()), refusedWith("cwd_mismatch"));
    write("tail", [user("t1", "fine")]);
    await memo.exactReplay(home, cwd, "tail", slicer());
    appendFileSync(path("tail"), "{not json\n");
    await assert.rejects(
      memo.exactReplay(home, cwd, "tail", slicer()),
      refusedWith("session_invalid"),
    );
  });

  it("keeps nothing of a history whose last record has no LF, and only its own history", async () => {
    const memo = new HistoryMemo();
    writeFileSync(path("open-end"), JSON.stringify(user("t1", "no line end")));
    await memo.exactReplay(home, cwd, "open-end", slicer());
    assert.equal(memo.heldBytes, 0);
    // A torn tail (an interrupted append) ends the history; nothing is kept either.
    write("torn", [user("t1", "whole")]);
    appendFileSync(path("torn"), '{"type":"user_mess');
    assert.equal((await memo.exactReplay(home, cwd, "torn", slicer())).records.length, 1);
    assert.equal(memo.heldBytes, 0);
    // The check before the lock neither keeps a memo nor drops one.
    write("kept", [user("t1", "kept")]);
    await memo.exact(home, cwd, "kept", slicer());
    assert.equal(memo.heldBytes, 0);
    await memo.exactReplay(home, cwd, "kept", slicer());
    const held = memo.heldBytes;
    await memo.exact(home, cwd, "kept", slicer());
    assert.equal(memo.heldBytes, held);
    // Another history, or another workspace, is read whole.
    write("another", [user("t1", "another")]);
    assert.deepEqual(
      await memo.exactReplay(home, cwd, "another", slicer()),
      await fullRead("another"),
    );
  });

  it(`keeps a replay of exactly ${MEMO_REPLAY_BYTES} bytes, not one of a byte more`, async () => {
    const record = (pad: number) => user("t1", "x".repeat(pad));
    const overhead = Buffer.byteLength(JSON.stringify(record(0)));
    const memo = new HistoryMemo();
    write("at-bound", [record(MEMO_REPLAY_BYTES - overhead)]);
    const replay = await memo.exactReplay(home, cwd, "at-bound", slicer());
    assert.equal(replay.records.length, 1);
    assert.equal(memo.heldBytes, MEMO_REPLAY_BYTES + 1, "the line and its LF");
    write("past-bound", [record(MEMO_REPLAY_BYTES - overhead + 1)]);
    assert.equal((await memo.exactReplay(home, cwd, "past-bound", slicer())).records.length, 1);
    assert.equal(memo.heldBytes, 0);
  });

  /** A history of `turns` equal-sized records read through `memo` as each was appended. */
  async function grow(memo: HistoryMemo, id: string, turns: number): Promise<number[]> {
    const text = (n: number) => `turn ${String(n).padStart(3, "0")}`;
    write(id, [user("t000", text(0))]);
    const segments = [];
    for (let n = 0; n < turns; n++) {
      if (n > 0) appendFileSync(path(id), line(user(`t${n}`, text(n))));
      await memo.exact(home, cwd, id, slicer());
      await memo.exactReplay(home, cwd, id, slicer());
      segments.push(memo.heldSegments);
    }
    return segments;
  }

  it(`fingerprints what it holds in at most ${MAX_SEGMENTS} segments, folding at the bound`, async () => {
    const memo = new HistoryMemo();
    const counts = await grow(memo, "segments", 40);
    assert.deepEqual(
      counts.slice(0, MAX_SEGMENTS),
      [...Array(MAX_SEGMENTS).keys()].map((n) => n + 1),
    );
    // One past the bound: the newer segments outweigh the first, so all fold into one; the next
    // time the first is the larger part and only the others fold.
    assert.equal(counts[MAX_SEGMENTS], 1);
    assert.equal(counts[2 * MAX_SEGMENTS], 2);
    assert.ok(Math.max(...counts) <= MAX_SEGMENTS);
    assert.deepEqual(
      await memo.exactReplay(home, cwd, "segments", slicer()),
      await fullRead("segments"),
    );
    assert.equal(memo.heldBytes, readFileSync(path("segments")).length);
  });

  it("reads a change in place in any segment as it is now, folded ones included", async () => {
    for (const turn of [0, 7, 16, 24, 38]) {
      const id = `changed-${turn}`;
      const memo = new HistoryMemo();
      // 39 records: folds at the 17th and the 33rd pass, six segments added since.
      await grow(memo, id, MAX_SEGMENTS * 2 + 7);
      const text = readFileSync(path(id), "utf8");
      const at = text.indexOf(`turn ${String(turn).padStart(3, "0")}`);
      overwrite(id, at, "TURN");
      const replay = await memo.exactReplay(home, cwd, id, slicer());
      assert.deepEqual(replay, await fullRead(id));
      assert.match((replay.records[turn] as { text: string }).text, /^TURN/);
      overwrite(id, at, "\n\n\n\n");
      await bothPassesRefuse(memo, id, "session_invalid");
    }
  });
});
