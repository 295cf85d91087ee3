import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StoreBuilder } from "../fixtures/store-builder.js";
import type { Frame, TestChild } from "../helpers/child.js";
import { discoverAll, inSandbox, listAll, startSessions } from "../helpers/sessions.js";

/**
 * `session.history` sends each record's own text (never a re-serialised value), pays a page
 * exactly those bytes, and no record of any nesting depth, on or off the parse thread, reaches
 * `internal_error` or fails another read.
 */
const TS = "2026-01-01T00:00:00.000Z";
const PAGE_BYTES = 32_768;
/** What the child reserves for a page's result around its events (the longest cursor). */
const ENVELOPE = JSON.stringify({ events: [], cursor: "x".repeat(64), complete: false }).length;

/** The `result` member's text in a success frame's line (`{"id":…,"result":…}`). */
function resultText(child: TestChild, frame: Frame): string {
  const line = child.lineOf(frame);
  const head = `{"id":${JSON.stringify(frame.id)},"result":`;
  assert.ok(line.startsWith(head) && line.endsWith("}"), line.slice(0, 200));
  return line.slice(head.length, -1);
}

function eventCount(frame: Frame): number {
  assert.ok(frame.result, `history failed: ${frame.error?.code}`);
  return (frame.result.events as unknown[]).length;
}

/** A record of exactly `bytes` bytes whose JSON is mostly whitespace (a re-serialiser shrinks it). */
function roomyRecord(n: number, bytes: number): string {
  const head = `{"type":"pad","ts":"${TS}","n":${n}`;
  return `${head}${" ".repeat(bytes - head.length - 1)}}`;
}

function deep(cwd: string, depth: number): string {
  return `{"type":"deep","ts":"${TS}","cwd":${JSON.stringify(cwd)},"a":${"[".repeat(depth)}${"]".repeat(depth)}}`;
}

async function historyFrames(child: TestChild, ids: string[], tag: string): Promise<Frame[]> {
  const requests = ids.map((id, i) => ({
    id: `${tag}${i}`,
    method: "session.history",
    params: { id },
  }));
  const frames = requests.map((r) => child.waitFor((f) => f.id === r.id, 60_000));
  child.send(`${requests.map((r) => JSON.stringify(r)).join("\n")}\n`);
  return Promise.all(frames);
}

describe("session.history sends records as stored", () => {
  it("writes each record's text verbatim, without the whitespace around it (a CRLF's CR)", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 41);
      const records = [
        `{"type":"a","ts":"${TS}","__proto__":{"x":[1e400]},"id":123456789012345678901234567890}`,
        `{"ts":"${TS}","type":"b","text":"\\u2028 caf\\u00e9","k":{"z":1,"a":2}}`,
        `{"type" : "c" , "ts" : "${TS}"}`,
      ];
      store.raw("crlf.jsonl", `${records[0]}\r\n  ${records[1]}\t\r\n${records[2]}\r\n`);
      const child = await startSessions(box);
      children.push(child);
      const frame = await child.request("session.history", { id: "crlf" });
      const text = resultText(child, frame);
      assert.equal(text, `{"events":[${records.join(",")}],"cursor":null,"complete":true}`);
      assert.ok(!child.lineOf(frame).includes("\r"), "no CR in the frame");
    }));

  it("fills a page to exactly 32,768 bytes of stored text, and not one byte more", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 42);
      // k events fill the page exactly: ENVELOPE + first + (k - 1) * (size + 1) = PAGE_BYTES.
      const size = 2_000;
      const k = 15;
      const first = PAGE_BYTES - ENVELOPE - (k - 1) * (size + 1);
      const rest = Array.from({ length: 20 }, (_, i) => roomyRecord(i + 1, size));
      store.raw("exact.jsonl", `${[roomyRecord(0, first), ...rest].join("\n")}\n`);
      store.raw("over.jsonl", `${[roomyRecord(0, first + 1), ...rest].join("\n")}\n`);
      // One event alone: at most PAGE_BYTES - ENVELOPE (32,662) bytes of text.
      store.raw("alone.jsonl", `${roomyRecord(0, PAGE_BYTES - ENVELOPE)}\n`);
      store.raw("too-big.jsonl", `${roomyRecord(0, PAGE_BYTES - ENVELOPE + 1)}\n`);
      const child = await startSessions(box);
      children.push(child);
      const exact = await child.request("session.history", { id: "exact" });
      assert.equal(eventCount(exact), k, "the page holds exactly k events");
      const cursor = exact.result?.cursor as string;
      const slack = 64 - cursor.length;
      assert.equal(Buffer.byteLength(resultText(child, exact)), PAGE_BYTES - slack);
      const over = await child.request("session.history", { id: "over" });
      assert.equal(eventCount(over), k - 1, "one byte more: one less");
      assert.equal(eventCount(await child.request("session.history", { id: "alone" })), 1);
      // One byte more than an empty page holds: its stub (history-oversize.test.ts).
      const tooBig = await child.call("session.history", { id: "too-big" });
      assert.deepEqual(
        tooBig.events.map((e) => [e.type, e.oversize, e.index, e.bytes]),
        [["pad", true, 0, PAGE_BYTES - ENVELOPE + 1]],
      );
      // The continuation carries the rest, verbatim.
      const next = await child.request("session.history", { id: "exact", cursor });
      assert.ok(resultText(child, next).startsWith(`{"events":[${rest.slice(k - 1).join(",")}`));
    }));
});

