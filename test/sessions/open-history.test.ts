import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StoreBuilder } from "../fixtures/store-builder.js";
import { inSandbox, listAll, startSessions } from "../helpers/sessions.js";
import { treeSnapshot } from "../helpers/tree.js";

describe("session titles, times and busy hints", () => {
  it("takes titles from title events, the first user message (80 characters) or null", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 21);
      store.history("titled", [
        { type: "session_meta", ts: "2026-01-01T10:00:00.000Z", cwd: box.workspace },
        { type: "user_message", ts: "2026-01-01T10:01:00.000Z", text: "first question" },
        { type: "title", ts: "2026-01-01T10:02:00.000Z", title: "Old title" },
        { type: "title", ts: "2026-01-01T10:03:00.000Z", title: "Fix the flaky test" },
        { type: "assistant_message", ts: "2026-01-01T10:04:00.000Z", text: "done" },
      ]);
      const long = `${"ü".repeat(100)}\nsecond line`;
      store.history("from-message", [
        { type: "session_meta", ts: "2026-01-02T10:00:00.000Z" },
        { type: "user_message", ts: "2026-01-02T10:01:00.000Z", text: long },
        { type: "user_message", ts: "2026-01-02T10:02:00.000Z", text: "later" },
      ]);
      store.history("short-line", [
        { type: "user_message", ts: "2026-01-03T10:00:00.000Z", text: "line one\r\nline two" },
      ]);
      store.history("untitled", [
        { type: "session_meta", ts: "2026-01-04T10:00:00.000Z", cwd: box.workspace },
        { type: "some_future_type", ts: "2026-01-04T11:00:00.000Z", cwd: "" },
      ]);
      store.lock("titled", "2020-01-01T00:00:00.000Z");
      const child = await startSessions(box);
      children.push(child);
      const { ids, pages } = await listAll(child);
      const byId = new Map(pages.flatMap((p) => p.sessions).map((s) => [s.id, s]));
      assert.equal(ids.length, 4);
      assert.deepEqual(byId.get("titled"), {
        id: "titled",
        title: "Fix the flaky test",
        created_at: "2026-01-01T10:00:00.000Z",
        updated_at: "2026-01-01T10:04:00.000Z",
        busy: true,
        cwd: "verified",
        open: "exact",
      });
      assert.equal(byId.get("from-message")?.title, "ü".repeat(80));
      assert.equal(byId.get("from-message")?.cwd, "unverified");
      assert.equal(byId.get("short-line")?.title, "line one");
      assert.equal(byId.get("untitled")?.title, null);
      assert.equal(byId.get("untitled")?.updated_at, "2026-01-04T11:00:00.000Z");
      assert.equal(byId.get("untitled")?.busy, false);
      // Newest first.
      assert.deepEqual(ids, ["untitled", "short-line", "from-message", "titled"]);
    }));
});

