import assert from "node:assert/strict";
import {
  appendFileSync,
  chmodSync,
  renameSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { StoreBuilder } from "../fixtures/store-builder.js";
import type { TestChild } from "../helpers/child.js";
import { discoverAll, inSandbox, startSessions } from "../helpers/sessions.js";

const MiB = 1024 * 1024;

/**
 * Starts a scan over 150 chats and a lock, takes one page, mutates, and follows to the end.
 * In-place changes (chmod, touch) are made to entries the first page already emitted: an entry
 * changed before the scan reaches it is simply read in its new state.
 */
async function scanWithMutation(
  mutate: (store: StoreBuilder, emitted: string[]) => void,
): Promise<string | null> {
  let outcome: string | null = "not run";
  await inSandbox(async (box, children) => {
    const store = new StoreBuilder(box.home, box.workspace, 41);
    for (let i = 0; i < 150; i += 1) store.chat(`m${i}`, { records: 2 });
    store.lock("m3", "2026-01-01T00:00:00.000Z");
    const child = await startSessions(box);
    children.push(child);
    const first = await child.call("session.discover", {});
    assert.ok(first.cursor);
    mutate(
      store,
      first.sessions.map((entry) => entry.id),
    );
    outcome = await follow(child, first.cursor);
  });
  return outcome;
}

/** The error code that ends the scan, or null when it completes. */
async function follow(child: TestChild, start: string): Promise<string | null> {
  let cursor: string | null = start;
  while (cursor !== null) {
    const frame = await child.request("session.discover", { cursor });
    if (frame.error) return frame.error.code;
    cursor = (frame.result as { cursor: string | null }).cursor;
  }
  return null;
}

describe("session.discover inventory changes", () => {
  it("adding an entry mid-scan ends in stale_revision", async () => {
    assert.equal(await scanWithMutation((s) => s.chat("added1")), "stale_revision");
  });
  it("removing an entry mid-scan ends in stale_revision", async () => {
    assert.equal(
      await scanWithMutation((s) => unlinkSync(join(s.root, "m140.jsonl"))),
      "stale_revision",
    );
  });
  it("renaming an entry mid-scan ends in stale_revision", async () => {
    const outcome = await scanWithMutation((s) =>
      renameSync(join(s.root, "m1.jsonl"), join(s.root, "renamed1.jsonl")),
    );
    assert.equal(outcome, "stale_revision");
  });
  it("chmod-ing an entry mid-scan ends in stale_revision", async () => {
    assert.equal(
      await scanWithMutation((s, emitted) => chmodSync(join(s.root, `${emitted[5]}.jsonl`), 0o600)),
      "stale_revision",
    );
  });
  it("touching an entry mid-scan ends in stale_revision", async () => {
    const outcome = await scanWithMutation((s, emitted) =>
      utimesSync(join(s.root, `${emitted[7]}.jsonl`), new Date(2030, 0, 1), new Date(2030, 0, 1)),
    );
    assert.equal(outcome, "stale_revision");
  });
  it("renewing a lock's timestamp mid-scan does not invalidate the scan", async () => {
    const outcome = await scanWithMutation((s) =>
      // Renewal rewrites the lock in place (same inode), as writers do.
      writeFileSync(
        join(s.root, "m3.lock"),
        `${JSON.stringify({ pid: 4242, renewed_at: "2026-06-30T12:34:56.789Z" })}\n`,
      ),
    );
    assert.equal(outcome, null);
  });
});

describe("session.discover step bounds", () => {
  it("a single record of 8 MiB + 1 byte fails with discovery_record_bytes; one of exactly 8 MiB is read", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 42);
      store.bigRecord("exact1", 8 * MiB);
      const child = await startSessions(box);
      children.push(child);
      const ok = await discoverAll(child);
      assert.equal(ok.error, null);
      assert.deepEqual(ok.ids, ["exact1"]);
      assert.ok(ok.pages.some((p) => p.progress === "byte_work"));
      store.bigRecord("over1", 8 * MiB + 1);
      const over = await discoverAll(child);
      assert.equal(over.error, "discovery_record_bytes");
      // The failed scan is gone: its last cursor is stale.
      const lastCursor = over.pages.at(-1)?.cursor;
      if (lastCursor)
        assert.equal(
          await child.errorCode("session.discover", { cursor: lastCursor }),
          "stale_revision",
        );
    }));

  it("a 9 MiB history of small records is fully read across several requests (byte_work)", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 43);
      store.sized("nine1", 9 * MiB, 1024);
      const child = await startSessions(box);
      children.push(child);
      const { pages, ids, error } = await discoverAll(child);
      assert.equal(error, null);
      assert.deepEqual(ids, ["nine1"]);
      assert.equal(pages[0]?.progress, "byte_work");
      assert.deepEqual(pages[0]?.sessions, []);
    }));

  it("appending to the history held between steps ends in stale_revision, never a cut-short read", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 44);
      const path = store.sized("held1", 9 * MiB, 1024);
      const child = await startSessions(box);
      children.push(child);
      const first = await child.call("session.discover", {});
      assert.equal(first.progress, "byte_work");
      assert.ok(first.cursor);
      appendFileSync(path, `${JSON.stringify({ type: "mode", ts: "t", cwd: box.workspace })}\n`);
      assert.equal(await follow(child, first.cursor), "stale_revision");
    }));

  it("a history of 50,000 lines crosses record_work", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 44);
      store.lines("fifty1", 50_000);
      const child = await startSessions(box);
      children.push(child);
      const { pages, ids, error } = await discoverAll(child);
      assert.equal(error, null);
      assert.deepEqual(ids, ["fifty1"]);
      const recordWork = pages.filter((p) => p.progress === "record_work").length;
      assert.ok(recordWork >= 4, `record_work ${recordWork} times`);
    }));

  it("5,000 directory names are enumerated in 256-entry steps (directory_work)", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 45);
      store.junk(5000);
      store.chat("chat1");
      const child = await startSessions(box);
      children.push(child);
      const { pages, ids, error } = await discoverAll(child);
      assert.equal(error, null);
      assert.deepEqual(ids, ["chat1"]);
      const enumeration = pages.filter((p) => p.progress === "directory_work").length;
      const validation = pages.filter((p) => p.progress === "inventory_validation").length;
      // 5,001 entries: 19 full steps of 256 in each pass (the last partial step goes on).
      assert.equal(enumeration, Math.floor(5001 / 256));
      assert.ok(validation >= Math.floor(5001 / 256) - 1, `validation steps ${validation}`);
    }));

  it("300 histories of another workspace end a step with history_work", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 46);
      for (let i = 0; i < 300; i += 1) store.chat(`f${i}`, { cwd: "/another/ws", records: 2 });
      const child = await startSessions(box);
      children.push(child);
      const { pages, ids, error } = await discoverAll(child);
      assert.equal(error, null);
      assert.deepEqual(ids, []);
      assert.equal(pages[0]?.progress, "history_work");
    }));

  it("an entry that cannot fit an empty page fails with discovery_page_bytes", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 47);
      store.chat("huge1", { title: "t".repeat(40_000) });
      const child = await startSessions(box);
      children.push(child);
      assert.equal((await discoverAll(child)).error, "discovery_page_bytes");
      assert.equal(await child.errorCode("session.list", {}), "discovery_page_bytes");
    }));
});

