import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { decodeFrame } from "../src/protocol/envelope.js";
import { FrameSplitter } from "../src/protocol/framing.js";
import { fillPage, PageBuilder, PageOverflow, utf8Length } from "../src/protocol/paging.js";
import { CursorStore } from "../src/server/cursors.js";

const text = new TextEncoder();
const frames = (events: ReturnType<FrameSplitter["push"]>) =>
  events.map((e) => (e.kind === "frame" ? new TextDecoder().decode(e.bytes) : "<oversized>"));

describe("FrameSplitter", () => {
  test("splits on LF across chunk boundaries", () => {
    const s = new FrameSplitter(100);
    assert.deepEqual(frames(s.push(text.encode('{"a":1}\n{"b"'))), ['{"a":1}']);
    assert.deepEqual(frames(s.push(text.encode(":2}\n\n"))), ['{"b":2}', ""]);
    assert.deepEqual(s.end(), []);
  });

  test("a frame of exactly the bound passes; one byte more is oversized and discarded to its LF", () => {
    const s = new FrameSplitter(10);
    assert.deepEqual(frames(s.push(text.encode("0123456789\n"))), ["0123456789"]);
    assert.deepEqual(frames(s.push(text.encode("0123456789A"))), []);
    assert.deepEqual(frames(s.push(text.encode("BCDEF\nok\n"))), ["<oversized>", "ok"]);
  });

  test("whole frames inside one chunk: the bound holds, and a carried-over part joins the next", () => {
    const s = new FrameSplitter(10);
    assert.deepEqual(frames(s.push(text.encode("0123456789\n01234567890\nok\n\npart"))), [
      "0123456789",
      "<oversized>",
      "ok",
      "",
    ]);
    assert.deepEqual(frames(s.push(text.encode("ial\nnext\n"))), ["partial", "next"]);
  });

  test("an unterminated last line counts at EOF", () => {
    const s = new FrameSplitter(10);
    s.push(text.encode("tail"));
    assert.deepEqual(frames(s.end()), ["tail"]);
  });

  test("the splitter copies: reusing the caller's buffer does not corrupt a pending frame", () => {
    const s = new FrameSplitter(100);
    const chunk = text.encode("abc");
    s.push(chunk);
    chunk.fill(0x7a);
    assert.deepEqual(frames(s.push(text.encode("\n"))), ["abc"]);
  });
});

describe("decodeFrame", () => {
  const decode = (line: string) => decodeFrame(text.encode(line));
  test("accepts exactly id, method, params", () => {
    assert.deepEqual(decode('{"id":"a","method":"m","params":{}}'), {
      ok: true,
      request: { id: "a", method: "m", params: {} },
    });
  });
  test("echoes only valid IDs", () => {
    assert.deepEqual(decode('{"id":"a","method":"m"}'), {
      ok: false,
      id: "a",
      code: "invalid_request",
    });
    assert.deepEqual(decode('{"id":"a b","method":"m","params":{}}'), {
      ok: false,
      id: null,
      code: "invalid_request",
    });
  });
  test("rejects inherited-looking keys and duplicates safely", () => {
    assert.equal(decode('{"id":"a","method":"m","params":{},"__proto__":{}}').ok, false);
  });
});

describe("pager", () => {
  test("fillPage stops at the entry bound", () => {
    const page = fillPage([1, 2, 3, 4], 10, { entries: 2, bytes: 1000 });
    assert.deepEqual(page, { items: [1, 2], stoppedBy: "page_entries" });
  });
  test("fillPage stops at the byte bound: items fit exactly, one more byte does not", () => {
    // envelope 10 + "aa"(4) + ","+"bb"(5) = 19
    assert.deepEqual(fillPage(["aa", "bb"], 10, { entries: 10, bytes: 19 }), {
      items: ["aa", "bb"],
      stoppedBy: null,
    });
    assert.deepEqual(fillPage(["aa", "bb"], 10, { entries: 10, bytes: 18 }), {
      items: ["aa"],
      stoppedBy: "page_bytes",
    });
  });
  test("an item that cannot fit an empty page is PageOverflow", () => {
    assert.throws(() => fillPage(["x".repeat(100)], 10, { entries: 10, bytes: 50 }), PageOverflow);
    const builder = new PageBuilder<string>(10, { entries: 10, bytes: 50 });
    assert.throws(() => builder.tryAdd("x".repeat(100)), PageOverflow);
  });
  test("PageBuilder refuses an item that fits only an empty page, without throwing", () => {
    const builder = new PageBuilder<string>(10, { entries: 10, bytes: 30 });
    assert.equal(builder.tryAdd("a".repeat(10)), true);
    assert.equal(builder.tryAdd("b".repeat(10)), false);
  });
  test("utf8Length counts bytes", () => {
    assert.equal(utf8Length("abc"), 3);
    assert.equal(utf8Length("é"), 2);
    assert.equal(utf8Length("😀"), 4);
  });
});

describe("CursorStore", () => {
  test("cursors are single-use, opaque ASCII, at most 64 bytes", () => {
    const store = new CursorStore<number>("l");
    const cursor = store.issue(7);
    assert.match(cursor, /^[\x21-\x7e]{1,64}$/);
    assert.equal(store.take(cursor), 7);
    assert.equal(store.take(cursor), undefined);
  });
  test("memory stays bounded when cursors are never continued", () => {
    const store = new CursorStore<number>("l", 4);
    const first = store.issue(0);
    for (let i = 1; i < 10; i++) store.issue(i);
    assert.equal(store.size, 4);
    assert.equal(store.take(first), undefined);
  });
});
