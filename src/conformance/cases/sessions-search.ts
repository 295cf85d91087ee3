import assert from "node:assert/strict";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CaseContext, ConformanceCase } from "../case.js";
import { within } from "../expect.js";
import type { TestChild } from "../harness.js";
import {
  SESSION_CAPABILITIES,
  sessionsFolder,
  writeHistoryOfSize,
  writeSmallHistory,
} from "../session-store.js";
import { readyOrSkip } from "../skip.js";

/**
 * Capability `session.search` (docs/extensions.md, "Text search"): hits of this workspace only,
 * each record's index as session.history counts it; pages with single-use cursors; a store
 * changed during a search answers `stale_revision`; `operation.cancel` answers
 * `operation_cancelled` and the cancelled search is gone; without the capability there is no
 * method.
 */
const SEARCH_CAPABILITIES = [...SESSION_CAPABILITIES, "session.search"];
const TS = "2026-11-29T10:00:00.000Z";
/** At most this many hits a page (extensions.md). */
const PAGE_HITS = 64;

interface Hit {
  id: string;
  title: string | null;
  updated_at: string | null;
  record_index: number;
  snippet: string;
}

interface Page {
  hits: Hit[];
  cursor: string | null;
  complete: boolean;
}

function writeHistory(ctx: CaseContext, id: string, records: object[], cwd = ctx.box.workspace) {
  const lines = [{ type: "session_meta", ts: TS, cwd, id }, ...records].map((r) =>
    JSON.stringify({ ts: TS, cwd, ...r }),
  );
  writeFileSync(join(sessionsFolder(ctx.box), `${id}.jsonl`), `${lines.join("\n")}\n`);
}

async function page(child: TestChild, params: object): Promise<Page> {
  const frame = await child.request("session.search", params, undefined, 30_000);
  assert.ok(frame.result, `session.search: ${JSON.stringify(frame.error)}`);
  const result = frame.result as unknown as Page;
  assert.ok(result.hits.length <= PAGE_HITS, `${result.hits.length} hits in one page`);
  assert.equal(result.complete, result.cursor === null, "complete exactly when no cursor");
  return result;
}

/** Every page of a fresh search, to the end. */
async function searchAll(child: TestChild, query: string): Promise<{ hits: Hit[]; pages: number }> {
  const hits: Hit[] = [];
  let cursor: string | null = null;
  for (let pages = 1; pages < 10_000; pages += 1) {
    const result = await page(child, cursor ? { query, cursor } : { query });
    hits.push(...result.hits);
    if (result.complete) return { hits, pages };
    cursor = result.cursor;
  }
  throw new Error("the search did not end");
}

const key = (hit: Hit) => `${hit.id}#${hit.record_index}`;

async function searchReady(ctx: CaseContext): Promise<TestChild> {
  return readyOrSkip(ctx, SEARCH_CAPABILITIES);
}

/** `count` histories with one matching user message each (record 1). */
function matchingStore(ctx: CaseContext, count: number): void {
  for (let i = 0; i < count; i += 1) writeSmallHistory(ctx.box, `m${i}`, `needle number ${i}`);
}

