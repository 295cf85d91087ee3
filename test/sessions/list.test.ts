import assert from "node:assert/strict";
import { mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { StoreBuilder } from "../fixtures/store-builder.js";
import { type Sandbox, sandbox, type TestChild } from "../helpers/child.js";
import { type Listing, listAll, startSessions as startReady } from "../helpers/sessions.js";
import { treeSnapshot } from "../helpers/tree.js";

describe("session.list classification", () => {
  let box: Sandbox;
  let child: TestChild;
  let listing: Listing;
  let treeBefore: string[];

  before(async () => {
    box = sandbox();
    const store = new StoreBuilder(box.home, box.workspace, 7);
    store.chat("chat1", { title: "Fix the flaky test" });
    store.empty("legacy1");
    store.chat("foreign1", { cwd: "/other/workspace" });
    store.mixed("mixed1", 3);
    for (const kind of [
      "bad_json",
      "blank_line",
      "non_object",
      "missing_ts",
      "invalid_utf8",
    ] as const)
      store.malformed(`bad-${kind.replace("_", "-")}`, kind);
    const outside = join(box.root, "outside.jsonl");
    writeFileSync(outside, `${JSON.stringify({ type: "mode", ts: "t", cwd: box.workspace })}\n`);
    store.symlink("linked1", outside);
    store.fifo("fifo1");
    store.subagent("chat1");
    store.archived("archived1");
    store.raw("not a primary.jsonl", "garbage");
    store.raw(".hidden.jsonl", "garbage");
    treeBefore = treeSnapshot(box.home);
    child = await startReady(box);
    listing = await child.call("session.list", {});
  });
  after(async () => {
    await child?.close();
    box.cleanup();
  });

  it("lists the workspace chat and the empty legacy row", () => {
    assert.deepEqual(listing.sessions.map((s) => s.id).sort(), ["chat1", "legacy1"]);
    const legacy = listing.sessions.find((s) => s.id === "legacy1");
    assert.deepEqual(legacy, {
      id: "legacy1",
      title: null,
      created_at: null,
      updated_at: null,
      busy: false,
      cwd: "unverified",
      open: "exact",
    });
    assert.equal(listing.sessions.find((s) => s.id === "chat1")?.cwd, "verified");
    assert.equal(listing.complete, true);
    assert.equal(listing.cursor, null);
  });

  it("counts malformed, symlinked and FIFO primaries as invalid, and flags the legacy row", () => {
    assert.deepEqual(listing.notices, [
      { code: "cwd_unverified", count: 1 },
      // five malformed kinds + symlink + FIFO; foreign and mixed are excluded without a count
      { code: "sessions_omitted_invalid", count: 7 },
    ]);
  });

  it("never lists subagent, archived or non-primary names", () => {
    const ids = listing.sessions.map((s) => s.id);
    for (const id of ["archived1", "foreign1", "mixed1"]) assert.ok(!ids.includes(id));
    assert.ok(!ids.some((id) => id.includes(".")));
  });

  it("changes nothing under MC_HOME", () => {
    assert.deepEqual(treeSnapshot(box.home), treeBefore);
  });
});

describe("session.list cwd aliases", () => {
  it("matches histories recorded under the other spelling of a symlinked workspace", async () => {
    const box = sandbox();
    try {
      const alias = join(box.root, "alias");
      symlinkSync(box.workspace, alias);
      const store = new StoreBuilder(box.home, box.workspace, 3);
      store.chat("real", { cwd: box.workspace });
      store.chat("aliased", { cwd: alias });
      store.chat("dotted", { cwd: `${alias}/./` });
      // The child starts through the symlinked path; its canonical cwd is the real one.
      const child = await startReady({ ...box, workspace: alias });
      const { ids } = await listAll(child);
      assert.deepEqual(ids.sort(), ["aliased", "dotted", "real"]);
      await child.close();
    } finally {
      box.cleanup();
    }
  });
});

describe("session.list bounds", () => {
  it("lists 256 candidates and fails with 257 (discovery_limit)", async () => {
    const box = sandbox();
    try {
      const store = new StoreBuilder(box.home, box.workspace, 11);
      for (let i = 0; i < 256; i += 1) store.chat(`c${i}`, { records: 2 });
      const child = await startReady(box);
      const { pages, ids } = await listAll(child);
      assert.equal(ids.length, 256);
      assert.equal(new Set(ids).size, 256);
      assert.deepEqual(
        pages.map((p) => p.sessions.length),
        [100, 100, 56],
      );
      for (const page of pages) assert.ok(Buffer.byteLength(JSON.stringify(page)) <= 32_768);
      store.empty("c256");
      assert.equal(await child.errorCode("session.list", {}), "discovery_limit");
      await child.close();
    } finally {
      box.cleanup();
    }
  });

  it("lists a history of exactly 8 MiB and fails one byte more (discovery_limit)", async () => {
    const box = sandbox();
    try {
      const store = new StoreBuilder(box.home, box.workspace, 5);
      assert.equal(statSync(store.sized("big", 8 * 1024 * 1024, 64 * 1024)).size, 8 * 1024 * 1024);
      const child = await startReady(box);
      const listing = await child.call("session.list", {});
      assert.deepEqual(
        listing.sessions.map((s) => s.id),
        ["big"],
      );
      assert.equal(
        statSync(store.sized("big", 8 * 1024 * 1024 + 1, 64 * 1024)).size,
        8 * 1024 * 1024 + 1,
      );
      assert.equal(await child.errorCode("session.list", {}), "discovery_limit");
      await child.close();
    } finally {
      box.cleanup();
    }
  });

  it("keeps pages within 32 KiB and refuses a used cursor", async () => {
    const box = sandbox();
    try {
      const store = new StoreBuilder(box.home, box.workspace, 13);
      // Long titles: about 1 KiB of JSON per entry, so the byte bound cuts pages before 100.
      for (let i = 0; i < 60; i += 1)
        store.chat(`t${i}`, { title: `title ${i} ${"é".repeat(400)}` });
      const child = await startReady(box);
      const { pages, ids } = await listAll(child);
      assert.equal(ids.length, 60);
      assert.ok(pages.length > 1, "the byte bound must split the listing");
      for (const page of pages) {
        const bytes = Buffer.byteLength(JSON.stringify(page));
        assert.ok(bytes <= 32_768, `page of ${bytes} bytes`);
        assert.ok(page.sessions.length < 100);
      }
      const first = await child.call("session.list", {});
      assert.ok(first.cursor);
      await child.call("session.list", { cursor: first.cursor });
      assert.equal(
        await child.errorCode("session.list", { cursor: first.cursor }),
        "stale_revision",
      );
      assert.equal(
        await child.errorCode("session.list", { cursor: "never-issued" }),
        "stale_revision",
      );
      assert.equal(
        await child.errorCode("session.list", { cursor: "x".repeat(65) }),
        "invalid_params",
      );
      await child.close();
    } finally {
      box.cleanup();
    }
  });
});

describe("session.list root", () => {
  it("treats a missing sessions folder as an empty store", async () => {
    const box = sandbox();
    try {
      const child = await startReady(box);
      assert.deepEqual(await child.call("session.list", {}), {
        sessions: [],
        notices: [],
        cursor: null,
        complete: true,
      });
      await child.close();
    } finally {
      box.cleanup();
    }
  });

  it("answers discovery_unavailable for a symlinked or non-folder root", async () => {
    const box = sandbox();
    try {
      const real = join(box.root, "real-sessions");
      mkdirSync(real);
      symlinkSync(real, join(box.home, "sessions"));
      const child = await startReady(box);
      assert.equal(await child.errorCode("session.list", {}), "discovery_unavailable");
      rmSync(join(box.home, "sessions"));
      writeFileSync(join(box.home, "sessions"), "");
      assert.equal(await child.errorCode("session.list", {}), "discovery_unavailable");
      await child.close();
    } finally {
      box.cleanup();
    }
  });
});
