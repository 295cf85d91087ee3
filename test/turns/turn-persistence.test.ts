import assert from "node:assert/strict";
import {
  closeSync,
  ftruncateSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { text, toolCall } from "../fixtures/chat-completions-server.js";
import { sandbox, startReady } from "../helpers/child.js";
import { mountTmpfs, unmountTmpfs } from "../helpers/tmpfs.js";
import {
  assertListedAndReadable,
  assertWholeRecords,
  deadPid,
  exists,
  gated,
  historyPath,
  lockPath,
  lockText,
} from "./history-file.js";
import { runTurn, startTurn, TURN_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A world with one saved session (a first text turn done); returns the session's id. */
async function savedSession(current: TurnWorld): Promise<string> {
  const { session } = await current.child.call("session.create", {});
  current.server.reply(text("First answer."));
  const first = await runTurn(current.child, "First question");
  assert.equal(first.result.status, "completed");
  return session.id;
}

describe("turns: persistence", () => {
  test("the records of a turn: types in order, turn_id, cwd, ts; tool_result is what the model saw", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    writeFileSync(`${box.workspace}/notes.txt`, "alpha\nbeta\n");
    const { session } = await child.call("session.create", {});
    server.reply(
      toolCall("read_file", { path: "notes.txt" }, { text: "Reading." }),
      text("It says alpha and beta."),
    );
    const before = Date.now();
    const { result, events } = await runTurn(child, "What is in notes.txt?");
    assert.equal(result.status, "completed");
    const records = assertWholeRecords(box, session.id);
    assert.deepEqual(
      records.map((r) => r.type),
      [
        "session_meta",
        "turn_start",
        "user_message",
        "assistant_message",
        "tool_call",
        "tool_result",
        "assistant_message",
        "turn_end",
      ],
    );
    assert.equal(records[0]?.id, session.id);
    const cwd = realpathSync(box.workspace);
    let lastTs = before - 1000;
    for (const record of records) {
      assert.equal(record.cwd, cwd, `${record.type} carries the canonical workspace`);
      const ts = Date.parse(record.ts);
      assert.ok(!Number.isNaN(ts), `${record.type} has an ISO ts`);
      assert.ok(ts >= lastTs, "ts never goes back");
      lastTs = ts;
    }
    for (const record of records.slice(1))
      assert.equal(record.turn_id, result.turn_id, `${record.type} carries the turn's id`);
    const [, start, user, reading, callRecord, resultRecord, reply, end] = records;
    assert.deepEqual(
      [start?.model, start?.effort, start?.permissions],
      ["demo/demo-1", "medium", "ask"],
    );
    assert.equal(user?.text, "What is in notes.txt?");
    assert.deepEqual([reading?.text, reading?.model], ["Reading.", "demo/demo-1"]);
    assert.equal(reading?.interrupted, undefined);
    assert.equal(callRecord?.tool, "read_file");
    assert.deepEqual(callRecord?.input, { path: "notes.txt" });
    const callEvent = events.find((e) => e.event.type === "tool_call");
    assert.equal(
      callRecord?.item_id,
      callEvent?.event.item_id,
      "the record names the event's item",
    );
    assert.equal(resultRecord?.item_id, callRecord?.item_id);
    assert.equal(resultRecord?.call_id, callRecord?.call_id);
    assert.equal(resultRecord?.status, "completed");
    // The bounded output the model saw, byte for byte, under the call's id.
    const shown = server.requests[1]?.body.messages.find(
      (m: { role: string }) => m.role === "tool",
    );
    assert.equal(shown.tool_call_id, callRecord?.call_id);
    assert.equal(resultRecord?.output, shown.content);
    assert.match(String(resultRecord?.output), /alpha/);
    assert.equal(reply?.text, "It says alpha and beta.");
    assert.deepEqual(
      [end?.status, end?.stop_reason, end?.usage, end?.error_code],
      ["completed", "end_turn", result.usage, undefined],
    );
    // session.history serves exactly the records on disk.
    assert.deepEqual(await assertListedAndReadable(child, session.id), records);
  });

  test("the writer lock exists while a turn runs (held by the child) and is gone after", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    const id = await savedSession(world);
    assert.equal(exists(lockPath(box, id)), false, "no lock between turns");
    const { script, gate } = gated({ text: "A slow answer." });
    server.reply(script);
    const turn = startTurn(child, "Take your time");
    await gate.reached;
    const lock = JSON.parse(readFileSync(lockPath(box, id), "utf8"));
    assert.equal(lock.pid, child.pid, "the lock names the child's pid");
    assert.ok(Math.abs(Date.now() - Date.parse(lock.renewed_at)) < 60_000, "renewed recently");
    // While it is held the listing says busy.
    const list = await child.call("session.list", {});
    assert.equal(list.sessions.find((s) => s.id === id)?.busy, true);
    gate.open();
    const frame = await turn.response;
    assert.equal((frame.result as { status: string }).status, "completed");
    assert.equal(exists(lockPath(box, id)), false, "the lock is removed at the end");
  });

  test("session_locked: another live process holds the lock; nothing is written, nothing called", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    const id = await savedSession(world);
    const bytes = readFileSync(historyPath(box, id));
    // This test process is alive, and is not the child.
    const held = lockText(process.pid, new Date());
    writeFileSync(lockPath(box, id), held);
    const requests = server.requests.length;
    const turn = startTurn(child, "Anyone there?");
    const frame = await turn.response;
    assert.equal(frame.error?.code, "session_locked");
    assert.equal(turn.events().length, 0, "a refused turn sends no event");
    assert.equal(server.requests.length, requests, "the model was not called");
    assert.deepEqual(readFileSync(historyPath(box, id)), bytes, "the history is untouched");
    assert.equal(readFileSync(lockPath(box, id), "utf8"), held, "the holder's lock is untouched");
    // Once the holder lets go, the next turn runs.
    rmSync(lockPath(box, id));
    server.reply(text("Here."));
    assert.equal((await runTurn(child, "Now?")).result.status, "completed");
  });

  test("a dead writer's lock (its pid gone) is taken over, and so is a stale one", async () => {
    world = await turnWorld();
    const { child, server, box } = world;
    const id = await savedSession(world);
    writeFileSync(lockPath(box, id), lockText(await deadPid(), new Date()));
    server.reply(text("Taken over."));
    const dead = await runTurn(child, "After a crash");
    assert.equal(dead.result.status, "completed");
    assert.equal(exists(lockPath(box, id)), false, "the taken-over lock is released at the end");
    // A live pid whose renewal is older than 60 s: stale, taken over too.
    writeFileSync(lockPath(box, id), lockText(process.pid, new Date(Date.now() - 120_000)));
    server.reply(text("Stale, taken over."));
    const stale = await runTurn(child, "After a hang");
    assert.equal(stale.result.status, "completed");
    assert.equal(exists(lockPath(box, id)), false);
    const records = assertWholeRecords(box, id);
    assert.deepEqual(
      records.filter((r) => r.type === "turn_end").map((r) => r.status),
      ["completed", "completed", "completed"],
    );
  });
});

