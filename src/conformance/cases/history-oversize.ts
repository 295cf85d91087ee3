import assert from "node:assert/strict";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import type { Frame } from "../frame.js";
import type { Sandbox, TestChild } from "../harness.js";
import { SESSION_CAPABILITIES, sessionsFolder } from "../session-store.js";
import { readyOrSkip } from "../skip.js";

/**
 * Records larger than a `session.history` page (docs/turns.md, section 11): history sends a
 * bounded stub in their place, and `session.record` sends each record's own text in chunks,
 * every result within `page_bytes`, under the signature of its first call. Histories are written
 * here as raw text, as any writer may store them.
 */
const TS = "2026-11-29T10:00:00.000Z";
const PAGE_BYTES = 32_768;
const ENVELOPE = JSON.stringify({ events: [], cursor: "x".repeat(64), complete: false }).length;
const ALONE = PAGE_BYTES - ENVELOPE;
const RECORD_BYTES = 8_388_608;
const CAPABILITIES = [...SESSION_CAPABILITIES, "session.record"];

/** An assistant_message record of exactly `bytes` UTF-8 bytes, its text made of `fill`. */
function reply(cwd: string, bytes: number, fill = "x"): string {
  const head = `{"type":"assistant_message","ts":"${TS}","cwd":${JSON.stringify(cwd)},"turn_id":"t1","text":"`;
  const tail = `","model":"kit/kit-1"}`;
  const room = bytes - Buffer.byteLength(head + tail);
  let body = fill.repeat(Math.floor(room / Buffer.byteLength(fill)));
  body += "x".repeat(room - Buffer.byteLength(body));
  return head + body + tail;
}

function note(cwd: string, n: number): string {
  return `{"type":"note","ts":"${TS}","cwd":${JSON.stringify(cwd)},"n":${n}}`;
}

function write(box: Sandbox, id: string, text: string): string {
  const path = join(sessionsFolder(box), `${id}.jsonl`);
  writeFileSync(path, text);
  return path;
}

/** The byte length of a success frame's `result` member as the child wrote it. */
function resultBytes(child: TestChild, frame: Frame): number {
  const head = `{"id":${JSON.stringify(frame.id)},"result":`;
  return Buffer.byteLength(child.lineOf(frame).slice(head.length, -1));
}

/** Every event of a history, following its cursor. */
async function events(child: TestChild, id: string): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const frame = await child.request("session.history", cursor ? { id, cursor } : { id });
    assert.ok(frame.result, `session.history failed: ${frame.error?.code}`);
    all.push(...(frame.result.events as Record<string, unknown>[]));
    cursor = frame.result.cursor as string | null;
  } while (cursor !== null);
  return all;
}

/** Record `index` whole through session.record, each chunk checked in place and bound. */
async function whole(child: TestChild, id: string, index: number): Promise<string> {
  let text = "";
  let cursor: string | null = null;
  for (;;) {
    const params = cursor === null ? { id, index } : { id, index, cursor };
    const frame = await child.request("session.record", params, undefined, 60_000);
    assert.ok(frame.result, `session.record failed: ${frame.error?.code}`);
    const chunk = frame.result as { offset: number; bytes: number; text: string };
    assert.ok(resultBytes(child, frame) <= PAGE_BYTES, "each chunk's result fits a page");
    assert.equal(chunk.offset, Buffer.byteLength(text), "chunks follow each other");
    text += chunk.text;
    cursor = frame.result.cursor as string | null;
    if (frame.result.complete === true) {
      assert.equal(Buffer.byteLength(text), chunk.bytes, "the chunks make the whole record");
      return text;
    }
    assert.ok(cursor, "an incomplete chunk has a cursor");
  }
}

