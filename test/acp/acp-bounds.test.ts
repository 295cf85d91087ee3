import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { MAX_SESSIONS } from "../../src/acp/sessions.js";
import { LIMITS } from "../../src/protocol/constants.js";
import { AcpWorld } from "./acp-world.js";

/** Saved histories of `cwd`, the i-th one updated at minute i (so the newest is the last). */
function writeSessions(home: string, cwd: string, count: number, prefix: string): string[] {
  const folder = join(home, "sessions");
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `${prefix}${String(i).padStart(3, "0")}`;
    const ts = new Date(Date.UTC(2026, 10, 29, 10, i)).toISOString();
    const records = [
      { type: "session_meta", ts, cwd, id },
      { type: "title", ts, cwd, title: `Work ${i}` },
    ];
    writeFileSync(
      join(folder, `${id}.jsonl`),
      records.map((r) => `${JSON.stringify(r)}\n`).join(""),
    );
    ids.push(id);
  }
  return ids;
}

describe("mc-agent acp: bounds", () => {
  let world: AcpWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("session/list pages by cursor, newest first, this cwd only; a used cursor is stale", async () => {
    world = await AcpWorld.start();
    const w = world;
    const count = LIMITS.page_entries + 5;
    const ids = writeSessions(w.box.home, w.box.workspace, count, "s");
    writeSessions(w.box.home, w.box.home, 3, "other");
    await w.initialize();
    const first = await w.agent.request("session/list", { cwd: w.box.workspace });
    assert.equal(first.sessions.length, LIMITS.page_entries);
    assert.ok(first.nextCursor);
    const second = await w.agent.request("session/list", {
      cwd: w.box.workspace,
      cursor: first.nextCursor,
    });
    assert.equal(second.nextCursor ?? null, null);
    const listed = [...first.sessions, ...second.sessions].map((s) => s.sessionId);
    assert.deepEqual(listed, [...ids].reverse());
    assert.equal(first.sessions[0]?.title, `Work ${count - 1}`);
    await assert.rejects(
      w.agent.request("session/list", { cwd: w.box.workspace, cursor: first.nextCursor }),
      (error: { data?: { code?: string } }) => error.data?.code === "stale_revision",
    );
  });

  it(`at most ${MAX_SESSIONS} open sessions: the next is busy until one is closed`, async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const opened: string[] = [];
    for (let i = 0; i < MAX_SESSIONS; i++) opened.push((await w.newSession()).sessionId);
    await assert.rejects(
      w.newSession(),
      (error: { data?: { code?: string } }) => error.data?.code === "busy",
    );
    await w.agent.request("session/close", { sessionId: opened[0] as string });
    assert.match((await w.newSession()).sessionId, /\S/);
  });
});
