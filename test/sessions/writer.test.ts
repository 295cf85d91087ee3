import assert from "node:assert/strict";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ProtocolError } from "../../src/protocol/codes.js";
import { faultyPositionalWrite, parseAppendFault } from "../../src/server/test-faults.js";
import { testSeamFor } from "../../src/server/test-seam.js";
import { RECORD_BYTES } from "../../src/sessions/records/facts.js";
import { TurnRecord, type TurnRecordBody } from "../../src/sessions/records/turn-records.js";
import {
  HistoryWriteFailed,
  InvalidTurnRecord,
  RecordTooLarge,
} from "../../src/sessions/writing/history-write-errors.js";
import { SessionWriter } from "../../src/sessions/writing/writer.js";
import { mountTmpfs, unmountTmpfs } from "../helpers/tmpfs.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "mc-writer-")));
after(() => rmSync(base, { recursive: true, force: true }));
let counter = 0;

function freshHome(): { home: string; cwd: string; sessions: string } {
  counter += 1;
  const home = join(base, `h${counter}`);
  const cwd = join(base, `w${counter}`);
  mkdirSync(cwd, { recursive: true });
  return { home, cwd, sessions: join(home, "sessions") };
}

const USAGE = { input_tokens: 1, output_tokens: 2, cached_input_tokens: 0, reasoning_tokens: 0 };
const user = (text: string): TurnRecordBody => ({ type: "user_message", text });

function lines(path: string): Record<string, unknown>[] {
  const text = readFileSync(path, "utf8");
  assert.ok(text.endsWith("\n"), "the history ends with a whole record");
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line));
}

async function failsToWrite(promise: Promise<unknown>, reason?: string): Promise<void> {
  await assert.rejects(
    promise,
    (error: unknown) =>
      error instanceof HistoryWriteFailed && (reason === undefined || error.reason === reason),
  );
}

async function protocolCode(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(
    promise,
    (error: unknown) => error instanceof ProtocolError && error.code === code,
  );
}