export const HISTORY_OVERSIZE_CASES: ConformanceCase[] = [
  {
    id: "history.oversize.stub_at_the_bound",
    tier: "MUST",
    clause:
      "base §6: history pages obey page_bytes; docs/turns.md §11: a record that cannot fit an empty page comes as a stub with oversize, index and bytes, and session.record returns its text.",
    title:
      "a record exactly at the page bound comes as itself, one byte more as its stub; both read back byte for byte",
    async run(ctx) {
      const child = await readyOrSkip(ctx, CAPABILITIES);
      const cwd = ctx.box.workspace;
      const fits = reply(cwd, ALONE);
      const over = reply(cwd, ALONE + 1);
      write(ctx.box, "edge", `${[note(cwd, 0), fits, over, note(cwd, 3)].join("\n")}\n`);
      const all = await events(child, "edge");
      assert.equal(all.length, 4, "one event per record");
      assert.equal(JSON.stringify(all[1]), fits, "at the bound: the record itself");
      const stub = all[2] ?? {};
      assert.equal(stub.oversize, true);
      assert.equal(stub.index, 2);
      assert.equal(stub.bytes, ALONE + 1);
      assert.equal(stub.type, "assistant_message");
      assert.equal(stub.ts, TS);
      assert.equal(stub.turn_id, "t1", "short fields for a placeholder");
      assert.equal(stub.text, undefined, "the long text is not in the stub");
      assert.equal(all[3]?.n, 3, "the history goes on after it");
      assert.equal(await whole(child, "edge", 2), over);
      assert.equal(await whole(child, "edge", 1), fits);
    },
  },
  {
    id: "history.oversize.record_bound_whole",
    tier: "MUST",
    clause:
      "docs/store.md: a record is at most 8 MiB; docs/turns.md §11: session.record returns any record whole in chunks within page_bytes, cut between characters.",
    title:
      "a record at the 8 MiB bound, of quotes, backslashes and wide characters, reads back whole through chunks",
    async run(ctx) {
      const child = await readyOrSkip(ctx, CAPABILITIES);
      const cwd = ctx.box.workspace;
      const huge = reply(cwd, RECORD_BYTES, '\\"é🎉\\\\');
      write(ctx.box, "huge", `${note(cwd, 0)}\n${huge}\n`);
      const all = await events(child, "huge");
      assert.equal(all[1]?.oversize, true);
      assert.equal(all[1]?.bytes, RECORD_BYTES);
      const text = await whole(child, "huge", 1);
      assert.ok(text === huge, "the record comes back exactly");
    },
  },
  {
    id: "history.oversize.changed_between_chunks",
    tier: "MUST",
    clause:
      "docs/turns.md §11: each session.record continuation requires the signature its first call saw (stale_revision otherwise); cursors are single-use and belong to one record.",
    title:
      "a history appended to between chunks is stale_revision; a foreign or used cursor is refused; a fresh read works",
    async run(ctx) {
      const child = await readyOrSkip(ctx, CAPABILITIES);
      const cwd = ctx.box.workspace;
      const long = reply(cwd, 100_000);
      const path = write(ctx.box, "grow", `${note(cwd, 0)}\n${long}\n`);
      const first = await child.request("session.record", { id: "grow", index: 1 });
      assert.ok(first.result, `session.record failed: ${first.error?.code}`);
      const cursor = first.result.cursor as string;
      assert.ok(cursor, "a 100 KB record takes more than one chunk");
      const other = await child.request("session.record", { id: "grow", index: 0, cursor });
      assert.equal(other.error?.code, "invalid_params", "a cursor belongs to its record");
      const second = await child.request("session.record", { id: "grow", index: 1, cursor });
      assert.ok(second.result, "the refused cursor was not used up");
      const used = await child.request("session.record", { id: "grow", index: 1, cursor });
      assert.equal(used.error?.code, "stale_revision", "a used cursor is stale");
      appendFileSync(path, `${note(cwd, 2)}\n`);
      const next = second.result.cursor as string;
      const stale = await child.request("session.record", { id: "grow", index: 1, cursor: next });
      assert.equal(stale.error?.code, "stale_revision", "the history changed between chunks");
      assert.equal(await whole(child, "grow", 1), long, "a fresh read starts again");
      const past = await child.request("session.record", { id: "grow", index: 3 });
      assert.equal(past.error?.code, "invalid_params", "no record past the end");
    },
  },
];