describe("session.create and session.open", () => {
  it("attaches a lazy handle that writes nothing and is absent from session.list", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 22);
      store.chat("chat1");
      const before = treeSnapshot(box.home);
      const child = await startSessions(box);
      children.push(child);
      const created = await child.call("session.create", {});
      assert.equal(created.session.saved, false);
      assert.match(created.session.id, /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/);
      const status = await child.call("status", {});
      assert.deepEqual(status.attachment, { session_id: created.session.id, saved: false });
      const { ids } = await listAll(child);
      assert.deepEqual(ids, ["chat1"]);
      assert.deepEqual(await child.call("session.history", { id: created.session.id }), {
        events: [],
        cursor: null,
        complete: true,
      });
      assert.deepEqual(treeSnapshot(box.home), before);
    }));

  it("opens a saved chat exactly; a mixed-cwd history is cwd_mismatch and keeps the attachment", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 23);
      store.chat("chat1", { title: "Chat one" });
      store.mixed("mixed1", 5);
      store.chat("foreign1", { cwd: "/another/place" });
      store.malformed("broken1", "bad_json");
      store.archived("archived1");
      store.subagent("chat1");
      const child = await startSessions(box);
      children.push(child);
      const opened = await child.call("session.open", { id: "chat1" });
      assert.equal(opened.session.id, "chat1");
      assert.equal(opened.session.title, "Chat one");
      assert.equal(opened.session.cwd, "verified");
      const attached = { session_id: "chat1", saved: true };
      assert.deepEqual((await child.call("status", {})).attachment, attached);
      assert.equal(await child.errorCode("session.open", { id: "mixed1" }), "cwd_mismatch");
      assert.equal(await child.errorCode("session.open", { id: "foreign1" }), "cwd_mismatch");
      assert.equal(await child.errorCode("session.open", { id: "broken1" }), "session_invalid");
      assert.equal(await child.errorCode("session.open", { id: "nope" }), "session_missing");
      assert.equal(await child.errorCode("session.open", { id: "archived1" }), "session_missing");
      assert.equal(await child.errorCode("session.open", { id: "chat1.sub-1" }), "invalid_params");
      assert.equal(await child.errorCode("session.open", { id: "../x" }), "invalid_params");
      assert.deepEqual((await child.call("status", {})).attachment, attached);
      // A failed open after a lazy create keeps the lazy handle attached.
      const lazy = await child.call("session.create", {});
      assert.equal(await child.errorCode("session.open", { id: "mixed1" }), "cwd_mismatch");
      assert.deepEqual((await child.call("status", {})).attachment, {
        session_id: lazy.session.id,
        saved: false,
      });
    }));

  it("refuses symlinked and FIFO primaries as session_invalid", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 24);
      const target = store.chat("real1");
      store.symlink("link1", target);
      store.fifo("fifo1");
      const child = await startSessions(box);
      children.push(child);
      assert.equal(await child.errorCode("session.open", { id: "link1" }), "session_invalid");
      assert.equal(await child.errorCode("session.open", { id: "fifo1" }), "session_invalid");
      assert.equal(await child.errorCode("session.history", { id: "fifo1" }), "session_invalid");
      assert.equal((await child.call("status", {})).attachment, null);
    }));
});

describe("session.history", () => {
  it("pages a history's events in order, by 100 and by 32 KiB, with single-use cursors", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 25);
      const records: object[] = [];
      for (let i = 0; i < 250; i += 1)
        records.push({
          type: "user_message",
          ts: `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}Z`,
          cwd: box.workspace,
          text: `message ${i}`,
          extra: { n: i },
        });
      // A few big events force the byte bound.
      for (let i = 0; i < 5; i += 1)
        records.push({
          type: "assistant_message",
          ts: "2026-01-02T00:00:00Z",
          cwd: box.workspace,
          text: "y".repeat(12_000),
        });
      store.history("long1", records);
      store.mixed("mixed1", 2);
      const child = await startSessions(box);
      children.push(child);
      const events: unknown[] = [];
      const sizes: number[] = [];
      let page = await child.call("session.history", { id: "long1" });
      const firstCursor = page.cursor;
      for (;;) {
        events.push(...page.events);
        sizes.push(page.events.length);
        assert.ok(Buffer.byteLength(JSON.stringify(page)) <= 32_768);
        if (page.cursor === null) break;
        page = await child.call("session.history", { id: "long1", cursor: page.cursor });
      }
      assert.equal(page.complete, true);
      assert.deepEqual(events, records);
      assert.equal(sizes[0], 100);
      assert.equal(sizes[1], 100);
      assert.ok(sizes.length >= 4, `pages: ${sizes.join(",")}`);
      assert.equal(
        await child.errorCode("session.history", { id: "long1", cursor: firstCursor }),
        "stale_revision",
      );
      assert.equal(await child.errorCode("session.history", { id: "mixed1" }), "cwd_mismatch");
      assert.equal(await child.errorCode("session.history", { id: "missing1" }), "session_missing");
      assert.equal((await child.call("status", {})).attachment, null);
    }));

  it("answers stale_revision when the history changes between pages", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 26);
      store.lines("grow1", 150);
      const child = await startSessions(box);
      children.push(child);
      const page = await child.call("session.history", { id: "grow1" });
      assert.ok(page.cursor);
      store.lines("grow1", 151);
      assert.equal(
        await child.errorCode("session.history", { id: "grow1", cursor: page.cursor }),
        "stale_revision",
      );
    }));
});
