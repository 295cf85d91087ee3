import assert from "node:assert/strict";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { StoreBuilder } from "../fixtures/store-builder.js";
import { discoverAll, inSandbox, listAll, startSessions } from "../helpers/sessions.js";
import { treeSnapshot } from "../helpers/tree.js";

/** The discovery scenarios, each a test named after it (see also discover-*.test.ts). */
describe("session.discover scenarios", () => {
  it("300 unrelated primary files plus a foreign history of 10,001 parser-valid records: workspace chat and empty legacy row returned, record_work seen, empty validation pages end complete, mixed-cwd excluded, no invalid notice", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 31);
      for (let i = 0; i < 300; i += 1)
        store.chat(`other${i}`, { cwd: `/elsewhere/ws${i % 7}`, records: 2 });
      // 10,000 records of this workspace, then one of another: excluded only at its last record.
      store.mixed("mixed1", 10_000);
      store.chat("chat1");
      store.empty("legacy1");
      const child = await startSessions(box);
      children.push(child);
      const { pages, ids, error } = await discoverAll(child);
      assert.equal(error, null);
      assert.deepEqual(ids.sort(), ["chat1", "legacy1"]);
      const progress = pages.map((p) => p.progress);
      assert.ok(progress.includes("record_work"), progress.join(","));
      assert.ok(progress.includes("inventory_validation"), progress.join(","));
      const last = pages.at(-1);
      assert.equal(last?.complete, true);
      assert.equal(last?.progress, "complete");
      assert.equal(last?.recovery, "none");
      assert.deepEqual(last?.sessions, []);
      // Once validation yielded, every later page is an empty validation page.
      const validating = pages.findIndex((p) => p.progress === "inventory_validation");
      for (const page of pages.slice(validating + 1)) assert.deepEqual(page.sessions, []);
      assert.deepEqual(last?.notices, [{ code: "cwd_unverified", count: 1 }]);
      for (const page of pages) {
        assert.equal(page.consistency, "provisional_until_complete");
        assert.ok(!page.notices.some((n) => n.code === "sessions_omitted_invalid"));
        if (!page.complete) assert.equal(page.recovery, "continue_cursor");
      }
    }));

  it("304 eligible histories (some under a canonical cwd alias): pages of 100, 100, 100, 4, then empty validated completion; no global candidate failure", () =>
    inSandbox(async (box, children) => {
      const alias = join(box.root, "alias");
      symlinkSync(box.workspace, alias);
      const store = new StoreBuilder(box.home, box.workspace, 32);
      for (let i = 0; i < 304; i += 1)
        store.chat(`s${i}`, { cwd: i % 2 === 0 ? box.workspace : alias, records: 2 });
      const child = await startSessions(box);
      children.push(child);
      assert.equal(await child.errorCode("session.list", {}), "discovery_limit");
      const { pages, ids, error } = await discoverAll(child);
      assert.equal(error, null);
      assert.equal(new Set(ids).size, 304);
      const sizes = pages.map((p) => p.sessions.length);
      assert.deepEqual(sizes.slice(0, 4), [100, 100, 100, 4], sizes.join(","));
      assert.ok(sizes.slice(4).every((n) => n === 0));
      assert.deepEqual(
        pages.slice(0, 3).map((p) => p.progress),
        ["page_entries", "page_entries", "page_entries"],
      );
      assert.equal(pages.at(-1)?.complete, true);
      assert.deepEqual(pages.at(-1)?.notices, []);
    }));

  it("mutation of an already emitted history before completion: final validation returns stale_revision; the same continuation stays stale; no complete snapshot", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 33);
      for (let i = 0; i < 150; i += 1) store.chat(`m${i}`, { records: 2 });
      const child = await startSessions(box);
      children.push(child);
      const first = await child.call("session.discover", {});
      assert.equal(first.sessions.length, 100);
      assert.ok(first.cursor);
      const emitted = first.sessions[0]?.id as string;
      const path = join(store.root, `${emitted}.jsonl`);
      const { appendFileSync } = await import("node:fs");
      appendFileSync(
        path,
        `${JSON.stringify({ type: "mode", ts: store.nextTs(), cwd: box.workspace, mode: "plan" })}\n`,
      );
      let cursor: string = first.cursor;
      let failure: string | null = null;
      for (let step = 0; step < 20 && failure === null; step += 1) {
        const frame = await child.request("session.discover", { cursor });
        if (frame.error) failure = frame.error.code;
        else {
          const page = frame.result as { cursor: string | null; complete: boolean };
          assert.equal(page.complete, false, "a mutated inventory must never complete");
          cursor = page.cursor as string;
        }
      }
      assert.equal(failure, "stale_revision");
      assert.equal(await child.errorCode("session.discover", { cursor }), "stale_revision");
      assert.equal(
        await child.errorCode("session.discover", { cursor: first.cursor }),
        "stale_revision",
      );
    }));

  it("a lazy handle is absent from discovery; discovery leaves the attachment alone", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 34);
      store.chat("chat1");
      store.chat("chat2");
      const child = await startSessions(box);
      children.push(child);
      await child.call("session.open", { id: "chat2" });
      const lazy = await child.call("session.create", {});
      const attached = { session_id: lazy.session.id, saved: false };
      const { ids, error } = await discoverAll(child);
      assert.equal(error, null);
      assert.deepEqual(ids.sort(), ["chat1", "chat2"]);
      assert.deepEqual((await child.call("status", {})).attachment, attached);
      // A fresh scan abandons the prior one but never touches the attachment.
      await child.call("session.discover", {});
      await child.call("session.discover", {});
      assert.deepEqual((await child.call("status", {})).attachment, attached);
    }));

  it("a client that follows cursors to completion gets exactly the set session.list returns on the same store", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 35);
      for (let i = 0; i < 40; i += 1)
        store.chat(`c${i}`, { title: i % 3 === 0 ? `title ${i}` : undefined });
      store.empty("legacy1");
      store.chat("legacy2", { cwd: null });
      store.chat("foreign1", { cwd: "/far/away" });
      store.mixed("mixed1", 4);
      store.malformed("bad1", "bad_json");
      store.malformed("bad2", "invalid_utf8");
      store.fifo("fifo1");
      store.subagent("c1");
      store.archived("old1");
      store.lock("c2");
      store.junk(20);
      // A name that is not valid UTF-8: ignored like any other non-primary name.
      writeFileSync(
        Buffer.concat([
          Buffer.from(`${store.root}/`),
          Buffer.from([0xff, 0xfe]),
          Buffer.from(".jsonl"),
        ]),
        "x",
      );
      // A name that starts with a byte order mark is not a primary's name either (it is not
      // "c3.jsonl", whose history must still be read as itself).
      writeFileSync(`${store.root}/\uFEFFc3.jsonl`, "x");
      const child = await startSessions(box);
      children.push(child);
      const listed = await listAll(child);
      const discovered = await discoverAll(child);
      assert.equal(discovered.error, null);
      const byId = (entries: { id: string }[]) =>
        [...entries].sort((a, b) => (a.id < b.id ? -1 : 1));
      assert.deepEqual(
        byId(discovered.pages.flatMap((p) => p.sessions)),
        byId(listed.pages.flatMap((p) => p.sessions)),
      );
      assert.deepEqual(discovered.pages.at(-1)?.notices, listed.pages.at(-1)?.notices);
      assert.deepEqual(listed.pages.at(-1)?.notices, [
        { code: "cwd_unverified", count: 2 },
        { code: "sessions_omitted_invalid", count: 3 },
      ]);
    }));

  it("nothing under MC_HOME changes during discovery", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 36);
      for (let i = 0; i < 30; i += 1) store.chat(`c${i}`);
      store.lock("c1");
      store.malformed("bad1", "blank_line");
      store.archived("a1");
      store.sized("big1", 9 * 1024 * 1024, 4096);
      writeFileSync(Buffer.concat([Buffer.from(`${store.root}/`), Buffer.from([0xc3, 0x28])]), "x");
      const before = treeSnapshot(box.home);
      const child = await startSessions(box);
      children.push(child);
      const { error } = await discoverAll(child);
      assert.equal(error, null);
      assert.deepEqual(treeSnapshot(box.home), before);
    }));
});