export const SESSION_SEARCH_CASES: ConformanceCase[] = [
  {
    id: "sessions.search.match",
    tier: "MUST",
    clause:
      "extensions.md Text search: case-insensitive over titles, user and assistant messages and tool titles of this workspace's validated sessions; one hit per matching record {id, title, updated_at, record_index, snippet}; snippet at most 200 characters.",
    title:
      "finds a user message, an assistant message, a title and a tool title; never another workspace's",
    async run(ctx) {
      const long = `${"a".repeat(300)} the Wombat ${"b".repeat(300)}`;
      writeHistory(ctx, "s1", [
        { type: "user_message", text: "where did the WOMBAT go?" },
        { type: "assistant_message", text: long, model: "demo/demo-1" },
        {
          type: "tool_result",
          call_id: "c0",
          item_id: "i0",
          status: "completed",
          output: "wombat",
        },
        { type: "title", title: "Wombat search" },
        {
          type: "tool_call",
          call_id: "c1",
          item_id: "i1",
          tool: "shell",
          input: { command: "ls", description: "list the wombat den" },
        },
      ]);
      writeHistory(ctx, "plain", [{ type: "user_message", text: "nothing here" }]);
      writeHistory(ctx, "foreign", [{ type: "user_message", text: "wombat" }], "/elsewhere/ws");
      const child = await searchReady(ctx);
      const { hits } = await searchAll(child, "wOmBaT");
      assert.deepEqual(hits.map(key).sort(), ["s1#1", "s1#2", "s1#4", "s1#5"]);
      for (const hit of hits) {
        assert.equal(hit.title, "Wombat search");
        assert.ok(hit.snippet.length <= 200, `a snippet of ${hit.snippet.length}`);
        assert.match(hit.snippet, /wombat/i, "the snippet holds the match");
      }
      const events = (await child.call("session.history", { id: "s1" })).events as {
        type: string;
      }[];
      assert.deepEqual(
        hits.map((h) => events[h.record_index]?.type).sort(),
        ["assistant_message", "title", "tool_call", "user_message"],
        "record_index is the record's index among session.history's events",
      );
    },
  },
  {
    id: "sessions.search.paging",
    tier: "MUST",
    clause:
      "extensions.md Text search: paged as discovery: at most 64 hits a page, a resumable cursor used once, every hit exactly once.",
    title:
      "150 hits come in pages of at most 64, each exactly once; a spent cursor is stale_revision",
    async run(ctx) {
      matchingStore(ctx, 150);
      const child = await searchReady(ctx);
      const first = await page(child, { query: "NEEDLE" });
      assert.equal(first.complete, false, "150 hits do not fit one page");
      const spent = first.cursor as string;
      const hits = [...first.hits];
      let cursor: string | null = spent;
      for (let i = 0; cursor !== null && i < 1000; i += 1) {
        const next = await page(child, { query: "NEEDLE", cursor });
        hits.push(...next.hits);
        cursor = next.cursor;
      }
      assert.equal(cursor, null, "the search completed");
      const keys = hits.map(key);
      assert.equal(new Set(keys).size, keys.length, "no hit twice");
      assert.deepEqual(keys.sort(), Array.from({ length: 150 }, (_, i) => `m${i}#1`).sort());
      assert.equal(
        await child.errorCode("session.search", { query: "NEEDLE", cursor: spent }),
        "stale_revision",
      );
    },
  },
  {
    id: "sessions.search.stale",
    tier: "MUST",
    clause:
      "extensions.md Text search: a history changed during a search, or a session added, answers stale_revision (start again without a cursor).",
    title: "a session added, or a history appended to, during a search: stale_revision",
    async run(ctx) {
      matchingStore(ctx, 150);
      const child = await searchReady(ctx);
      const first = await page(child, { query: "needle" });
      assert.ok(first.cursor, "the search takes more than one page");
      writeSmallHistory(ctx.box, "added", "needle added");
      assert.equal(
        await child.errorCode("session.search", { query: "needle", cursor: first.cursor }),
        "stale_revision",
        "a session added during the search",
      );
      const again = await page(child, { query: "needle" });
      assert.ok(again.cursor && again.hits[0], "a fresh search starts");
      const read = again.hits[0] as Hit;
      appendFileSync(
        join(sessionsFolder(ctx.box), `${read.id}.jsonl`),
        `${JSON.stringify({ type: "user_message", ts: TS, cwd: ctx.box.workspace, text: "more" })}\n`,
      );
      let cursor: string | null = again.cursor;
      let code: string | undefined;
      for (let i = 0; cursor !== null && i < 1000; i += 1) {
        const frame = await child.request(
          "session.search",
          { query: "needle", cursor },
          undefined,
          30_000,
        );
        code = frame.error?.code;
        if (code !== undefined) break;
        cursor = (frame.result as unknown as Page).cursor;
      }
      assert.equal(code, "stale_revision", "a history already searched was appended to");
      const fresh = await searchAll(child, "needle");
      assert.equal(fresh.hits.length, 151, "a fresh search sees the store as it is now");
    },
  },
  {
    id: "sessions.search.cancel",
    tier: "MUST",
    clause:
      "extensions.md Text search: cancellable with operation.cancel: a cancelled search answers operation_cancelled and is gone.",
    title: "a search cancelled in the same write answers operation_cancelled; its search is gone",
    async run(ctx) {
      matchingStore(ctx, 300);
      writeHistoryOfSize(ctx.box, "bytes", 9 * 1024 * 1024, 1024);
      const child = await searchReady(ctx);
      const first = await page(child, { query: "needle" });
      assert.ok(first.cursor, "the search takes more than one page");
      const id = "search-cancelled";
      const terminal = child.waitFor((f) => f.id === id, 30_000);
      const ack = child.waitFor((f) => f.id === "cancel-search");
      child.send(
        `${JSON.stringify({ id, method: "session.search", params: { query: "needle", cursor: first.cursor } })}\n` +
          `${JSON.stringify({ id: "cancel-search", method: "operation.cancel", params: { request_id: id } })}\n`,
      );
      assert.equal((await ack).result?.state, "cancelling");
      const answer = await within(terminal, 30_000, "the cancelled step");
      assert.equal(answer.error?.code, "operation_cancelled");
      assert.equal(
        await child.errorCode("session.search", { query: "needle", cursor: first.cursor }),
        "stale_revision",
        "the cancelled search is gone: its cursor is dead",
      );
      const { hits } = await searchAll(child, "needle");
      assert.equal(hits.length, 300, "a fresh search still finds every hit");
    },
  },
  {
    id: "sessions.search.not-negotiated",
    tier: "MUST",
    clause: "extensions.md: a method of a capability not negotiated is unsupported_capability.",
    title: "without session.search there is no session.search",
    async run(ctx) {
      matchingStore(ctx, 1);
      const child = await ctx.ready(SESSION_CAPABILITIES);
      assert.equal(
        await child.errorCode("session.search", { query: "needle" }),
        "unsupported_capability",
      );
    },
  },
];
