import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { type Sandbox, sandbox, startReady, type TestChild } from "../helpers/child.js";
import { listAll, SESSION_CAPS } from "../helpers/sessions.js";

/**
 * session.unarchive killed (kill -9, MC_AGENT_TEST_MANAGE_KILL) at each of its named steps, as
 * delete and archive are in manage.test.ts: afterwards the session is wholly archived or wholly
 * live (list, open, history, archived and search agree), byte for byte; a live session has its
 * derived history beside it; and the next unarchive of an archived one finishes exactly.
 */
const CAPS = [...SESSION_CAPS, "session.manage", "session.search"];
const TS = "2026-11-29T10:00:00.000Z";

let box: Sandbox | undefined;
let children: TestChild[] = [];
afterEach(async () => {
  for (const child of children) await child.close().catch(() => {});
  children = [];
  box?.cleanup();
  box = undefined;
});

async function start(target: Sandbox, env: Record<string, string> = {}): Promise<TestChild> {
  const child = await startReady(target, CAPS, { testMethods: true, env });
  children.push(child);
  return child;
}

const live = (home: string) => join(home, "sessions");
const archive = (home: string) => join(home, "sessions", "archive");

function writeSession(target: Sandbox, id: string): string {
  const cwd = target.workspace;
  const base = { ts: TS, cwd, turn_id: "t-1" };
  const lines = [
    { type: "session_meta", ts: TS, cwd, id },
    { type: "user_message", ...base, text: `the marmot question of ${id}` },
    { type: "assistant_message", ...base, text: "An answer.", model: "demo/demo-1" },
  ].map((r) => JSON.stringify(r));
  mkdirSync(live(target.home), { recursive: true, mode: 0o700 });
  const text = `${lines.join("\n")}\n`;
  writeFileSync(join(live(target.home), `${id}.jsonl`), text);
  return text;
}

async function archivedIds(child: TestChild): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await child.call("session.archived", cursor === undefined ? {} : { cursor });
    ids.push(...page.sessions.map((s) => s.id));
    if (page.cursor === null) return ids;
    cursor = page.cursor;
  }
}

async function searchIds(child: TestChild, archived: boolean): Promise<string[]> {
  const ids = new Set<string>();
  let cursor: string | null = null;
  for (;;) {
    const params: Record<string, unknown> = { query: "MARMOT", ...(archived ? { archived } : {}) };
    if (cursor) params.cursor = cursor;
    const page = await child.call("session.search", params as { query: string });
    for (const hit of page.hits) ids.add(hit.id);
    if (page.complete) return [...ids];
    cursor = page.cursor;
  }
}

const names = (folder: string) =>
  existsSync(folder)
    ? readdirSync(folder)
        .filter((n) => n.endsWith(".jsonl"))
        .sort()
    : [];

describe("kill -9 at every step of session.unarchive", () => {
  for (const step of ["locked", "derived", "committed"])
    test(`session.unarchive killed at ${step}: wholly archived or wholly live, derived history beside a live one`, async () => {
      box = sandbox();
      const text = writeSession(box, "s1");
      writeSession(box, "s2");
      writeFileSync(join(live(box.home), "s1.sub-1.jsonl"), "{}\n");
      const setup = await start(box);
      await setup.call("session.archive", { id: "s1" });
      await setup.close();
      assert.deepEqual(names(archive(box.home)), ["s1.jsonl", "s1.sub-1.jsonl"]);

      const doomed = await start(box, { MC_AGENT_TEST_MANAGE_KILL: `session.unarchive:${step}` });
      doomed.send({ id: "un", method: "session.unarchive", params: { id: "s1" } });
      assert.equal((await doomed.exited).signal, "SIGKILL");

      const child = await start(box);
      const isLive = (await listAll(child)).ids.includes("s1");
      const isArchived = (await archivedIds(child)).includes("s1");
      assert.notEqual(isLive, isArchived, "exactly one of the two");
      assert.equal(isLive, step === "committed", "live exactly when the commit was reached");
      assert.deepEqual((await searchIds(child, false)).sort(), isLive ? ["s1", "s2"] : ["s2"]);
      assert.deepEqual(await searchIds(child, true), isLive ? [] : ["s1"]);
      const folder = isLive ? live(box.home) : archive(box.home);
      assert.equal(readFileSync(join(folder, "s1.jsonl"), "utf8"), text, "byte for byte");
      assert.equal((await child.call("session.history", { id: "s1" })).events.length, 3);
      if (isLive) {
        assert.equal((await child.call("session.open", { id: "s1" })).session.id, "s1");
        assert.deepEqual(names(live(box.home)), ["s1.jsonl", "s1.sub-1.jsonl", "s2.jsonl"]);
        assert.deepEqual(names(archive(box.home)), [], "nothing of it is left in the archive");
      } else {
        assert.equal(await child.errorCode("session.open", { id: "s1" }), "session_missing");
        // The next unarchive (taking over the dead child's lock) finishes exactly.
        await child.call("session.unarchive", { id: "s1" });
        assert.deepEqual(names(live(box.home)), ["s1.jsonl", "s1.sub-1.jsonl", "s2.jsonl"]);
        assert.deepEqual(names(archive(box.home)), []);
        assert.equal(readFileSync(join(live(box.home), "s1.jsonl"), "utf8"), text);
      }
      assert.ok(
        !existsSync(join(live(box.home), "s1.lock")) || isLive,
        "a taken-over lock is gone",
      );
    });
});