describe("deeply nested records", () => {
  it("are valid for list, discover, open and history alike, at 5,000 to 1,000,000 levels", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 43);
      const fits = deep(box.workspace, 16_000);
      assert.ok(fits.length < PAGE_BYTES - ENVELOPE);
      store.raw("d16k.jsonl", `${fits}\n`);
      store.raw("d100k.jsonl", `${deep(box.workspace, 100_000)}\n`);
      store.raw("d1m.jsonl", `${deep(box.workspace, 1_000_000)}\n`);
      const unbalanced = deep(box.workspace, 200_000).slice(0, -2);
      store.raw("broken.jsonl", `${unbalanced}}\n`);
      const child = await startSessions(box);
      children.push(child);
      const valid = ["d100k", "d16k", "d1m"];
      const listed = await listAll(child);
      assert.deepEqual([...listed.ids].sort(), valid);
      assert.deepEqual(listed.pages[0]?.notices, [{ code: "sessions_omitted_invalid", count: 1 }]);
      assert.deepEqual([...(await discoverAll(child)).ids].sort(), valid);
      for (const id of valid)
        assert.equal((await child.call("session.open", { id })).session.id, id);
      assert.equal(await child.errorCode("session.open", { id: "broken" }), "session_invalid");
      const [d16k, d100k, d1m, broken] = await historyFrames(
        child,
        ["d16k", "d100k", "d1m", "broken"],
        "deep",
      );
      assert.equal(
        resultText(child, d16k as Frame),
        `{"events":[${fits}],"cursor":null,"complete":true}`,
      );
      // Larger than any page: each comes as its stub, whatever its depth.
      for (const frame of [d100k, d1m]) {
        const events = (frame?.result?.events ?? []) as Record<string, unknown>[];
        assert.deepEqual(
          events.map((e) => [e.type, e.oversize, e.index]),
          [["deep", true, 0]],
        );
      }
      assert.equal(broken?.error?.code, "session_invalid");
    }));

  it("never fail another read through the parse thread, in the same write or after", () =>
    inSandbox(async (box, children) => {
      const store = new StoreBuilder(box.home, box.workspace, 44);
      // Both records are over 256 KiB, so both are parsed off the loop.
      store.raw("deep.jsonl", `${deep(box.workspace, 150_000)}\n`);
      const roomy = `{"type":"roomy","ts":"${TS}"}`;
      store.raw("roomy.jsonl", `${roomy}${" ".repeat(300_000)}\n`);
      const child = await startSessions(box);
      children.push(child);
      const ids = ["deep", "roomy", "deep", "roomy", "deep", "roomy"];
      for (const tag of ["first", "again"]) {
        const frames = await historyFrames(child, ids, tag);
        for (const [i, frame] of frames.entries()) {
          if (ids[i] === "deep")
            assert.equal(
              (frame.result?.events as { oversize?: boolean }[] | undefined)?.[0]?.oversize,
              true,
            );
          else
            assert.equal(
              resultText(child, frame),
              `{"events":[${roomy}],"cursor":null,"complete":true}`,
            );
        }
      }
    }));
});