describe("turns: a failed append truncates back (history_write_failed)", () => {
  // After the failed append the turn's `turn_end` (failed, history_write_failed) is tried once:
  // it is kept when only the failed record's appends fail; when the fault is on `turn_end`
  // itself that try fails too, and the history ends without one (it reads as interrupted).
  for (const [fault, recordType, kept] of [
    ["enospc", "assistant_message", ["turn_start", "user_message", "turn_end"]],
    [
      "short",
      "tool_result",
      ["turn_start", "user_message", "assistant_message", "tool_call", "turn_end"],
    ],
    [
      "eio",
      "turn_end",
      [
        "turn_start",
        "user_message",
        "assistant_message",
        "tool_call",
        "tool_result",
        "assistant_message",
      ],
    ],
  ] as const) {
    test(`injected ${fault} on ${recordType}: the turn fails and the file keeps whole records`, async () => {
      world = await turnWorld();
      const { server, box } = world;
      writeFileSync(`${box.workspace}/notes.txt`, "alpha\n");
      const id = await savedSession(world);
      const before = assertWholeRecords(box, id);
      await world.child.close();
      world.child = await startReady(box, TURN_CAPS, {
        testMethods: true,
        env: {
          DEMO_KEY: "sk-test-secret-key",
          MC_AGENT_TEST_APPEND_FAULT: `${fault}:${recordType}`,
        },
      });
      await world.child.call("session.open", { id });
      server.reply(toolCall("read_file", { path: "notes.txt" }));
      if (recordType === "turn_end") server.reply(text("alpha it is."));
      const { result } = await runTurn(world.child, "Read notes.txt");
      assert.equal(result.status, "failed");
      assert.equal(result.stop_reason, null);
      assert.equal(result.error?.code, "history_write_failed");
      assert.doesNotMatch(result.error?.message ?? "", /\/|jsonl|notes/);
      const after = assertWholeRecords(box, id);
      assert.deepEqual(after.slice(0, before.length), before, "earlier records intact");
      assert.deepEqual(
        after.slice(before.length).map((r) => r.type),
        kept,
        "the history keeps the whole records before the failed append, then the turn's end",
      );
      const end = after.at(-1);
      if (recordType !== "turn_end")
        assert.deepEqual(
          [end?.status, end?.stop_reason, end?.error_code],
          ["failed", null, "history_write_failed"],
        );
      assert.equal(exists(lockPath(box, id)), false, "the lock is released");
      // Still valid: listed, opened and read by a new child, which goes on with the session.
      await world.child.close();
      world.child = await startReady(box, TURN_CAPS, {
        testMethods: true,
        env: { DEMO_KEY: "sk-test-secret-key" },
      });
      assert.deepEqual(await assertListedAndReadable(world.child, id), after);
      server.reply(text("Back on track."));
      assert.equal((await runTurn(world.child, "Again")).result.status, "completed");
    });
  }
});

