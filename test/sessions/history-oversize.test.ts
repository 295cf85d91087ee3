import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import { describe, it } from "node:test";
import { StoreBuilder } from "../fixtures/store-builder.js";
import type { Frame, TestChild } from "../helpers/child.js";
import { inSandbox, startSessions } from "../helpers/sessions.js";

/**
 * Records larger than a `session.history` page (docs/turns.md, "Records larger than a page"):
 * history sends a bounded stub in their place, and `session.record` sends the record's own text
 * in chunks that each fit a page, under the signature its first call saw.
 */
const TS = "2026-01-01T00:00:00.000Z";
const PAGE_BYTES = 32_768;
const ENVELOPE = JSON.stringify({ events: [], cursor: "x".repeat(64), complete: false }).length;
/** The longest record text an empty page holds. */
const ALONE = PAGE_BYTES - ENVELOPE;
const RECORD_BYTES = 8_388_608;

/** An assistant_message record of exactly `bytes` UTF-8 bytes, its text built from `fill`. */
function reply(cwd: string, bytes: number, fill = "x", extra = ""): string {
  const head = `{"type":"assistant_message","ts":"${TS}","cwd":${JSON.stringify(cwd)},"turn_id":"t1"${extra},"text":"`;
  const tail = `","model":"demo/demo-1"}`;
  let body = "";
  const room = bytes - Buffer.byteLength(head + tail);
  const unit = Buffer.byteLength(fill);
  body = fill.repeat(Math.floor(room / unit));
  body += "x".repeat(room - Buffer.byteLength(body));
  const line = head + body + tail;
  assert.equal(Buffer.byteLength(line), bytes);
  return line;
}

function small(cwd: string, n: number): string {
  return `{"type":"note","ts":"${TS}","cwd":${JSON.stringify(cwd)},"n":${n}}`;
}

/** The `result` member's text of a success frame, as the child wrote it. */
function resultBytes(child: TestChild, frame: Frame): number {
  const line = child.lineOf(frame);
  const head = `{"id":${JSON.stringify(frame.id)},"result":`;
  return Buffer.byteLength(line.slice(head.length, -1));
}

interface Chunk {
  index: number;
  bytes: number;
  offset: number;
  text: string;
  cursor: string | null;
  complete: boolean;
}

/** Reads record `index` whole, checking every chunk's place and page bound. */
async function readWhole(child: TestChild, id: string, index: number): Promise<string> {
  let text = "";
  let cursor: string | null = null;
  for (;;) {
    const params: Record<string, unknown> = cursor === null ? { id, index } : { id, index, cursor };
    const frame = await child.request("session.record", params, undefined, 60_000);
    assert.ok(frame.result, `session.record failed: ${frame.error?.code}`);
    const chunk = frame.result as unknown as Chunk;
    assert.ok(resultBytes(child, frame) <= PAGE_BYTES, "a chunk's result fits a page");
    assert.equal(chunk.offset, Buffer.byteLength(text), "chunks follow each other");
    assert.ok(chunk.text.length > 0);
    text += chunk.text;
    if (chunk.complete) {
      assert.equal(chunk.cursor, null);
      assert.equal(Buffer.byteLength(text), chunk.bytes);
      return text;
    }
    cursor = chunk.cursor;
  }
}

