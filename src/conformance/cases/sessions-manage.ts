import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CaseContext, ConformanceCase } from "../case.js";
import type { TestChild } from "../harness.js";
import { homeSnapshot, snapshotDiff } from "../home-snapshot.js";
import { discoverAll, listAll, SESSION_CAPABILITIES, sessionsFolder } from "../session-store.js";
import { readyOrSkip } from "../skip.js";

/**
 * Capability `session.manage` (docs/local-agent-protocol.md, "Managing sessions"): rename,
 * archive, unarchive, archived, delete and usage, checked through frames and the store's files
 * as docs/store.md describes them.
 */
const MANAGE_CAPABILITIES = [...SESSION_CAPABILITIES, "session.manage"];
const TS = "2026-11-29T10:00:00.000Z";

/** A history of `turns` turns, each ending with a usage and `cost(n)` (absent when undefined). */
function writeSession(
  ctx: CaseContext,
  id: string,
  turns: number,
  cost: (n: number) => number | null,
) {
  const cwd = ctx.box.workspace;
  const lines: unknown[] = [{ type: "session_meta", ts: TS, cwd, id }];
  for (let n = 1; n <= turns; n += 1) {
    const base = { ts: TS, cwd, turn_id: `t-${n}` };
    const usage = {
      input_tokens: 10,
      output_tokens: 2,
      cached_input_tokens: 0,
      reasoning_tokens: 0,
    };
    lines.push(
      { type: "user_message", ...base, text: `question ${n} of ${id}` },
      {
        type: "turn_end",
        ...base,
        status: "completed",
        stop_reason: "end_turn",
        usage,
        cost_usd: cost(n),
      },
    );
  }
  const raw = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
  writeFileSync(join(sessionsFolder(ctx.box), `${id}.jsonl`), raw);
  return raw;
}

async function manageReady(ctx: CaseContext): Promise<TestChild> {
  return readyOrSkip(ctx, MANAGE_CAPABILITIES);
}

async function archivedIds(child: TestChild): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let step = 0; step < 1000; step += 1) {
    const page = await child.call("session.archived", cursor === undefined ? {} : { cursor });
    ids.push(...page.sessions.map((s) => s.id));
    if (page.cursor === null) return ids;
    cursor = page.cursor;
  }
  throw new Error("session.archived did not complete");
}

/** Every discovered session's title, to validated completion. */
async function discoveredTitles(child: TestChild): Promise<Map<string, string | null>> {
  const titles = new Map<string, string | null>();
  let cursor: string | undefined;
  for (let step = 0; step < 1000; step += 1) {
    const page = await child.call("session.discover", cursor === undefined ? {} : { cursor });
    for (const s of page.sessions) titles.set(s.id, s.title);
    if (page.cursor === null) return titles;
    cursor = page.cursor;
  }
  throw new Error("session.discover did not complete");
}