describe("turns: a lazy handle whose history cannot be created", () => {
  test("enospc on session_meta: a failed result, the handle stays unsaved, no file left", async () => {
    world = await turnWorld({ env: { MC_AGENT_TEST_APPEND_FAULT: "enospc:session_meta" } });
    const { child, server, box } = world;
    const { session } = await child.call("session.create", {});
    server.reply(text("never asked"));
    const { result, events } = await runTurn(child, "Hello");
    assert.equal(result.status, "failed");
    assert.equal(result.error?.code, "history_write_failed");
    assert.equal(result.steps, 0);
    assert.deepEqual(
      events.map((e) => [e.event.type, e.event.created_session]),
      [["turn_started", false]],
    );
    assert.equal(server.requests.length, 0, "the model is never called");
    assert.equal(exists(historyPath(box, session.id)), false);
    assert.equal(exists(lockPath(box, session.id)), false);
    const status = await child.request("status", {});
    assert.deepEqual((status.result as { attachment: unknown }).attachment, {
      session_id: session.id,
      saved: false,
    });
  });
});

describe("turns: a full disk during an append", () => {
  test("a small tmpfs as MC_HOME fills up mid-turn: history_write_failed, whole records kept", async (t) => {
    const box = sandbox("mc-turn-full-");
    const refused = mountTmpfs(box.home, 512);
    if (refused) {
      box.cleanup();
      t.skip(refused);
      return;
    }
    try {
      world = await turnWorld({ box });
      const { server } = world;
      const id = await savedSession(world);
      const before = assertWholeRecords(box, id);
      leaveFree(join(box.home, "filler"), 3 * PAGE);
      // 64 KiB of reply: its record needs 16 pages where 3 are left (the lock takes one).
      const reply = "x".repeat(64 * 1024);
      server.reply(text(reply, { pieceChars: 8192 }));
      const { result, events } = await runTurn(world.child, "Write a long answer");
      assert.equal(result.error?.code, "history_write_failed");
      assert.equal(result.status, "failed");
      const done = events.find((e) => e.event.type === "message_done");
      assert.equal(done?.event.text, reply, "the reply was streamed before its record failed");
      const after = assertWholeRecords(box, id);
      assert.deepEqual(after.slice(0, before.length), before);
      assert.deepEqual(
        after.slice(before.length).map((r) => r.type),
        ["turn_start", "user_message", "turn_end"],
        "the partial reply record was truncated away; the small turn_end still fitted",
      );
      assert.equal(after.at(-1)?.error_code, "history_write_failed");
      assert.equal(exists(lockPath(box, id)), false, "the lock is released");
      assert.deepEqual(await assertListedAndReadable(world.child, id), after);
      // Room again: the session goes on.
      rmSync(join(box.home, "filler"));
      server.reply(text("Short."));
      assert.equal((await runTurn(world.child, "Shorter, please")).result.status, "completed");
    } finally {
      await world?.child.close();
      unmountTmpfs(box.home);
    }
  });
});

const PAGE = 4096;

/** Fills the file system holding `path` with it, then gives back `bytes` of room. */
function leaveFree(path: string, bytes: number): void {
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(PAGE, 1);
  let size = 0;
  try {
    for (;;) size += writeSync(fd, chunk);
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, "ENOSPC");
  }
  ftruncateSync(fd, Math.max(0, size - bytes));
  closeSync(fd);
}