describe("records larger than a history page", () => {
  it("a record at the page bound comes as itself; one byte more comes as its stub", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 51);
      const cwd = box.workspace;
      const fits = reply(cwd, ALONE);
      const over = reply(cwd, ALONE + 1, "x", ',"interrupted":true,"n":7,"big":1e400,"o":{"a":1}');
      store.raw("edge.jsonl", `${[small(cwd, 0), fits, over, small(cwd, 3)].join("\n")}\n`);
      const child = await startSessions(box);
      children.push(child);
      const events: Record<string, unknown>[] = [];
      let page = await child.call("session.history", { id: "edge" });
      events.push(...(page.events as Record<string, unknown>[]));
      while (page.cursor !== null) {
        page = await child.call("session.history", { id: "edge", cursor: page.cursor });
        events.push(...(page.events as Record<string, unknown>[]));
      }
      assert.equal(events.length, 4);
      assert.equal(JSON.stringify(events[1]), fits, "at the bound: the record itself");
      assert.deepEqual(events[2], {
        type: "assistant_message",
        ts: TS,
        cwd,
        turn_id: "t1",
        interrupted: true,
        n: 7,
        model: "demo/demo-1",
        oversize: true,
        index: 2,
        bytes: ALONE + 1,
      });
      assert.deepEqual(events[3], JSON.parse(small(cwd, 3)), "the history goes on after it");
      // Both read back whole, byte for byte, through session.record.
      assert.equal(await readWhole(child, "edge", 2), over);
      assert.equal(await readWhole(child, "edge", 1), fits);
      assert.equal(await readWhole(child, "edge", 0), small(cwd, 0));
    }));

  it("a record at the 8 MiB bound, full of escapes and wide characters, reads whole", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 52);
      const cwd = box.workspace;
      // Quotes and backslashes take two bytes in a chunk's string, 🎉 and é four and two.
      // Stored with JSON whitespace around it (CRLF), the line exactly at the record bound: the
      // record's text leaves the whitespace out.
      const huge = reply(cwd, RECORD_BYTES - 4, '\\"é🎉\\\\');
      store.raw("huge.jsonl", `${small(cwd, 0)}\n  ${huge}\t\r\n${small(cwd, 2)}\n`);
      const child = await startSessions(box);
      children.push(child);
      const first = await child.call("session.history", { id: "huge" });
      const stub = first.events[1] as Record<string, unknown>;
      assert.equal(stub.oversize, true);
      assert.equal(stub.bytes, RECORD_BYTES - 4);
      assert.equal(stub.index, 1);
      assert.equal(first.events.length, 3);
      const whole = await readWhole(child, "huge", 1);
      assert.ok(whole === huge, "the 8 MiB record comes back exactly");
      assert.equal(await readWhole(child, "huge", 2), small(cwd, 2), "indexes count records");
    }));

  it("a history changed between chunks is stale_revision; cursors are checked and single-use", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 53);
      const cwd = box.workspace;
      const long = reply(cwd, 100_000);
      const path = store.raw("grow.jsonl", `${small(cwd, 0)}\n${long}\n`);
      store.raw("other.jsonl", `${small(cwd, 0)}\n${long}\n`);
      const child = await startSessions(box);
      children.push(child);
      // Without a session.history first: the first call validates and finds the record itself.
      const first = await child.call("session.record", { id: "grow", index: 1 });
      assert.equal(first.offset, 0);
      assert.equal(first.complete, false);
      const cursor = first.cursor as string;
      // Another session or another index with this cursor: refused, and nothing consumed.
      assert.equal(
        await child.errorCode("session.record", { id: "other", index: 1, cursor }),
        "invalid_params",
      );
      assert.equal(
        await child.errorCode("session.record", { id: "grow", index: 0, cursor }),
        "invalid_params",
      );
      const second = await child.call("session.record", { id: "grow", index: 1, cursor });
      assert.equal(second.offset, Buffer.byteLength(first.text));
      assert.equal(
        await child.errorCode("session.record", { id: "grow", index: 1, cursor }),
        "stale_revision",
        "a used cursor is stale",
      );
      appendFileSync(path, `${small(cwd, 2)}\n`);
      assert.equal(
        await child.errorCode("session.record", {
          id: "grow",
          index: 1,
          cursor: second.cursor as string,
        }),
        "stale_revision",
        "the history changed between chunks",
      );
      // A fresh read starts again and sees the new record too.
      assert.equal(await readWhole(child, "grow", 1), long);
      assert.equal(await readWhole(child, "grow", 2), small(cwd, 2));
    }));

  it("no record at the index, a torn tail, a missing or foreign session: the usual errors", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 54);
      const cwd = box.workspace;
      store.raw("torn.jsonl", `${small(cwd, 0)}\n{"type":"note","ts":"${TS}","cw`);
      store.raw("elsewhere.jsonl", `${small("/somewhere/else", 0)}\n`);
      const child = await startSessions(box);
      children.push(child);
      assert.equal(await readWhole(child, "torn", 0), small(cwd, 0));
      assert.equal(
        await child.errorCode("session.record", { id: "torn", index: 1 }),
        "invalid_params",
        "a torn tail is no record",
      );
      assert.equal(
        await child.errorCode("session.record", { id: "torn", index: 9 }),
        "invalid_params",
      );
      assert.equal(
        await child.errorCode("session.record", { id: "nobody", index: 0 }),
        "session_missing",
      );
      assert.equal(
        await child.errorCode("session.record", { id: "elsewhere", index: 0 }),
        "cwd_mismatch",
      );
      assert.equal(
        await child.errorCode("session.record", { id: "torn", index: -1 }),
        "invalid_params",
      );
      const lazy = await child.call("session.create", {});
      assert.equal(
        await child.errorCode("session.record", { id: lazy.session.id, index: 0 }),
        "invalid_params",
        "the lazy handle has no records",
      );
      const frame = await child.request("session.record", { id: "elsewhere", index: 0 });
      assert.ok(!JSON.stringify(frame).includes("/somewhere"), "no path in the error");
    }));
});