export const SESSION_MANAGE_CASES: ConformanceCase[] = [
  {
    id: "sessions.manage.rename",
    tier: "MUST",
    clause:
      "local-agent-protocol.md session.rename: appends a `title` record (the last one wins); session.list, session.discover and session.open show it; a title is one line of 1..200 characters.",
    title:
      "rename is shown by list, discover and open; a bad title is invalid_params and writes nothing",
    async run(ctx) {
      writeSession(ctx, "s1", 1, () => 0.1);
      const child = await manageReady(ctx);
      const before = homeSnapshot(ctx.box.home);
      for (const title of ["", "a\nb", "x".repeat(201)])
        assert.equal(
          await child.errorCode("session.rename", { id: "s1", title }),
          "invalid_params",
        );
      assert.deepEqual(snapshotDiff(before, homeSnapshot(ctx.box.home)), []);
      const renamed = await child.call("session.rename", { id: "s1", title: "x".repeat(200) });
      assert.equal(renamed.session.title, "x".repeat(200));
      await child.call("session.rename", { id: "s1", title: "Final" });
      const listed = await child.call("session.list", {});
      assert.equal(listed.sessions.find((s) => s.id === "s1")?.title, "Final");
      assert.equal((await discoveredTitles(child)).get("s1"), "Final");
      assert.equal((await child.call("session.open", { id: "s1" })).session.title, "Final");
    },
  },
  {
    id: "sessions.manage.archive-roundtrip",
    tier: "MUST",
    clause:
      "local-agent-protocol.md session.archive: the history moves to sessions/archive/ by one rename; never listed; read by session.archived and session.history; session.open is session_missing; unarchive restores it exactly; a taken name is session_exists.",
    title:
      "archive hides, archived shows, unarchive restores byte for byte; session_exists on a taken name",
    async run(ctx) {
      const raw = writeSession(ctx, "s1", 2, () => 0.1);
      writeSession(ctx, "s2", 1, () => 0.1);
      const child = await manageReady(ctx);
      await child.call("session.open", { id: "s1" });
      await child.call("session.archive", { id: "s1" });
      const status = (await child.call("status", {})) as { attachment: unknown };
      assert.equal(status.attachment, null, "archiving the attached session detaches it");
      assert.deepEqual((await listAll(child)).ids, ["s2"]);
      assert.deepEqual((await discoverAll(child)).ids, ["s2"]);
      assert.deepEqual(await archivedIds(child), ["s1"]);
      assert.ok(existsSync(join(ctx.box.home, "sessions", "archive", "s1.jsonl")));
      assert.equal(await child.errorCode("session.open", { id: "s1" }), "session_missing");
      assert.equal((await child.call("session.history", { id: "s1" })).events.length, 5);
      writeSession(ctx, "s1", 1, () => 0.1);
      assert.equal(await child.errorCode("session.unarchive", { id: "s1" }), "session_exists");
      await child.call("session.delete", { id: "s1" });
      await child.call("session.unarchive", { id: "s1" });
      assert.equal(readFileSync(join(ctx.box.home, "sessions", "s1.jsonl"), "utf8"), raw);
      assert.deepEqual(await archivedIds(child), []);
    },
  },
  {
    id: "sessions.manage.delete",
    tier: "MUST",
    clause:
      "local-agent-protocol.md session.delete: the history and its derived histories go; the session is neither listed, opened nor archived afterwards; other sessions stay.",
    title: "delete removes the session and its derived histories, nothing else",
    async run(ctx) {
      writeSession(ctx, "s1", 1, () => 0.1);
      writeSession(ctx, "s2", 1, () => 0.1);
      writeFileSync(join(sessionsFolder(ctx.box), "s1.sub-1.jsonl"), "{}\n");
      const child = await manageReady(ctx);
      assert.deepEqual(await child.call("session.delete", { id: "s1" }), {
        id: "s1",
        deleted: true,
      });
      assert.deepEqual(readdirSync(sessionsFolder(ctx.box)).sort(), ["s2.jsonl"]);
      assert.equal(await child.errorCode("session.open", { id: "s1" }), "session_missing");
      assert.equal(await child.errorCode("session.delete", { id: "s1" }), "session_missing");
    },
  },
  {
    id: "sessions.manage.usage",
    tier: "MUST",
    clause:
      "local-agent-protocol.md session.usage: sums turn_end usage and cost_usd; turns of unknown cost are counted apart and the total is partial.",
    title: "usage sums known costs and marks the total partial when a turn's cost is unknown",
    async run(ctx) {
      writeSession(ctx, "s1", 3, (n) => (n === 3 ? null : 0.25));
      const child = await manageReady(ctx);
      const usage = await child.call("session.usage", { id: "s1" });
      assert.deepEqual(
        [usage.turns, usage.cost_usd, usage.unknown_cost_turns, usage.partial],
        [3, 0.5, 1, true],
      );
      assert.deepEqual(usage.usage, {
        input_tokens: 30,
        output_tokens: 6,
        cached_input_tokens: 0,
        reasoning_tokens: 0,
      });
    },
  },
  {
    id: "sessions.manage.not-negotiated",
    tier: "MUST",
    clause: "extensions.md: a method of a capability not negotiated is unsupported_capability.",
    title: "without session.manage every manage method is unsupported_capability",
    async run(ctx) {
      writeSession(ctx, "s1", 1, () => 0.1);
      const child = await ctx.ready(SESSION_CAPABILITIES);
      for (const method of ["session.rename", "session.archive", "session.delete", "session.usage"])
        assert.equal(
          await child.errorCode(
            method,
            method === "session.rename" ? { id: "s1", title: "x" } : { id: "s1" },
          ),
          "unsupported_capability",
        );
    },
  },
];
