import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import type { TestChild } from "../harness.js";
import { homeSnapshot } from "../home-snapshot.js";
import {
  discoverAll,
  listAll,
  SESSION_CAPABILITIES,
  sessionsFolder,
  writeSmallHistory,
} from "../session-store.js";
import { readyOrSkip } from "../skip.js";

/**
 * The session contract's core promises as kit cases: single-use cursors, the list bound, the
 * cwd rule with its notices, exact open and its errors, lazy create, and listings that write
 * nothing. The domain's own tests go deeper; these are what any implementation must show.
 */
const TS = "2026-11-29T10:00:00.000Z";

function page(frame: { result?: Record<string, unknown> }) {
  return frame.result as {
    sessions: { id: string; cwd: string }[];
    notices: { code: string; count: number }[];
    cursor: string | null;
  };
}

function writeLines(folder: string, id: string, records: object[]): void {
  writeFileSync(
    join(folder, `${id}.jsonl`),
    `${records.map((r) => JSON.stringify(r)).join("\n")}\n`,
  );
}

async function statusAttachment(child: TestChild): Promise<unknown> {
  return (await child.request("status", {})).result?.attachment;
}

export const SESSION_CASES: ConformanceCase[] = [
  {
    id: "sessions.list.cursor_single_use",
    tier: "MUST",
    clause:
      "extensions §Incremental session discovery: Cursors are single-use, child-scoped ... (session.list: the cursor continues that snapshot); server decision: a used cursor is stale_revision.",
    title: "session.list pages by 100 and refuses a cursor used before",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      for (let i = 0; i < 150; i += 1) writeSmallHistory(ctx.box, `p${String(i).padStart(3, "0")}`);
      const first = page(await child.request("session.list", {}));
      assert.equal(first.sessions.length, 100, "a full first page");
      assert.ok(first.cursor, "a cursor to the rest");
      const second = page(await child.request("session.list", { cursor: first.cursor }));
      assert.equal(second.sessions.length, 50);
      const again = await child.request("session.list", { cursor: first.cursor });
      assert.equal(again.error?.code, "stale_revision", "a used cursor is refused");
    },
  },
  {
    id: "sessions.list.bound_256",
    tier: "MUST",
    clause:
      "base §6: more than discovery_sessions (256) candidate primaries ... fails the whole call with discovery_limit.",
    title: "256 histories list; 257 are discovery_limit",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      for (let i = 0; i < 256; i += 1) writeSmallHistory(ctx.box, `b${i}`);
      const all = await listAll(child);
      assert.equal(all.error, undefined, JSON.stringify(all.error));
      assert.equal(all.ids.length, 256);
      writeSmallHistory(ctx.box, "one-more");
      const over = await listAll(child);
      assert.equal(over.error?.error?.code, "discovery_limit");
    },
  },
  {
    id: "sessions.discover.cursor_reuse_sticky",
    tier: "MUST",
    clause:
      "extensions §Incremental session discovery: Using an earlier cursor invalidates scan stickily.",
    title:
      "reusing an earlier discover cursor is stale_revision, and so is the latest one after it",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      for (let i = 0; i < 300; i += 1) writeSmallHistory(ctx.box, `d${i}`);
      const first = page(await child.request("session.discover", {}));
      assert.ok(first.cursor);
      const second = page(await child.request("session.discover", { cursor: first.cursor }));
      assert.ok(second.cursor, "the scan goes on");
      const early = await child.request("session.discover", { cursor: first.cursor });
      assert.equal(early.error?.code, "stale_revision");
      const latest = await child.request("session.discover", { cursor: second.cursor });
      assert.equal(latest.error?.code, "stale_revision", "the whole scan is invalid now");
    },
  },
  {
    id: "sessions.cwd_rule_and_notices",
    tier: "MUST",
    clause:
      "base §6: One mismatch excludes the history at once. A history whose records carry no nonempty cwd is a legacy row with cwd unverified. Notices cwd_unverified and sessions_omitted_invalid.",
    title:
      "foreign and mixed histories excluded; legacy unverified; malformed counted; same in discover",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      const folder = sessionsFolder(ctx.box);
      const cwd = ctx.box.workspace;
      writeSmallHistory(ctx.box, "mine");
      writeLines(folder, "foreign", [{ type: "session_meta", ts: TS, cwd: "/elsewhere/app" }]);
      writeLines(folder, "mixed", [
        { type: "session_meta", ts: TS, cwd },
        { type: "user_message", ts: TS, cwd: "/elsewhere/app", text: "hi" },
      ]);
      writeFileSync(join(folder, "legacy.jsonl"), "");
      writeFileSync(join(folder, "broken.jsonl"), '{"type":"title"\n');
      writeLines(folder, "mine.sub-1", [{ type: "session_meta", ts: TS, cwd }]);
      const listed = page(await child.request("session.list", {}));
      const byId = Object.fromEntries(listed.sessions.map((s) => [s.id, s.cwd]));
      assert.deepEqual(byId, { mine: "verified", legacy: "unverified" });
      const notices = Object.fromEntries(listed.notices.map((n) => [n.code, n.count]));
      assert.deepEqual(notices, { cwd_unverified: 1, sessions_omitted_invalid: 1 });
      const found = await discoverAll(child);
      assert.deepEqual([...found.ids].sort(), ["legacy", "mine"], "discover agrees with list");
    },
  },
  {
    id: "sessions.open.errors_keep_attachment",
    tier: "MUST",
    clause:
      "base §6: session.open ... Errors: session_missing, session_invalid, cwd_mismatch. On any failure the attachment stays as it was.",
    title: "exact open; missing, invalid, foreign and bad IDs fail and leave the attachment alone",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      const folder = sessionsFolder(ctx.box);
      writeSmallHistory(ctx.box, "mine");
      writeLines(folder, "foreign", [{ type: "session_meta", ts: TS, cwd: "/elsewhere/app" }]);
      writeFileSync(join(folder, "broken.jsonl"), "[1]\n");
      const opened = await child.request("session.open", { id: "mine" });
      assert.equal((opened.result?.session as { id: string } | undefined)?.id, "mine");
      const attached = await statusAttachment(child);
      assert.deepEqual(attached, { session_id: "mine", saved: true });
      const failures: [unknown, string][] = [
        [{ id: "nope" }, "session_missing"],
        [{ id: "broken" }, "session_invalid"],
        [{ id: "foreign" }, "cwd_mismatch"],
        [{ id: "mine.sub-1" }, "invalid_params"],
        [{ id: "../mine" }, "invalid_params"],
      ];
      for (const [params, code] of failures) {
        const frame = await child.request("session.open", params);
        assert.equal(frame.error?.code, code, `open ${JSON.stringify(params)}`);
        assert.deepEqual(await statusAttachment(child), attached, "attachment unchanged");
      }
    },
  },
  {
    id: "sessions.create_lazy_and_listings_write_nothing",
    tier: "MUST",
    clause:
      "base §6: session.create: a lazy handle; it is attached, writes nothing, and is absent from listings. base §1: never creates, repairs or deletes anything while listing.",
    title: "create writes nothing and is not listed; list, discover, history write nothing",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      writeSmallHistory(ctx.box, "mine");
      writeFileSync(join(sessionsFolder(ctx.box), "mine.lock"), '{"pid":1,"renewed_at":"x"}');
      const before = homeSnapshot(ctx.box.home);
      const created = await child.request("session.create", {});
      const handle = created.result?.session as { id: string; saved: boolean };
      assert.equal(handle.saved, false);
      assert.deepEqual(await statusAttachment(child), { session_id: handle.id, saved: false });
      const listed = await listAll(child);
      const found = await discoverAll(child);
      await child.request("session.history", { id: "mine" });
      assert.deepEqual(listed.ids, ["mine"], "the lazy handle is not listed");
      assert.deepEqual(found.ids, ["mine"], "nor discovered");
      assert.equal(homeSnapshot(ctx.box.home), before, "nothing under MC_HOME changed");
    },
  },
];