describe("session.discover cursors and cancellation", () => {
  it("reusing an earlier cursor invalidates the scan; a 65-byte or non-ASCII cursor is invalid_params", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 48);
      store.junk(1000);
      const child = await startSessions(box);
      children.push(child);
      const first = await child.call("session.discover", {});
      const second = await child.call("session.discover", { cursor: first.cursor as string });
      assert.ok(second.cursor);
      assert.equal(
        await child.errorCode("session.discover", { cursor: first.cursor }),
        "stale_revision",
      );
      // Sticky: the newest cursor of that scan is stale as well.
      assert.equal(
        await child.errorCode("session.discover", { cursor: second.cursor }),
        "stale_revision",
      );
      assert.equal(
        await child.errorCode("session.discover", { cursor: "d1.".padEnd(65, "a") }),
        "invalid_params",
      );
      assert.equal(await child.errorCode("session.discover", { cursor: "d1.é" }), "invalid_params");
      // A fresh scan works again.
      assert.equal((await discoverAll(child)).error, null);
    }));

  it("a fresh request abandons the prior scan; an attachment change between steps makes the scan stale", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 51);
      store.junk(1000);
      store.chat("chat1");
      const child = await startSessions(box);
      children.push(child);
      const a = await child.call("session.discover", {});
      const b = await child.call("session.discover", {});
      assert.ok(a.cursor && b.cursor);
      assert.equal(
        await child.errorCode("session.discover", { cursor: a.cursor }),
        "stale_revision",
      );
      const b2 = await child.call("session.discover", { cursor: b.cursor });
      assert.ok(b2.cursor);
      await child.call("session.open", { id: "chat1" });
      assert.equal(
        await child.errorCode("session.discover", { cursor: b2.cursor }),
        "stale_revision",
      );
      assert.deepEqual((await child.call("status", {})).attachment, {
        session_id: "chat1",
        saved: true,
      });
    }));

  it("shutdown during a discovery step answers the step and exits 0", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 52);
      for (let i = 0; i < 3; i += 1) store.lines(`busy${i}`, 40_000);
      const child = await startSessions(box);
      children.push(child);
      const step = child.waitFor((f) => f.id === "step-1");
      child.send({ id: "step-1", method: "session.discover", params: {} });
      const stopped = await child.request("shutdown", {});
      assert.deepEqual(stopped.result, { state: "stopped" });
      const frame = await step;
      assert.ok(frame.result || frame.error?.code === "operation_cancelled", JSON.stringify(frame));
      assert.equal((await child.exited).code, 0);
    }));

  it("a cancel mid-step yields operation_cancelled and the scan is gone", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 49);
      // Small records: a step spends its whole 10,000-record allowance, several milliseconds.
      for (let i = 0; i < 4; i += 1) store.lines(`busy${i}`, 40_000);
      const child = await startSessions(box);
      children.push(child);
      const first = await child.call("session.discover", {});
      assert.ok(first.cursor);
      const id = "discover-cancel-1";
      const response = child.waitFor((f) => f.id === id);
      child.send({ id, method: "session.discover", params: { cursor: first.cursor } });
      const ack = await child.call("operation.cancel", { request_id: id });
      assert.deepEqual(ack, { state: "cancelling", request_id: id });
      const frame = await response;
      assert.equal(frame.error?.code, "operation_cancelled");
      assert.equal(
        await child.errorCode("session.discover", { cursor: first.cursor }),
        "stale_revision",
      );
    }));

  it("status stays responsive while a discovery step runs", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 50);
      store.sized("bigrecords1", 8 * MiB, 2 * MiB);
      store.lines("many1", 30_000);
      const child = await startSessions(box);
      children.push(child);
      let cursor: string | null | undefined;
      let statusFirst = 0;
      do {
        const step = child.request("session.discover", cursor ? { cursor } : {});
        const status = await child.request("status", {});
        assert.ok(status.result, JSON.stringify(status.error));
        const frame = await step;
        assert.ok(frame.result, JSON.stringify(frame.error));
        cursor = (frame.result as { cursor: string | null }).cursor;
        // Which answer came first, not how fast: a busy machine makes both slower alike.
        const at = (id: unknown) => child.frames.findIndex((f) => f.id === id);
        if (at(status.id) < at(frame.id)) statusFirst++;
      } while (cursor);
      // A step that reads the 8 MiB history spans many 2 ms slices (docs/extensions.md), and the
      // status sent right after it is answered between them: before the step, not after it.
      assert.ok(statusFirst > 0, "status waited for every discovery step");
    }));
});
