import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import {
  discoverAll,
  listAll,
  recordOfSize,
  SESSION_CAPABILITIES,
  sessionsFolder,
  writeHistoryOfSize,
  writeSmallHistory,
} from "../session-store.js";
import { readyOrSkip } from "../skip.js";

/**
 * The scale edges the reference observations never executed: whole histories above 8 MiB
 * (discover reads them, list refuses them), more than 4096 directory names, records of exactly
 * 8 MiB and one byte more, and 100,000 sessions. Each case starts its child before writing the
 * store (listings read the store per request), so a child without sessions skips at once.
 */
const MIB8 = 8 * 1024 * 1024;
const LIST_BOUND =
  "base §6: session.list builds one bounded snapshot: ... a history over history_bytes (8 MiB), fails the whole call with discovery_limit.";
const NO_CEILING =
  "extensions §Incremental session discovery: No global candidate-count or whole-history-size ceiling applies to this operation.";

export const SCALE_CASES: ConformanceCase[] = [
  {
    id: "scale.history.exactly_8mib.listed",
    tier: "MUST",
    clause: LIST_BOUND,
    title: "a history of exactly 8 MiB is listed by session.list",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      writeHistoryOfSize(ctx.box, "big", MIB8);
      const { ids, error } = await listAll(child);
      assert.equal(error, undefined, `list failed: ${JSON.stringify(error)}`);
      assert.deepEqual(ids, ["big"]);
    },
  },
  {
    id: "scale.history.over_8mib.list_refuses_discover_reads",
    tier: "MUST",
    clause: `${LIST_BOUND} ${NO_CEILING}`,
    title: "a 9 MiB history: session.list is discovery_limit, session.discover reads it whole",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      writeHistoryOfSize(ctx.box, "big", MIB8 + 1);
      writeHistoryOfSize(ctx.box, "bigger", 9 * 1024 * 1024);
      const { error } = await listAll(child);
      assert.equal(error?.error?.code, "discovery_limit");
      const found = await discoverAll(child);
      assert.equal(found.last.error, undefined, JSON.stringify(found.last.error));
      assert.deepEqual(found.ids.sort(), ["big", "bigger"]);
      assert.ok(found.progress.includes("byte_work"), `progress: ${found.progress.join(",")}`);
    },
  },
  {
    id: "scale.record.exactly_8mib",
    tier: "MUST",
    clause:
      "extensions §Incremental session discovery: memory retains one bounded raw/parsed record (8 MiB raw limit).",
    title: "a single record of exactly 8 MiB is read by session.discover",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      // 8 MiB of record bytes, then its LF.
      writeFileSync(
        join(sessionsFolder(ctx.box), "huge.jsonl"),
        recordOfSize(ctx.box.workspace, MIB8 + 1),
      );
      const found = await discoverAll(child);
      assert.equal(found.last.error, undefined, JSON.stringify(found.last.error));
      assert.deepEqual(found.ids, ["huge"]);
    },
  },
  {
    id: "scale.record.over_8mib",
    tier: "MUST",
    clause:
      "extensions §Incremental session discovery, errors: discovery_record_bytes: One record exceeds 8 MiB.",
    title: "a single record of 8 MiB + 1 byte is discovery_record_bytes, never silently omitted",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      writeFileSync(
        join(sessionsFolder(ctx.box), "huge.jsonl"),
        recordOfSize(ctx.box.workspace, MIB8 + 2),
      );
      const found = await discoverAll(child);
      assert.equal(found.last.error?.code, "discovery_record_bytes", JSON.stringify(found.last));
    },
  },
  {
    id: "scale.directory.over_4096_names",
    tier: "MUST",
    clause: `${NO_CEILING} Order follows directory enumeration.`,
    title: "4,100 histories: discover returns each exactly once in 256-entry steps; list refuses",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      const expected: string[] = [];
      for (let i = 0; i < 4100; i += 1) {
        const id = `s${String(i).padStart(5, "0")}`;
        writeSmallHistory(ctx.box, id);
        expected.push(id);
      }
      const { error } = await listAll(child);
      assert.equal(error?.error?.code, "discovery_limit");
      const found = await discoverAll(child);
      assert.equal(found.last.error, undefined, JSON.stringify(found.last.error));
      assert.equal(new Set(found.ids).size, found.ids.length, "no session twice");
      assert.deepEqual([...found.ids].sort(), expected);
      assert.ok(
        found.progress.includes("directory_work") || found.progress.includes("page_entries"),
      );
    },
  },
  {
    id: "scale.sessions.100k",
    tier: "MUST",
    clause: `${NO_CEILING} Shared 4096-request child lifetime still applies.`,
    title: "100,000 sessions are discovered completely within one child's request lifetime",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      const folder = sessionsFolder(ctx.box);
      const cwd = ctx.box.workspace;
      for (let i = 0; i < 100_000; i += 1) {
        const id = `c${i}`;
        const line = JSON.stringify({
          type: "user_message",
          ts: "2026-11-29T10:00:00.000Z",
          cwd,
          text: id,
        });
        writeFileSync(join(folder, `${id}.jsonl`), `${line}\n`);
      }
      const found = await discoverAll(child, 4000);
      assert.equal(found.last.error, undefined, JSON.stringify(found.last.error));
      assert.equal(found.ids.length, 100_000, "every session once");
      assert.equal(new Set(found.ids).size, 100_000, "no session twice");
    },
  },
];
