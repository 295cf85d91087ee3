import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { StoreBuilder } from "../fixtures/store-builder.js";
import type { TestChild } from "../helpers/child.js";
import { discoverAll, inSandbox, listAll, startSessions } from "../helpers/sessions.js";
import { treeSnapshot } from "../helpers/tree.js";

/**
 * The base change of turns.md section 8, through the real child: a history whose last line has
 * no LF and is not parser-valid (an interrupted append) is listed, discovered, opened and read
 * as if it ended before that line; a bad line anywhere else still makes it invalid. Readers
 * never repair it: the store is byte for byte the same afterwards.
 */
const TORN = '{"type":"assistant_message","ts":"2026-03-01T00:00:00.000Z","text":"half a rep';

async function allEvents(child: TestChild, id: string): Promise<object[]> {
  const events: object[] = [];
  let page = await child.call("session.history", { id });
  events.push(...page.events);
  while (page.cursor !== null) {
    page = await child.call("session.history", { id, cursor: page.cursor });
    events.push(...page.events);
  }
  return events;
}

describe("torn tails (an interrupted append) in every reader", () => {
  it("lists, discovers, opens and reads a torn history without its torn line", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 41);
      const records = store.events("torn1", { records: 6, title: "Torn but fine" });
      store.raw("torn1.jsonl", `${records.map((r) => JSON.stringify(r)).join("\n")}\n${TORN}`);
      // Long enough that discovery's held reader crosses steps (10,000 records a step) before
      // it reaches the torn tail, which is itself read in several buffers.
      const long = store.events("torn-long", { records: 15_000 });
      const bigTorn = `{"type":"user_message","ts":"2026-03-01T00:00:00.000Z","text":"${"w".repeat(100_000)}`;
      store.raw("torn-long.jsonl", `${long.map((r) => JSON.stringify(r)).join("\n")}\n${bigTorn}`);
      // Cut inside a two-byte character: not valid UTF-8, still a torn tail.
      const cut = Buffer.from('{"type":"user_message","ts":"t","text":"é').subarray(0, -1);
      const short = store.events("torn-cut", { records: 2 });
      store.raw(
        "torn-cut.jsonl",
        Buffer.concat([Buffer.from(`${short.map((r) => JSON.stringify(r)).join("\n")}\n`), cut]),
      );
      // A valid last record without its (optional) LF is a record, not a torn tail.
      const whole = store.events("no-lf", { records: 3 });
      store.raw("no-lf.jsonl", whole.map((r) => JSON.stringify(r)).join("\n"));
      // Still invalid: a bad line that is not the last, and a bad last line that has its LF.
      const good = store.events("bad-middle", { records: 3 }).map((r) => JSON.stringify(r));
      store.raw("bad-middle.jsonl", `${good[0]}\n${TORN}\n${good[1]}\n${good[2]}`);
      store.raw("bad-last-lf.jsonl", `${good.join("\n")}\n${TORN}\n`);
      const before = treeSnapshot(box.home);
      const bytesBefore = readFileSync(join(store.root, "torn1.jsonl"));

      const child = await startSessions(box);
      children.push(child);
      const listed = await listAll(child);
      const expected = ["no-lf", "torn-cut", "torn-long", "torn1"];
      assert.deepEqual([...listed.ids].sort(), expected);
      const notices = listed.pages.at(-1)?.notices;
      assert.deepEqual(notices, [{ code: "sessions_omitted_invalid", count: 2 }]);
      const entry = listed.pages.flatMap((p) => p.sessions).find((s) => s.id === "torn1");
      assert.equal(entry?.title, "Torn but fine");
      assert.equal(entry?.updated_at, (records.at(-1) as { ts: string }).ts);

      const discovered = await discoverAll(child);
      assert.equal(discovered.error, null);
      assert.ok(discovered.pages.length > 1, "discovery crossed steps");
      assert.deepEqual([...discovered.ids].sort(), expected);
      assert.deepEqual(discovered.pages.at(-1)?.notices, notices);
      const found = discovered.pages.flatMap((p) => p.sessions).find((s) => s.id === "torn1");
      assert.deepEqual(found, entry);

      const opened = await child.call("session.open", { id: "torn1" });
      assert.deepEqual(opened.session, entry);
      assert.deepEqual(await allEvents(child, "torn1"), records);
      assert.deepEqual(await allEvents(child, "torn-long"), long);
      assert.deepEqual(await allEvents(child, "torn-cut"), short);
      assert.deepEqual(await allEvents(child, "no-lf"), whole);
      assert.equal(await child.errorCode("session.open", { id: "bad-middle" }), "session_invalid");
      assert.equal(await child.errorCode("session.open", { id: "bad-last-lf" }), "session_invalid");
      assert.equal(
        await child.errorCode("session.history", { id: "bad-middle" }),
        "session_invalid",
      );

      // Readers never repair: the torn tail is still there, for the next writer to cut.
      assert.deepEqual(treeSnapshot(box.home), before);
      assert.deepEqual(readFileSync(join(store.root, "torn1.jsonl")), bytesBefore);
    }));
});