describe("SessionWriter", () => {
  it("creates a history exclusively (0600, folders 0700) with session_meta, under the lock", async () => {
    const { home, cwd, sessions } = freshHome();
    const writer = await SessionWriter.acquire({ home, cwd, id: "s1", create: true });
    const path = join(sessions, "s1.jsonl");
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(sessions).mode & 0o777, 0o700);
    assert.equal(statSync(home).mode & 0o777, 0o700);
    assert.ok(existsSync(join(sessions, "s1.lock")));
    const [meta] = lines(path);
    assert.deepEqual(Object.keys(meta ?? {}), ["type", "ts", "cwd", "id"]);
    assert.equal(meta?.type, "session_meta");
    assert.equal(meta?.id, "s1");
    assert.equal(meta?.cwd, cwd);
    await writer.close();
    assert.equal(existsSync(join(sessions, "s1.lock")), false);
    // It exists now: a second create is refused and leaves it alone.
    await protocolCode(
      SessionWriter.acquire({ home, cwd, id: "s1", create: true }),
      "session_invalid",
    );
    assert.equal(lines(path).length, 1);
  });

  it("appends one line per record with ts, cwd and turn_id; records match their schemas", async () => {
    const { home, cwd, sessions } = freshHome();
    const writer = await SessionWriter.acquire({ home, cwd, id: "s1", create: true });
    const bodies: TurnRecordBody[] = [
      { type: "turn_start", model: "demo/demo-1", effort: null, permissions: "ask" },
      user("two\nlines and \u2028 a separator"),
      { type: "tool_call", item_id: "i1", call_id: "c1", tool: "shell", input: { command: "ls" } },
      {
        type: "tool_result",
        item_id: "i1",
        call_id: "c1",
        status: "completed",
        output: "a\nb",
        exit_code: 0,
      },
      { type: "assistant_message", text: "done", model: "demo/demo-1", interrupted: true },
      { type: "turn_end", status: "completed", stop_reason: "end_turn", usage: USAGE },
    ];
    for (const [i, body] of bodies.entries())
      await writer.append(body, "t-01", { sync: i === 1 || i === bodies.length - 1 });
    await writer.close();
    const records = lines(join(sessions, "s1.jsonl"));
    assert.equal(records.length, 1 + bodies.length);
    for (const [i, record] of records.slice(1).entries()) {
      assert.equal(TurnRecord().safeParse(record).success, true, JSON.stringify(record));
      assert.deepEqual(Object.keys(record).slice(0, 4), ["type", "ts", "cwd", "turn_id"]);
      assert.equal(record.turn_id, "t-01");
      assert.equal(record.cwd, cwd);
      assert.match(String(record.ts), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const { ts: _t, cwd: _c, turn_id: _i, ...rest } = record;
      assert.deepEqual(rest, bodies[i]);
    }
  });

  it("writes a record of exactly 8 MiB and refuses one byte more, touching nothing", async () => {
    const { home, cwd, sessions } = freshHome();
    const writer = await SessionWriter.acquire({ home, cwd, id: "s1", create: true });
    const overhead = JSON.stringify({
      type: "user_message",
      ts: new Date().toISOString(),
      cwd,
      turn_id: "t1",
      text: "",
    }).length;
    const path = join(sessions, "s1.jsonl");
    const before = readFileSync(path);
    await assert.rejects(
      writer.append(user("a".repeat(RECORD_BYTES - overhead + 1)), "t1"),
      (error: unknown) => error instanceof RecordTooLarge && error.bytes === RECORD_BYTES + 1,
    );
    assert.deepEqual(readFileSync(path), before);
    await writer.append(user("a".repeat(RECORD_BYTES - overhead)), "t1");
    const size = statSync(path).size;
    assert.equal(size, before.length + RECORD_BYTES + 1);
    await writer.close();
  });

  it("refuses a record that does not match its schema before writing", async () => {
    const { home, cwd, sessions } = freshHome();
    const writer = await SessionWriter.acquire({ home, cwd, id: "s1", create: true });
    const bad = {
      type: "tool_result",
      item_id: "i1",
      status: "exploded",
    } as unknown as TurnRecordBody;
    await assert.rejects(writer.append(bad, "t1"), InvalidTurnRecord);
    assert.equal(lines(join(sessions, "s1.jsonl")).length, 1);
    await writer.close();
  });

  it("cuts a torn tail at the first append, not before; supplies a missing final LF", async () => {
    const { home, cwd, sessions } = freshHome();
    mkdirSync(sessions, { recursive: true });
    const whole = `${JSON.stringify({ type: "session_meta", ts: "2026-01-01T00:00:00.000Z", id: "torn" })}\n`;
    const torn = '{"type":"assistant_message","ts":"2026-01-01T00:00:01.000Z","text":"half a rep';
    const path = join(sessions, "torn.jsonl");
    writeFileSync(path, whole + torn);
    const writer = await SessionWriter.acquire({ home, cwd, id: "torn", create: false });
    assert.equal(readFileSync(path, "utf8"), whole + torn, "acquiring writes nothing");
    await writer.append(user("next"), "t2");
    await writer.close();
    const records = lines(path);
    assert.deepEqual(
      records.map((r) => r.type),
      ["session_meta", "user_message"],
    );
    assert.equal(readFileSync(path, "utf8").startsWith(whole), true);

    // A valid last record without its LF is kept: the append starts with the LF.
    const unterminated = JSON.stringify({
      type: "title",
      ts: "2026-01-01T00:00:02.000Z",
      title: "x",
    });
    writeFileSync(path, whole + unterminated);
    const again = await SessionWriter.acquire({ home, cwd, id: "torn", create: false });
    await again.append(user("after"), "t3");
    await again.close();
    assert.deepEqual(
      lines(path).map((r) => r.type),
      ["session_meta", "title", "user_message"],
    );
  });

  for (const kind of ["enospc", "eio", "short"] as const) {
    it(`truncates back to the last whole record on a failed append (${kind}, injected)`, async () => {
      const { home, cwd, sessions } = freshHome();
      const write = faultyPositionalWrite({ kind, recordType: "assistant_message" });
      const writer = await SessionWriter.acquire({ home, cwd, id: "s1", create: true, write });
      await writer.append(user("question"), "t1", { sync: true });
      const path = join(sessions, "s1.jsonl");
      const before = readFileSync(path);
      const reply: TurnRecordBody = {
        type: "assistant_message",
        text: "x".repeat(5000),
        model: "m/m",
      };
      await failsToWrite(writer.append(reply, "t1"), "io");
      assert.deepEqual(readFileSync(path), before, "nothing half-written stays");
      // The writer goes on: the turn's end can still be recorded.
      await writer.append(
        {
          type: "turn_end",
          status: "failed",
          stop_reason: null,
          usage: USAGE,
          error_code: "history_write_failed",
        },
        "t1",
        { sync: true },
      );
      await writer.close();
      assert.deepEqual(
        lines(path).map((r) => r.type),
        ["session_meta", "user_message", "turn_end"],
      );
    });
  }

  it("removes a history it could not create whole (the next turn creates it again)", async () => {
    const { home, cwd, sessions } = freshHome();
    const write = faultyPositionalWrite({ kind: "enospc", recordType: "session_meta" });
    await failsToWrite(SessionWriter.acquire({ home, cwd, id: "s1", create: true, write }));
    assert.equal(existsSync(join(sessions, "s1.jsonl")), false);
    assert.equal(existsSync(join(sessions, "s1.lock")), false);
    await (await SessionWriter.acquire({ home, cwd, id: "s1", create: true })).close();
  });

  it("truncates back on a real full disk (a 256 KiB tmpfs)", async (t) => {
    const { cwd } = freshHome();
    const mount = join(base, `tmpfs${counter}`);
    mkdirSync(mount);
    const refusal = mountTmpfs(mount, 256);
    if (refusal !== null) return t.skip(refusal);
    try {
      const home = join(mount, "home");
      const writer = await SessionWriter.acquire({ home, cwd, id: "s1", create: true });
      await writer.append(user("question"), "t1", { sync: true });
      const path = join(home, "sessions", "s1.jsonl");
      const before = readFileSync(path);
      // Fill the disk, leaving room for small records only.
      const filler = join(mount, "filler");
      for (let i = 0; ; i += 1) {
        try {
          appendFileSync(filler, Buffer.alloc(4096, 0x61));
        } catch {
          break;
        }
        assert.ok(i < 1000, "the tmpfs never filled");
      }
      await failsToWrite(writer.append(user("y".repeat(200_000)), "t1", { sync: true }), "io");
      assert.deepEqual(readFileSync(path), before, "nothing half-written stays");
      rmSync(filler);
      await writer.append(user("after space was freed"), "t1", { sync: true });
      await writer.close();
      assert.deepEqual(
        lines(path).map((r) => r.text ?? r.type),
        ["session_meta", "question", "after space was freed"],
      );
    } finally {
      unmountTmpfs(mount);
    }
  });

  it("is session_locked while another writer holds the session", async () => {
    const { home, cwd } = freshHome();
    const first = await SessionWriter.acquire({ home, cwd, id: "s1", create: true });
    await protocolCode(
      SessionWriter.acquire({ home, cwd, id: "s1", create: false }),
      "session_locked",
    );
    await first.close();
    await (await SessionWriter.acquire({ home, cwd, id: "s1", create: false })).close();
  });

  it("opens only a safe, existing history, and releases the lock when it cannot", async () => {
    const { home, cwd, sessions } = freshHome();
    await protocolCode(
      SessionWriter.acquire({ home, cwd, id: "none", create: false }),
      "session_missing",
    );
    mkdirSync(sessions, { recursive: true });
    await protocolCode(
      SessionWriter.acquire({ home, cwd, id: "none", create: false }),
      "session_missing",
    );
    writeFileSync(join(base, `outside${counter}`), "");
    symlinkSync(join(base, `outside${counter}`), join(sessions, "link.jsonl"));
    await protocolCode(
      SessionWriter.acquire({ home, cwd, id: "link", create: false }),
      "session_invalid",
    );
    assert.equal(existsSync(join(sessions, "link.lock")), false);
    assert.equal(existsSync(join(sessions, "none.lock")), false);
  });

  it("refuses to write when the history or its lock changed under it", async () => {
    const { home, cwd, sessions } = freshHome();
    const writer = await SessionWriter.acquire({ home, cwd, id: "s1", create: true });
    const path = join(sessions, "s1.jsonl");
    const foreign = `${JSON.stringify({ type: "title", ts: "t", title: "from another tool" })}\n`;
    appendFileSync(path, foreign);
    const before = readFileSync(path);
    await failsToWrite(writer.append(user("mine"), "t1"), "changed");
    assert.deepEqual(readFileSync(path), before, "another tool's bytes are never overwritten");
    await writer.close();

    const second = await SessionWriter.acquire({ home, cwd, id: "s1", create: false });
    rmSync(join(sessions, "s1.lock"));
    writeFileSync(
      join(sessions, "s1.lock"),
      JSON.stringify({ pid: 1, renewed_at: new Date().toISOString() }),
    );
    await failsToWrite(second.append(user("mine"), "t1"), "changed");
    await second.close();
    assert.ok(existsSync(join(sessions, "s1.lock")), "another writer's lock is left alone");
    assert.deepEqual(readFileSync(path), before);
  });

  it("takes the append fault switch from a test build only, and only in its exact form", () => {
    const env = { MC_AGENT_TEST_APPEND_FAULT: "enospc:assistant_message" };
    assert.equal(testSeamFor(env).historyWrite, undefined, "a normal child writes for real");
    assert.ok(testSeamFor({ ...env, MC_AGENT_TEST_METHODS: "1" }).historyWrite);
    const expected = { kind: "enospc", recordType: "assistant_message" };
    assert.deepEqual(parseAppendFault(env.MC_AGENT_TEST_APPEND_FAULT), expected);
    for (const raw of ["", "enospc", "full:turn_end", "eio:Turn_End", "short:x;y"]) {
      assert.equal(parseAppendFault(raw), null, raw);
      const seam = testSeamFor({ MC_AGENT_TEST_APPEND_FAULT: raw, MC_AGENT_TEST_METHODS: "1" });
      assert.equal(seam.historyWrite, undefined, raw);
    }
    assert.deepEqual(parseAppendFault("short:turn_end"), { kind: "short", recordType: "turn_end" });
  });

  it("faults only the appends of its record type, behind a torn line's LF too", async () => {
    const { home, cwd, sessions } = freshHome();
    const write = faultyPositionalWrite({ kind: "short", recordType: "assistant_message" });
    const writer = await SessionWriter.acquire({ home, cwd, id: "s1", create: true, write });
    await writer.append(user("question"), "t1", { sync: true });
    await writer.close();
    const path = join(sessions, "s1.jsonl");
    // A last record another writer left open: the next append writes an LF before its own.
    appendFileSync(
      path,
      JSON.stringify({ type: "title", ts: "2026-01-01T00:00:02.000Z", title: "x" }),
    );
    const again = await SessionWriter.acquire({ home, cwd, id: "s1", create: false, write });
    const reply: TurnRecordBody = { type: "assistant_message", text: "answer", model: "m/m" };
    await failsToWrite(again.append(reply, "t1"), "io");
    await again.append(user("more"), "t1");
    await again.close();
    assert.deepEqual(
      lines(path).map((r) => r.type),
      ["session_meta", "user_message", "title", "user_message"],
    );
  });
});
